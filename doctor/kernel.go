package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agentairlock/airlock/scan"
)

func checkFeed(home string) Check {
	f, err := scan.LoadFeed(filepath.Join(home, scan.FeedFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Check{Name: "indicators", Status: OK, Detail: fmt.Sprintf("the %d bundled indicators (no feed installed)", scan.BundledIndicators())}
	case err != nil:
		return Check{Name: "indicators", Status: Fail, Detail: err.Error(),
			Fix: "airlock-mcp refuses to start while feed.json does not load: install a good feed with airlock update, or remove the file"}
	}
	st := f.Stats()
	return Check{Name: "indicators", Status: OK,
		Detail: fmt.Sprintf("feed version %d (signer %s) on top of the %d bundled indicators: %d new, %d raised",
			f.Version, f.Signer, scan.BundledIndicators(), st.New, st.Raised)}
}

// kernelFacts is what this kernel offers the sandbox.
type kernelFacts struct {
	landlockABI int    // 0: none
	landlockWhy string // why there is none
	seccomp     bool
	seccompWhy  string
}

func checkKernel() Check {
	k := probeKernel()
	c := Check{Name: "kernel sandbox", Status: Info}
	if k.landlockABI > 0 {
		c.Items = append(c.Items, fmt.Sprintf("Landlock ABI %d available%s", k.landlockABI, landlockRights(k.landlockABI)))
	} else {
		c.Items = append(c.Items, "Landlock not available: "+k.landlockWhy)
	}
	if k.seccomp {
		c.Items = append(c.Items, "seccomp filters available")
	} else {
		c.Items = append(c.Items, "seccomp filters not available: "+k.seccompWhy)
	}
	c.Detail = "what `airlock run` could enforce here; no process Airlock launches is sandboxed in this build"
	return c
}

func landlockRights(abi int) string {
	switch {
	case abi >= 4:
		return " (files, and TCP bind/connect rules)"
	default:
		return " (files only: no network rules before ABI 4)"
	}
}
