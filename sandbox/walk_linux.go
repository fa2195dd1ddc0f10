package sandbox

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/policy"
	"golang.org/x/sys/unix"
)

// level is how much of a tree the child gets.
type level uint8

const (
	levelNone level = iota
	levelRO         // read and execute
	levelRW         // everything the ABI handles
)

func (l level) String() string {
	return [...]string{"none", "ro", "rw"}[l]
}

// grant is one rule the walk decided on. dirOnly grants a directory's
// own rights (list, create, remove) but no file rights: it holds an entry
// the policy denies, so its clean children are granted one by one.
type grant struct {
	path    string
	level   level
	dir     bool
	dirOnly bool
}

// walker carves the policy's denied paths out of the allowed roots.
// Landlock can only allow, so an allowed tree is walked and a directory
// with nothing denied below it becomes one rule; a directory that holds a
// denied entry is split into its children.
type walker struct {
	deny    policy.KernelPathRules
	budget  int
	seen    int
	roots   map[string]bool // every walked root: another root's walk leaves it to its own
	grants  []grant
	gaps    []string
	mixed   []string
	unread  int
	skipped []string // denied entries left out, for tests and the count
	over    bool
	buf     []byte // getdents buffer
}

// levelOf is the level the policy leaves path at, at most max. dirFold
// is the folded path of its directory ("": fold path whole).
func (w *walker) levelOf(dirFold, name, path string, max level) level {
	if max == levelNone {
		return levelNone
	}
	var read, write bool
	if dirFold == "" {
		read, write = w.deny.DeniedAccess(path)
	} else {
		read, write = w.deny.DeniedEntry(dirFold, name, path)
	}
	switch {
	case read:
		return levelNone
	case write && max == levelRW:
		return levelRO
	}
	return max
}

// root walks one allowed tree with its own budget.
func (w *walker) root(path string, max level) {
	w.seen, w.over = 0, false
	lv := w.levelOf("", "", path, max)
	if lv == levelNone {
		w.skipped = append(w.skipped, path)
		return
	}
	if w.dir(path, lv) {
		w.grants = append(w.grants, grant{path: path, level: lv, dir: true})
	}
	if w.over {
		w.gaps = append(w.gaps, fmt.Sprintf("%s holds more than %d entries: what the walk did not reach is not granted", path, w.budget))
	}
}

// dir reports whether everything beneath path is at level lv (the caller
// grants it whole); otherwise it has emitted the rules for what beneath
// it may be granted.
func (w *walker) dir(path string, lv level) bool {
	entries, err := w.readDir(path)
	if err != nil {
		w.unread++
		return false
	}
	if w.seen+len(entries) > w.budget {
		w.over = true
		return false
	}
	w.seen += len(entries)
	dirFold := policy.FoldPath(path)
	uniform := true
	var keep []grant
	for _, e := range entries {
		p := path + "/" + e.name
		if e.typ == unix.DT_LNK {
			// A symlink holds nothing: Landlock judges what it points to,
			// where that lives.
			continue
		}
		if w.roots[p] {
			uniform = false // granted by its own walk, at its own level
			continue
		}
		clv := w.levelOf(dirFold, e.name, p, lv)
		if clv == levelNone {
			w.skipped = append(w.skipped, p)
			uniform = false
			continue
		}
		isDir := e.typ == unix.DT_DIR
		if isDir && !w.dir(p, clv) {
			uniform = false
			continue
		}
		if clv != lv {
			uniform = false
		}
		keep = append(keep, grant{path: p, level: clv, dir: isDir})
	}
	if uniform {
		return true
	}
	w.mixed = append(w.mixed, path)
	w.grants = append(w.grants, grant{path: path, level: lv, dir: true, dirOnly: true})
	w.grants = append(w.grants, keep...)
	return false
}

type dirent struct {
	name string
	typ  uint8
}

// readDir lists a directory with getdents64 (names and types, no stat
// and no poller registration: the walk lists thousands of them). It never
// follows a symlink: the walk decided the path was a directory.
func (w *walker) readDir(path string) ([]dirent, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if w.buf == nil {
		w.buf = make([]byte, 64<<10)
	}
	var out []dirent
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		for b := w.buf[:n]; len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return nil, fmt.Errorf("getdents %s: bad record", path)
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirent{name: string(name), typ: typ}
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if err := unix.Lstat(path+"/"+e.name, &st); err != nil {
					continue // gone since
				}
				switch st.Mode & unix.S_IFMT {
				case unix.S_IFDIR:
					e.typ = unix.DT_DIR
				case unix.S_IFLNK:
					e.typ = unix.DT_LNK
				default:
					e.typ = unix.DT_REG
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// finish adds the gaps the walk found.
func (w *walker) finish(home string) {
	if len(w.mixed) > 0 {
		show := make([]string, 0, 3)
		for _, m := range w.mixed {
			if len(show) == 3 {
				show = append(show, "…")
				break
			}
			show = append(show, tildePath(m, home))
		}
		w.gaps = append(w.gaps, fmt.Sprintf("%d directories hold a denied entry and are granted entry by entry: a file created in one of them (%s) cannot be read or written, and the names of denied entries can be listed",
			len(w.mixed), strings.Join(show, ", ")))
	}
	if w.unread > 0 {
		w.gaps = append(w.gaps, fmt.Sprintf("%d directories could not be listed and are not granted", w.unread))
	}
}

func tildePath(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}
