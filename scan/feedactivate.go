package scan

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// ActivateInstalledFeed puts the indicator feed installed in the Airlock
// home at home, if there is one, under every later scan in this process
// (none: the bundled indicators alone). A feed.json that does not load is
// an error, for the proxy as for a policy that does not: the feed was
// installed to catch something.
func ActivateInstalledFeed(home string) error {
	f, err := LoadFeed(filepath.Join(home, FeedFile))
	if errors.Is(err, fs.ErrNotExist) {
		activateFeed(nil)
		return nil
	}
	if err != nil {
		return err
	}
	activateFeed(f)
	return nil
}
