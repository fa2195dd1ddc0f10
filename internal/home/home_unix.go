//go:build unix

package home

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// checker holds who "the user" is and where the account databases are
// (tests point them at fixtures).
type checker struct {
	uid    int
	passwd string
	group  string
	seen   map[string]fs.FileInfo // lstat results of one check: resolve walks down, parents up the same path
}

func defaultChecker() checker {
	return checker{uid: os.Geteuid(), passwd: "/etc/passwd", group: "/etc/group", seen: map[string]fs.FileInfo{}}
}

func (c checker) lstat(p string) (fs.FileInfo, error) {
	if fi, ok := c.seen[p]; ok {
		return fi, nil
	}
	fi, err := os.Lstat(p)
	if err == nil && c.seen != nil {
		c.seen[p] = fi
	}
	return fi, err
}

func check(path string, create bool) error { return defaultChecker().home(path, create) }

func checkFile(path string, fi fs.FileInfo) error { return defaultChecker().file(path, fi) }

// maxLinks bounds the links followed while resolving a home.
const maxLinks = 40

func (c checker) home(path string, create bool) error {
	real, rest, err := c.resolve(path)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		fi, err := c.lstat(real)
		if err != nil {
			return fmt.Errorf("the Airlock home %s: %w", path, err)
		}
		if !fi.IsDir() {
			return &UnsafeError{Path: real, Why: "is not a directory but " + kind(fi),
				Fix: "set AIRLOCK_HOME to a directory of your own"}
		}
		if err := c.owned(real, fi, "the Airlock home"); err != nil {
			return err
		}
		return c.parents(filepath.Dir(real), c.uid)
	}
	// The home does not exist yet: what will hold it must be safe for an
	// entry the user makes.
	if err := c.parents(real, c.uid); err != nil {
		return err
	}
	if !create {
		return nil
	}
	for _, name := range rest {
		if name == ".." {
			return fmt.Errorf("the Airlock home %s: a link on the way leads through a missing directory and then \"..\": set AIRLOCK_HOME to a plain path", path)
		}
		next := filepath.Join(real, name)
		if err := os.Mkdir(next, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create the Airlock home %s: %w", next, err)
		}
		// Whatever is there now — ours, or one another user made first in
		// a sticky directory — must be the user's own directory.
		fi, err := os.Lstat(next)
		if err != nil {
			return fmt.Errorf("create the Airlock home %s: %w", next, err)
		}
		if !fi.IsDir() {
			return &UnsafeError{Path: next, Why: "appeared as " + kind(fi) + " while the home was being created",
				Fix: "remove it and run again, or set AIRLOCK_HOME to a directory of your own"}
		}
		if err := c.owned(next, fi, "the Airlock home"); err != nil {
			return err
		}
		real = next
	}
	return nil
}

// resolve follows path component by component, checking every link it
// meets, and returns the real path of the part that exists and the
// components after it that do not.
func (c checker) resolve(path string) (string, []string, error) {
	parts := split(path)
	cur := "/"
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, p)
		fi, err := c.lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return cur, append([]string{p}, parts...), nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("the Airlock home %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return "", nil, fmt.Errorf("the Airlock home %s: more than %d symbolic links on the way", path, maxLinks)
			}
			uid := ownerOf(fi)
			if uid != c.uid && uid != 0 {
				return "", nil, &UnsafeError{Path: next, Why: "is a symbolic link owned by " + c.who(uid) + ": its owner decides where the home is",
					Fix: "set AIRLOCK_HOME to the real path, or replace the link with one of your own"}
			}
			if err := c.parents(cur, uid); err != nil {
				return "", nil, err
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", nil, fmt.Errorf("the Airlock home %s: %w", path, err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			parts = append(split(target), parts...)
			continue
		}
		if !fi.IsDir() {
			return "", nil, &UnsafeError{Path: next, Why: "is not a directory but " + kind(fi),
				Fix: "set AIRLOCK_HOME to a directory of your own"}
		}
		cur = next
	}
	return cur, nil, nil
}

func split(p string) []string { return strings.Split(filepath.ToSlash(p), "/") }

// parents checks dir and every directory above it, up to /. child is the
// owner of the entry below dir on the way to the home: in a sticky
// directory only that owner (or the directory's, or root) can rename it.
//
// The walk does not stop at the first directory root owns: for root every
// directory is root's, and a writable directory further up still lets its
// writers rename the whole subtree away and move another one in.
func (c checker) parents(dir string, child int) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := c.lstat(d)
		if err != nil {
			return fmt.Errorf("check %s, which holds the Airlock home: %w", d, err)
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		if st == nil {
			return nil
		}
		uid := int(st.Uid)
		if uid != c.uid && uid != 0 {
			return &UnsafeError{Path: d, Why: "holds the Airlock home and is owned by " + c.who(uid) + ", who can rename the home away and put their own in its place",
				Fix: "move the home to a directory of your own (AIRLOCK_HOME), or, if the directory is yours, " + chown(c.who(c.uid), d)}
		}
		if w := c.writers(st); w != "" {
			sticky := st.Mode&syscall.S_ISVTX != 0
			if !sticky || (child != c.uid && child != 0) {
				return &UnsafeError{Path: d, Why: "holds the Airlock home and is writable by " + w + " (mode " + mode(fi, st) + "): they can rename the home away and put their own in its place",
					Fix: "chmod go-w " + quote(d) + " (or chmod +t if others must create files there), or move the home to a directory of your own"}
			}
		}
		if d == filepath.Dir(d) {
			return nil
		}
		child = uid
	}
}

