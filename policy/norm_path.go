package policy

// Path canonicalisers. Two normal forms exist:
//
//   - ExpandPath is the exact form: what the operating system would open
//     (~ and $HOME expanded, made absolute, cleaned). Allow rules match it.
//   - FoldPath is the deny-side form: every spelling an attacker could use to
//     reach the same text (percent-encoding, Unicode compatibility forms,
//     backslashes, case) collapses to one string. Deny rules are folded the
//     same way and matched against it, so a rule can only become broader.
//
// Everything here is on the decision hot path: no regexp, ASCII fast paths,
// and no allocation when the input is already in normal form.

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/text/unicode/norm"
)

// ExpandPath turns a path as written in a tool argument into an absolute,
// cleaned, forward-slash path:
//
//   - "~", "~/x", "$HOME", "$HOME/x", "${HOME}", "${HOME}/x", and the
//     Windows spellings "%USERPROFILE%\x" and "%HOME%\x" are rooted at home
//     (when home is empty they are only cleaned and stay relative). The
//     variable names match in any case, so FoldText output ("$home/x")
//     still expands;
//   - "~user/x" is cleaned but otherwise left alone (we do not know other
//     users' homes);
//   - a "file://" URL prefix (any case) is removed together with its
//     authority ("file://localhost/etc/x" → "/etc/x"), the query and
//     fragment are dropped and the path is percent-decoded once, as a URL
//     path would be;
//   - a drive path "C:\x\y" or "C:/x/y" keeps its drive, backslashes become
//     slashes: "C:/x/y";
//   - any other relative path is joined to cwd (itself expanded; an empty or
//     unusable cwd counts as "/"); under a drive cwd ("C:\work") its
//     backslashes become slashes too;
//   - the result is path.Clean'ed. The input is otherwise treated as POSIX:
//     a backslash in a non-drive path is an ordinary file name byte.
//
// An empty raw yields "".
func ExpandPath(raw, cwd, home string) string {
	if raw == "" {
		return ""
	}
	p := raw
	if hasPrefixFold(p, "file://") {
		p = fileURLPath(p[len("file://"):])
	}
	if drive, rest, ok := splitDrive(p); ok {
		return drive + cleanRooted(strings.ReplaceAll(rest, `\`, "/"))
	}
	if rest, ok := homeRest(p); ok {
		if home == "" {
			return path.Clean(p)
		}
		return joinClean(ExpandPath(home, "/", ""), rest)
	}
	if p[0] == '/' || p[0] == '~' {
		return cleanPath(p)
	}
	base := "/"
	if isCleanAbs(cwd) {
		base = cwd
	} else if cwd != "" {
		if b := ExpandPath(cwd, "/", home); isAbsSlash(b) {
			base = b
		}
	}
	return joinClean(base, p)
}

// isAbsSlash reports whether p (slash form) is rooted: "/x" or "C:/x".
func isAbsSlash(p string) bool {
	if p != "" && p[0] == '/' {
		return true
	}
	_, rest, ok := splitDrive(p)
	return ok && rest != "" && rest[0] == '/'
}

// joinClean joins base (absolute, slash form) and rel and cleans the result,
// keeping a drive prefix of base intact.
func joinClean(base, rel string) string {
	if drive, rest, ok := splitDrive(base); ok {
		// Under a Windows working directory, backslashes are separators.
		return drive + cleanRooted(rest+"/"+strings.ReplaceAll(rel, `\`, "/"))
	}
	return path.Clean(base + "/" + rel)
}

// cleanRooted cleans p as if it were rooted at "/".
func cleanRooted(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	return cleanPath(p)
}

// splitDrive splits "C:\x" / "C:/x" / "C:" into "C:" and the rest.
func splitDrive(p string) (drive, rest string, ok bool) {
	if len(p) < 2 || p[1] != ':' || !isASCIILetter(p[0]) {
		return "", "", false
	}
	if len(p) > 2 && p[2] != '/' && p[2] != '\\' {
		return "", "", false
	}
	return p[:2], p[2:], true
}

// homeRest recognises the home-directory prefixes and returns what follows
// them (empty, or starting with '/').
func homeRest(p string) (string, bool) {
	switch {
	case p == "~":
		return "", true
	case strings.HasPrefix(p, "~/"):
		return p[1:], true
	case hasPrefixFold(p, "${HOME}"):
		return sepRest(p[len("${HOME}"):], false)
	case hasPrefixFold(p, "$HOME"):
		return sepRest(p[len("$HOME"):], false)
	case hasPrefixFold(p, "%USERPROFILE%"):
		return sepRest(p[len("%USERPROFILE%"):], true)
	case hasPrefixFold(p, "%HOME%"):
		return sepRest(p[len("%HOME%"):], true)
	}
	return "", false
}

// sepRest accepts rest when it is empty or starts with a separator. Windows
// forms also accept backslashes and convert them.
func sepRest(rest string, windows bool) (string, bool) {
	if rest == "" {
		return "", true
	}
	if rest[0] == '/' {
		if windows {
			rest = strings.ReplaceAll(rest, `\`, "/")
		}
		return rest, true
	}
	if windows && rest[0] == '\\' {
		return strings.ReplaceAll(rest, `\`, "/"), true
	}
	return "", false
}

// fileURLPath returns the path of a file URL with the "file://" removed.
func fileURLPath(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if u == "" || u[0] != '/' {
		// An authority ("localhost", a UNC server): drop it.
		i := strings.IndexByte(u, '/')
		if i < 0 {
			return "/"
		}
		u = u[i:]
	}
	u = percentDecodeOnce(u)
	// file:///C:/x and file:///C|/x name a drive.
	if len(u) >= 3 && u[0] == '/' && isASCIILetter(u[1]) && (u[2] == ':' || u[2] == '|') &&
		(len(u) == 3 || u[3] == '/' || u[3] == '\\') {
		return u[1:2] + ":" + u[3:]
	}
	return u
}

// FoldText returns the deny-side normal form of s: NFKC, percent-decoded to
// a fixpoint (invalid escapes are left as they are), backslashes turned into
// slashes, and lowercased (Unicode aware). The whole pipeline is repeated
// until nothing changes (at most 64 rounds), so FoldText is idempotent for
// every input a real caller produces.
//
// Fast path: ASCII text with no '%' and no '\' is only lowercased, and is
// returned as is (no allocation) when it already is lowercase.
func FoldText(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '%' || c == '\\' {
			return foldSlow(s, false)
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	return strings.ToLower(s)
}

// maxFoldRounds bounds the fold fixpoint loop. Each round only continues
// when a percent-decoding produced new compatibility characters (e.g. an
// encoded fullwidth percent sign), so real inputs settle in two or three.
const maxFoldRounds = 64

// foldSlow runs the full fold pipeline to a fixpoint. For hosts the
// ideographic full stops are mapped to '.', as IDNA does, and backslashes
// are left alone (the host parser rejects them).
func foldSlow(s string, host bool) string {
	for r := 0; r < maxFoldRounds; r++ {
		t := norm.NFKC.String(s)
		if host {
			t = mapIdeographicDots(t)
		}
		t = percentDecode(t)
		if !host && strings.IndexByte(t, '\\') >= 0 {
			t = strings.ReplaceAll(t, `\`, "/")
		}
		t = strings.ToLower(t)
		if t == s {
			return t
		}
		s = t
	}
	return s
}

// mapIdeographicDots maps U+3002 IDEOGRAPHIC FULL STOP (and, via NFKC,
// U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP) to '.'. NFKC already maps U+FF0E.
func mapIdeographicDots(s string) string {
	if !strings.Contains(s, "\u3002") {
		return s
	}
	return strings.ReplaceAll(s, "\u3002", ".")
}

// percentDecode decodes %XX escapes until none is left, in one linear pass:
// each decoded byte is appended to the output and the tail of the output is
// decoded again when it forms a new escape ("%252e" → "%2e" → "."). The
// result contains no valid escape, so decoding it again is a no-op. Invalid
// escapes are kept as written.
func percentDecode(s string) string {
	i := firstEscape(s)
	if i < 0 {
		return s
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:i]...)
	for ; i < len(s); i++ {
		buf = append(buf, s[i])
		for n := len(buf); n >= 3 && buf[n-3] == '%' && isHex(buf[n-2]) && isHex(buf[n-1]); n = len(buf) {
			buf = append(buf[:n-3], unhex(buf[n-2])<<4|unhex(buf[n-1]))
		}
	}
	return string(buf)
}

// percentDecodeOnce decodes each valid %XX escape exactly once, as a URL
// parser would.
func percentDecodeOnce(s string) string {
	i := firstEscape(s)
	if i < 0 {
		return s
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:i]...)
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			buf = append(buf, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		buf = append(buf, s[i])
	}
	return string(buf)
}

// firstEscape returns the index of the first valid %XX escape, or -1.
func firstEscape(s string) int {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '%')
		if i < 0 {
			return -1
		}
		i += off
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			return i
		}
		off = i + 1
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// hasPrefixFold is strings.HasPrefix with ASCII case folding of the prefix.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// FoldPath is FoldText followed by path.Clean, so dot segments that were
// hidden behind encodings collapse after decoding:
// "/srv/notes/%2e%2e/%2e%2e/etc/passwd" → "/etc/passwd". An empty p yields "".
func FoldPath(p string) string {
	if p == "" {
		return ""
	}
	return cleanPath(FoldText(p))
}

// cleanPath is path.Clean with a fast check for the common case of an
// absolute path that is already clean.
func cleanPath(p string) string {
	if isCleanAbs(p) {
		return p
	}
	return path.Clean(p)
}

// isCleanAbs reports whether p is rooted and has no empty, "." or ".."
// segment and no trailing slash, i.e. path.Clean(p) == p.
func isCleanAbs(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		// p[i+1:] starts a segment: it must be non-empty and not . or ..
		j := i + 1
		if j == len(p) || p[j] == '/' {
			return false
		}
		if p[j] == '.' {
			if j+1 == len(p) || p[j+1] == '/' {
				return false
			}
			if p[j+1] == '.' && (j+2 == len(p) || p[j+2] == '/') {
				return false
			}
		}
	}
	return true
}

// maxLinkHops bounds symlink resolution, like the kernel's MAXSYMLINKS.
const maxLinkHops = 40

// ResolveSymlinks resolves the symbolic links along the longest existing
// prefix of the absolute path p and appends the part that does not exist
// yet, so a file about to be created under a symlinked directory resolves to
// its real location. The result is cleaned, in slash form. It costs one
// Lstat per existing component (one in total when the first component does
// not exist).
//
// p is returned unchanged when it is not absolute, when more than 40 links
// are followed, or on any error other than "does not exist" / "not a
// directory" (which end the existing prefix).
func ResolveSymlinks(p string) string {
	if r, ok := resolveFast(p); ok {
		return r
	}
	return resolveWalk(p)
}

// resolvedOnce resolves each distinct path of one call once: a command
// names the same file in several facts (`cp a b && cat b`, a path in two
// arguments), and each resolution is system calls. It remembers the first
// few paths without allocating; paths past those are resolved each time.
// Two facts naming one path get one answer, as they would if the call's
// paths had been resolved an instant apart.
type resolvedOnce struct {
	n    int
	seen [8][2]string
}

func (r *resolvedOnce) resolve(p string) string {
	for i := 0; i < r.n; i++ {
		if r.seen[i][0] == p {
			return r.seen[i][1]
		}
	}
	out := ResolveSymlinks(p)
	if r.n < len(r.seen) {
		r.seen[r.n] = [2]string{p, out}
		r.n++
	}
	return out
}

// resolveWalk is the portable resolution: one Lstat per component.
func resolveWalk(p string) string {
	vol := filepath.VolumeName(p)
	rest := p[len(vol):]
	if rest == "" || !isSep(rest[0]) {
		return p
	}
	resolved := vol + "/" // always ends without a trailing slash except at the root
	remaining := rest
	hops := 0
	for {
		// Pop the next component.
		for remaining != "" && isSep(remaining[0]) {
			remaining = remaining[1:]
		}
		if remaining == "" {
			break
		}
		end := 0
		for end < len(remaining) && !isSep(remaining[end]) {
			end++
		}
		comp := remaining[:end]
		remaining = remaining[end:]
		switch comp {
		case ".":
			continue
		case "..":
			resolved = parentDir(vol, resolved)
			continue
		}
		next := resolved + comp
		if !strings.HasSuffix(resolved, "/") {
			next = resolved + "/" + comp
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return cleanVol(vol, next[len(vol):]+filepath.ToSlash(remaining))
			}
			return p
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		hops++
		if hops > maxLinkHops {
			return p
		}
		target, err := os.Readlink(next)
		if err != nil || target == "" {
			return p
		}
		target = filepath.ToSlash(target)
		if tv := filepath.VolumeName(target); tv != "" {
			vol = tv
			resolved = vol + "/"
			remaining = target[len(tv):] + "/" + remaining
		} else if target[0] == '/' {
			resolved = vol + "/"
			remaining = target + "/" + remaining
		} else {
			remaining = target + "/" + remaining
		}
	}
	return cleanVol(vol, resolved[len(vol):])
}

// parentDir returns the parent of resolved without leaving the volume root.
func parentDir(vol, resolved string) string {
	r := resolved[len(vol):]
	i := strings.LastIndexByte(r, '/')
	if i <= 0 {
		return vol + "/"
	}
	return vol + r[:i]
}

// cleanVol cleans the rooted slash path rest and puts vol back in front.
func cleanVol(vol, rest string) string {
	return vol + cleanRooted(filepath.ToSlash(rest))
}

func isSep(c byte) bool {
	return c == '/' || c == filepath.Separator
}
