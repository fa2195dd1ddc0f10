package sandbox

// Metadata of denied files. Landlock does not mediate chmod, chown,
// utimes or extended attributes, and seccomp cannot see the path they
// name: a command could make ~/.ssh/id_rsa world-readable for whoever
// reads it next outside the sandbox. Where the kernel lets this user make
// a user namespace, the launcher child starts in a user and mount
// namespace of its own (the user mapped to itself), makes every denied
// entry the walk left out a read-only bind mount of itself, and only then
// drops its capabilities, restricts itself and execs: each of those calls
// on a denied entry, or anything beneath it, fails EROFS, and the command
// can neither unmount (seccomp refuses umount2, and it holds no
// capability in its namespace) nor rename or remove a mount point
// (EBUSY). Reads stay refused by Landlock, as before. A hard link to a
// denied file made earlier outside the denied entries is another path to
// the same inode, on a writable mount: the banner lists it.
//
// Where the kernel does not allow it (user namespaces off, or this
// process already inside a namespace that may not nest), the run goes
// without, and the banner says metadata is not mediated; the paranoid
// profile refuses the metadata syscalls for the whole run either way.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// bindsChildFD is where the launcher child finds the list of entries to
// make read-only (ExtraFiles[1]).
const bindsChildFD = 4

// maxROBinds caps the read-only mounts of one launch; beyond it the rest
// are listed as a gap.
const maxROBinds = 2000

var userns struct {
	once sync.Once
	ok   bool
	why  string
}

// usernsAvailable says whether a child can start in a user and mount
// namespace of its own. The sysctls, LSMs, container seccomp profiles and
// nesting limits that decide it are many; the attempt is one: a child is
// cloned into the namespaces and execs a path that does not exist. An
// exec that fails ENOENT was reached, so the clone and the ID maps worked;
// any other error is the namespace refused. (Not this binary: a binary
// without MaybeChild, a test binary, would run itself again.) AppArmor's
// restriction lets an unprivileged user make the namespace but gives it
// no capability, so the mounts would fail: its sysctl is read too.
func usernsAvailable() (bool, string) {
	userns.once.Do(func() {
		if os.Geteuid() != 0 {
			if b, err := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); err == nil && strings.TrimSpace(string(b)) == "1" {
				userns.why = "kernel.apparmor_restrict_unprivileged_userns is 1"
				return
			}
		}
		cmd := exec.Command("/nonexistent/airlock-userns-probe")
		cmd.SysProcAttr = usernsAttr()
		err := cmd.Run()
		if errors.Is(err, fs.ErrNotExist) {
			userns.ok = true
			return
		}
		if err == nil {
			err = errors.New("the probe ran") // not possible: the path does not exist
		}
		userns.why = err.Error()
	})
	return userns.ok, userns.why
}

// usernsAttr starts a child in a new user and mount namespace, this
// process's user and group mapped to themselves. A user other than root
// would lose at the launcher child's own execve the capabilities the new
// namespace gives: the two it needs there (mount, and emptying its
// bounding set) are passed as ambient capabilities, which the launcher
// child drops with the rest before it execs the command.
func usernsAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP},
		Cloneflags:                 unix.CLONE_NEWUSER | unix.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
}

// bindsFile is the list of entries to make read-only, for the child.
func bindsFile(paths []string) (*os.File, error) {
	b, err := json.Marshal(paths)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("airlock-ro-binds", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "airlock-ro-binds")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readOnlyBinds makes every path in the list at fd a read-only bind
// mount of itself, in this process's own mount namespace, which it first
// cuts off from the host's (private propagation). A path gone since the
// walk is skipped; any other failure stops the launch.
func readOnlyBinds(fd int) error {
	f := os.NewFile(uintptr(fd), "airlock-ro-binds")
	defer f.Close()
	var paths []string
	if err := json.NewDecoder(f).Decode(&paths); err != nil {
		return fmt.Errorf("read the denied entries: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mount namespace private: %w", err)
	}
	for _, p := range paths {
		if err := readOnlyBind(p); err != nil {
			return err
		}
	}
	return nil
}

func readOnlyBind(path string) error {
	// by descriptor, never following a symlink swapped in since the walk
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil // a symlink holds nothing; Landlock judges its target
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return fmt.Errorf("statfs %s: %w", path, err)
	}
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount(proc, proc, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	// the remount keeps the flags the mount had (a user namespace may
	// not clear nosuid, nodev, noexec or the atime ones)
	keep := uintptr(sfs.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	// the new mount is what the path names now: open it again
	mfd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(mfd)
	mproc := "/proc/self/fd/" + strconv.Itoa(mfd)
	if err := unix.Mount("", mproc, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|keep, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}
