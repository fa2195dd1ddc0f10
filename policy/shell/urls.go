package shell

import (
	"path"
	"strings"
)

func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isURLStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', '<', '>', '|', '\\', '(', ')', ';', ',', '{', '}', '^', 0:
		return true
	}
	return false
}

// isURL reports a word that starts with scheme://.
func isURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 || !isLetter(s[0]) {
		return false
	}
	for j := 1; j < i; j++ {
		if !isSchemeChar(s[j]) {
			return false
		}
	}
	return true
}

// fileURLPath returns the path of a file:// URL.
func fileURLPath(s string) (string, bool) {
	if len(s) < 7 || !strings.EqualFold(s[:7], "file://") {
		return "", false
	}
	p := s[7:]
	if rest, ok := strings.CutPrefix(p, "localhost"); ok {
		p = rest
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return path.Clean(p), true
}

// scanURLs records every scheme://… URL inside a word as a host, and the
// path of file:// URLs as a read.
func (w *walker) scanURLs(a argVal, sc *scope) {
	s := a.s
	for len(s) > 0 {
		i := strings.Index(s, "://")
		if i < 0 {
			return
		}
		start := i
		for start > 0 && isSchemeChar(s[start-1]) {
			start--
		}
		for start < i && !isLetter(s[start]) {
			start++
		}
		end := i + 3
		for end < len(s) && !isURLStop(s[end]) {
			end++
		}
		if start < i && end > i+3 {
			u := s[start:end]
			if p, ok := fileURLPath(u); ok {
				w.addPathAbs(u, p, AccessRead)
			} else {
				w.addHost(u)
			}
		}
		s = s[end:]
	}
}

// hostPart strips user@ and :port from a host spec.
func hostPart(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			return s[1:i]
		}
		return s
	}
	if strings.Count(s, ":") == 1 {
		s, _, _ = strings.Cut(s, ":")
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	return s
}

// scpHost returns HOST of [user@]HOST:path.
func scpHost(s string) (string, bool) {
	if s == "" || s[0] == '/' || s[0] == '.' || s[0] == '~' || s[0] == '-' || isURL(s) {
		return "", false
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", false
	}
	if j := strings.IndexByte(s, '/'); j >= 0 && j < i {
		return "", false
	}
	h := s[:i]
	if k := strings.LastIndexByte(h, '@'); k >= 0 {
		h = h[k+1:]
	}
	if h == "" || len(h) == 1 && i+1 < len(s) && s[i+1] == '\\' {
		return "", false
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h, true
}

// remoteHost records the host of a git/scp-style remote.
func (w *walker) remoteHost(s string) {
	if isURL(s) {
		return // scanURLs saw it
	}
	if h, ok := scpHost(s); ok {
		w.addHost(h)
	}
}

// urlBase is the file name a download of u is saved under.
func urlBase(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return "index.html"
	}
	b := path.Base(u[i:])
	if b == "/" || b == "." || b == "" {
		return "index.html"
	}
	return b
}
