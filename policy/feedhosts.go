package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
)

// The collector hosts of the signed indicator feed, for the hook. The feed
// is regular expressions that only the scanner compiles; parsing it on
// every call would cost the hook milliseconds. `airlock update` compiles
// the hosts its collector patterns name into FeedHostsFile, one host per
// line, and every policy load reads that small file (one open when it is
// missing) into the forbid net.exfil-collector-feed, beside the built-in
// net.exfil-collector. The file lives in the Airlock home, which no agent
// may write (gate.airlock-home).

// FeedHostsFile is the compiled host list, in the Airlock home.
const FeedHostsFile = "feed-hosts"

// feedHostsForbid is the id of the forbid the feed's hosts make.
const feedHostsForbid = "net.exfil-collector-feed"

// maxFeedHostsBytes bounds the file: a feed holds at most 256 patterns.
const maxFeedHostsBytes = 64 << 10

// FeedHostsRecord is the compiled host list as FeedHostsFile holds it:
// hosts canonicalised, sorted and deduplicated, header as its first
// comment line; nil when no host is left (the caller removes the file).
// The caller writes it (policy writes nothing).
func FeedHostsRecord(header string, hosts []string) ([]byte, error) {
	set := map[string]bool{}
	for _, h := range hosts {
		if c := feedHost(h); c != "" {
			set[c] = true
		}
	}
	if len(set) == 0 {
		return nil, nil
	}
	list := make([]string, 0, len(set))
	for h := range set {
		list = append(list, h)
	}
	sort.Strings(list)
	var b strings.Builder
	b.WriteString("# " + strings.ReplaceAll(header, "\n", " ") + "\n")
	b.WriteString("# collector hosts compiled from the indicator feed by airlock update; read by every hook (forbid " + feedHostsForbid + ")\n")
	for _, h := range list {
		b.WriteString(h + "\n")
	}
	if b.Len() > maxFeedHostsBytes {
		return nil, fmt.Errorf("%s: %d hosts are more than %d KiB", FeedHostsFile, len(list), maxFeedHostsBytes>>10)
	}
	return []byte(b.String()), nil
}

// feedHost is a host as the list keeps it: canonical, a name with a dot or
// an IP ("*.name" is read as name; every name covers its subdomains).
func feedHost(h string) string {
	h = strings.TrimSpace(strings.ToLower(h))
	wild := strings.HasPrefix(h, "*.")
	if wild {
		h = h[2:]
	}
	c := CanonicalHost(h)
	if c == "" || (!strings.Contains(c, ".") && !strings.Contains(c, ":")) {
		return ""
	}
	if wild {
		return "*." + c
	}
	return c
}

// feedHostsRule reads the compiled host list, if there is one, into a
// forbid. A file that is not Airlock's own regular file is an error, like
// a policy file that is not.
func feedHostsRule(airlockHome string) (*Rule, error) {
	if airlockHome == "" {
		return nil, nil
	}
	path, data, err := readRecord(airlockHome, FeedHostsFile, maxFeedHostsBytes, "feed hosts")
	if data == nil || err != nil {
		return nil, err
	}
	r := &Rule{ID: feedHostsForbid, Action: Block, File: path,
		Reason: "a request-capture, tunnel or paste service the indicator feed names is where stolen data goes"}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		h := feedHost(line)
		if h == "" {
			return nil, fmt.Errorf("feed hosts %s:%d: %q is not a host: run airlock update again", path, i+1, line)
		}
		// a feed pattern matches the name anywhere in the text, so its
		// subdomains too (random-subdomain collectors): both are patterns
		h = strings.TrimPrefix(h, "*.")
		r.hosts = append(r.hosts, compileHost(h))
		if !IsIP(h) {
			r.hosts = append(r.hosts, compileHost("*."+h))
		}
	}
	if len(r.hosts) == 0 {
		return nil, nil
	}
	r.hasFacts = true
	return r, nil
}

// readRecord reads one of the small records Airlock keeps in its home for
// the hook (feed-hosts, binaries): nil data when there is none, an error
// when it is not Airlock's own regular file, as for a policy file.
func readRecord(airlockHome, name string, max int64, what string) (string, []byte, error) {
	path := filepath.Join(airlockHome, name)
	data, err := regular.ReadState(path, max)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return path, data, nil
}
