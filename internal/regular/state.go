package regular

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/agentairlock/airlock/internal/home"
)

// OpenState opens one of Airlock's own files in its home: without
// following a link (a link named audit.jsonl would have the hook append to,
// and chmod, whatever it points at), without blocking on a FIFO, and only
// when it is a regular file of the user's that nobody else can write
// (internal/home.File). The home itself is checked once per process by
// internal/home.Check, which makes its path one nobody else can swap.
func OpenState(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag|nonBlock, perm)
	if err != nil {
		if isLinkErr(path, err) {
			return nil, notRegular{&home.UnsafeError{Path: path, Why: "is a symbolic link: Airlock does not follow links among its own files",
				Fix: "remove the link (rm " + path + ")"}}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s): remove it", path, ErrNotRegular, st.Mode().Type())
	}
	if err := home.File(path, st); err != nil {
		f.Close()
		return nil, err
	}
	// Writing through a second name (a hard link made while the home was
	// writable) would write whatever file that is. Reads are spared: a
	// key is made by link-then-unlink, and a reader may see it between.
	if n := links(st); n > 1 && flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		f.Close()
		return nil, &home.UnsafeError{Path: path, Why: fmt.Sprintf("has %d hard links: another name for it may be a file Airlock must not write", n),
			Fix: "replace it with a copy (cp " + path + " " + path + ".copy && mv " + path + ".copy " + path + ")"}
	}
	return f, nil
}

// ReadState reads a whole state file (OpenState's rules) of at most max
// bytes; a longer one is an error.
func ReadState(path string, max int64) ([]byte, error) {
	return readBounded(path, max, OpenState)
}

// ReadAll reads at most n bytes from f, sized by its Stat.
func ReadAll(f *os.File, n int64) ([]byte, error) {
	size := int64(512)
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		size = min(st.Size()+1, n) // +1 sees a file that grew
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := buf.ReadFrom(io.LimitReader(f, n)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// notRegular is a refusal (home.ErrUnsafe) of something that is also not a
// regular file (ErrNotRegular): readers that report a FIFO or a device in
// place of a log segment report a link the same way.
type notRegular struct{ *home.UnsafeError }

func (e notRegular) Unwrap() []error { return []error{e.UnsafeError, ErrNotRegular} }