// owned checks that the directory or file at path (fi from Lstat or Fstat)
// is the user's and that nobody else can write it.
func (c checker) owned(path string, fi fs.FileInfo, what string) error {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return nil
	}
	if uid := int(st.Uid); uid != c.uid {
		return &UnsafeError{Path: path, Why: "is " + what + " and is owned by " + c.who(uid) + ", not by you (" + c.who(c.uid) + "): its owner can change what Airlock does",
			Fix: "if it is yours, " + chown(c.who(c.uid), path) + "; otherwise set AIRLOCK_HOME to a directory of your own"}
	}
	if w := c.writers(st); w != "" {
		return &UnsafeError{Path: path, Why: "is " + what + " and is writable by " + w + " (mode " + mode(fi, st) + ")",
			Fix: "chmod go-w " + quote(path)}
	}
	return nil
}

func (c checker) file(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeError{Path: path, Why: "is a symbolic link: Airlock does not follow links among its own files",
			Fix: "remove the link (rm " + quote(path) + ")"}
	}
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is not a regular file but " + kind(fi),
			Fix: "remove it (rm " + quote(path) + ")"}
	}
	if err := c.owned(path, fi, "Airlock state"); err != nil {
		return err
	}
	return nil
}

// writers says who other than the owner can write (empty: nobody). Group
// write is allowed for the user's own private group.
func (c checker) writers(st *syscall.Stat_t) string {
	switch {
	case st.Mode&0o002 != 0:
		return "every user"
	case st.Mode&0o020 != 0 && !c.privateGroup(int(st.Gid)):
		return "group " + groupName(int(st.Gid))
	}
	return ""
}

// privateGroup: gid is the user's primary group, named after the user,
// with no other member and no other account's primary group.
func (c checker) privateGroup(gid int) bool {
	var name string
	primary := -1
	others := false
	scan(c.passwd, func(f []string) {
		if len(f) < 4 {
			return
		}
		uid, err1 := strconv.Atoi(f[2])
		g, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			return
		}
		if uid == c.uid && primary < 0 {
			name, primary = f[0], g
		} else if uid != c.uid && g == gid {
			others = true
		}
	})
	if primary != gid || name == "" || others {
		return false
	}
	ok := false
	scan(c.group, func(f []string) {
		if len(f) < 4 {
			return
		}
		if g, err := strconv.Atoi(f[2]); err != nil || g != gid {
			return
		}
		ok = f[0] == name
		for _, m := range strings.Split(f[3], ",") {
			if m != "" && m != name {
				ok = false
			}
		}
	})
	return ok
}

// scan calls fn with the colon-separated fields of each line of an
// account database (bounded: these are root's files, but still files).
func scan(path string, fn func([]string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	s := bufio.NewScanner(io.LimitReader(f, 64<<20))
	s.Buffer(make([]byte, 0, 4096), 1<<20)
	for s.Scan() {
		line := s.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fn(strings.Split(line, ":"))
	}
}

func ownerOf(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

func (c checker) who(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username + " (uid " + strconv.Itoa(uid) + ")"
	}
	return "uid " + strconv.Itoa(uid)
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name + " (gid " + strconv.Itoa(gid) + ")"
	}
	return "gid " + strconv.Itoa(gid)
}

func mode(fi fs.FileInfo, st *syscall.Stat_t) string {
	return fmt.Sprintf("%04o, %s", st.Mode&0o7777, fi.Mode())
}

func chown(who, path string) string {
	name, _, _ := strings.Cut(who, " ")
	return "chown " + name + " " + quote(path)
}

func quote(p string) string {
	if strings.ContainsAny(p, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

// kind names what a file is, for a message.
func kind(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a " + m.Type().String() + " file"
}

func sub(homeDir, dir string, create bool) error {
	homeDir, dir = filepath.Clean(homeDir), filepath.Clean(dir)
	rel, err := filepath.Rel(homeDir, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is not inside the Airlock home %s", dir, homeDir)
	}
	if err := check(homeDir, create); err != nil {
		return err
	}
	c := defaultChecker()
	cur := homeDir
	if rel == "." {
		return nil
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, name)
		if create {
			if err := os.Mkdir(cur, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", cur, err)
			}
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return fmt.Errorf("check %s: %w", cur, err)
		}
		if !fi.IsDir() {
			return &UnsafeError{Path: cur, Why: "is " + kind(fi) + " where Airlock keeps a directory of its own: Airlock does not follow links among its own files",
				Fix: "remove it (rm " + quote(cur) + ")"}
		}
		if err := c.owned(cur, fi, "a directory of Airlock's"); err != nil {
			return err
		}
	}
	return nil
}

func checkTrusted(path string, fi fs.FileInfo) error {
	c := defaultChecker()
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is not a regular file but " + kind(fi), Fix: "point AIRLOCK_POLICY at a policy file"}
	}
	if st, _ := fi.Sys().(*syscall.Stat_t); st != nil && st.Uid == 0 && c.uid != 0 {
		if w := c.writers(st); w != "" {
			return &UnsafeError{Path: path, Why: "steers Airlock and is writable by " + w + " (mode " + mode(fi, st) + ")", Fix: "chmod go-w " + quote(path)}
		}
		return nil
	}
	return c.owned(path, fi, "the policy AIRLOCK_POLICY names")
}
