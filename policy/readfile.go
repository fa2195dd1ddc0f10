package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Every policy file is read to a bound, as a regular file, opened without
// blocking: the hook reads them on every call, so a FIFO would hang it, a
// device such as /dev/zero would read until memory runs out, and a huge
// file would cost seconds per call and run past the agent's hook timeout,
// which lets the call through. Parsing and compiling dense rules costs
// about 0.5 s per MiB here (BenchmarkLoadOverlayAtBound).
const (
	// maxPolicyBytes bounds the user's policy (policy.yaml in the home, or
	// AIRLOCK_POLICY). It grows by a few hundred bytes per grant `airlock
	// allow` writes: 1 MiB holds thousands of grants, and even a file
	// that full loads far inside the hook's deadline.
	maxPolicyBytes = 1 << 20
	// maxOverlayBytes bounds a repository's overlay, which nobody has
	// read: it only tightens, so a few rules are all it needs. Airlock's
	// whole built-in forbid list is 16 KiB; 256 KiB is sixteen times that,
	// and the most such a file can cost is about 130 ms per call.
	maxOverlayBytes = 256 << 10
)

// ErrOverlayOutside is wrapped by the error for a repository policy that
// resolves (through a link) to a file outside its repository.
var ErrOverlayOutside = errors.New("resolves outside the repository")

// ErrOverlayRefused is wrapped by the error for every repository policy
// that is refused; it may wrap fs.ErrNotExist too (a dangling link), and
// a refused overlay is still not a missing one.
var ErrOverlayRefused = errors.New("repository policy refused")

// ErrTooLarge is wrapped by the error for a policy file past its bound.
var ErrTooLarge = errors.New("too large")

// readPolicyFile reads the user's policy file at path (links followed:
// they are the user's own) to MaxPolicyBytes. A missing file is an error
// wrapping fs.ErrNotExist.
func readPolicyFile(path string, open func(string, int, os.FileMode) (*os.File, error)) ([]byte, error) {
	data, err := readBounded(path, func() (*os.File, error) { return open(path, os.O_RDONLY, 0) }, maxPolicyBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.Is(err, regular.ErrNotRegular):
		return nil, fmt.Errorf("policy %s is not a regular file: Airlock refuses it and blocks every call; make it a regular YAML file, or remove it to use the bundled profile: %w", path, err)
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("policy %s is larger than %d KiB, too large to read on every call: shorten it (remove expired grants with `airlock grants`), or remove it to use the bundled profile: %w", path, maxPolicyBytes>>10, err)
	case err != nil:
		return nil, fmt.Errorf("read policy %s: %w", path, err)
	}
	return data, nil
}

// readOverlayFile reads a repository policy found at file in a repository
// whose root is root. The file must resolve, links followed, to a regular
// file inside the root (a link to ~/.ssh/id_rsa or /proc/self/fd/1 is
// refused, never read), of at most MaxOverlayBytes. A missing file (no
// entry at all) is an error wrapping fs.ErrNotExist and not
// ErrOverlayRefused; a dangling link is refused like any other link that
// does not lead inside.
func readOverlayFile(file, root string) ([]byte, error) {
	if _, err := os.Lstat(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, overlayErr(file, "cannot be read", "fix its permissions, or remove it", err)
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil, overlayErr(file, "is a link that leads nowhere readable", "replace it with the file itself, or remove it", err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, overlayErr(file, "is in a repository whose root cannot be resolved", "check "+root, err)
	}
	if !within(real, realRoot) {
		return nil, overlayErr(file, fmt.Sprintf("is a link to %q, outside the repository %s", real, textsafe.Path(realRoot)),
			"a repository's policy must be a file inside it: replace the link with the file itself, or remove it",
			ErrOverlayOutside)
	}
	// real has no link left in it; openOverlay keeps it so (a directory
	// swapped for a link since is refused where the kernel can enforce
	// it, and the last component is never followed)
	data, err := readBounded(real, func() (*os.File, error) { return openOverlay(realRoot, real) }, maxOverlayBytes)
	switch {
	case errors.Is(err, regular.ErrNotRegular):
		return nil, overlayErr(file, "is not a regular file", "make it a regular YAML file, or remove it", err)
	case errors.Is(err, ErrOverlayOutside):
		return nil, overlayErr(file, "led outside the repository "+textsafe.Path(realRoot)+" as it was opened (a directory was swapped for a link)",
			"a repository's policy must be a file inside it: remove the link", err)
	case errors.Is(err, ErrTooLarge):
		return nil, overlayErr(file, fmt.Sprintf("is larger than %d KiB", maxOverlayBytes>>10),
			"a repository policy only tightens and needs a few rules: shorten it, or remove it", err)
	case err != nil:
		return nil, overlayErr(file, "cannot be read", "fix its permissions, or remove it", err)
	}
	return data, nil
}

// overlayErr is a refused repository policy: the file, the cause, that
// every call is blocked, and the fix.
func overlayErr(file, cause, fix string, err error) error {
	return &overlayError{
		msg: fmt.Sprintf("repository policy %s %s: Airlock refuses it and blocks every call in this repository; %s (%s)",
			textsafe.Path(file), cause, fix, textsafe.EscapeLoose(err.Error())),
		err: err,
	}
}

// overlayError is a refused overlay: its message names the file with no
// raw control character in it (the wrapped error may carry the path as
// the repository spelled it), and it wraps ErrOverlayRefused and the cause.
type overlayError struct {
	msg string
	err error
}

func (e *overlayError) Error() string   { return e.msg }
func (e *overlayError) Unwrap() []error { return []error{ErrOverlayRefused, e.err} }

// readBounded reads the file at path, opened by open (which refuses what
// is not a regular file without blocking on it), of at most max bytes.
func readBounded(path string, open func() (*os.File, error), max int64) ([]byte, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(4096)
	if st, err := f.Stat(); err == nil {
		if st.Size() > max {
			return nil, fmt.Errorf("%s: %w: %d bytes, the bound is %d", path, ErrTooLarge, st.Size(), max)
		}
		size = st.Size() + 1 // +1 sees a file that grew
	}
	var buf bytes.Buffer
	buf.Grow(int(min(size, max+1)))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

// within says path is root or below it (both clean and absolute).
func within(path, root string) bool {
	if path == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}
