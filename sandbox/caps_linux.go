package sandbox

// Capabilities. A command started by root would keep every capability of
// root: set the hostname and the clock, change network links, make device
// nodes, read any file whatever its mode. The restricted thread empties
// its bounding set, its inheritable set and its ambient set before the
// command is started, so the execve that follows leaves the command no
// capability at all, uid 0 or not (no policy field grants any back). An
// unprivileged process holds none and, under no_new_privs, can gain none
// from a setuid or file-capability program; its bounding set cannot be
// changed without CAP_SETPCAP and does not need to be.

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// capsState is what this process holds, read once by Prepare.
type capsState struct {
	held    bool // any capability in the effective or permitted set
	setpcap bool // may drop from the bounding set
}

func readCaps() capsState {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return capsState{}
	}
	s := capsState{held: data[0].Effective|data[1].Effective|data[0].Permitted|data[1].Permitted != 0}
	s.setpcap = data[0].Effective&(1<<unix.CAP_SETPCAP) != 0
	return s
}

// lastCap is the kernel's highest capability number.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// capsLine is the banner's line on capabilities.
func capsLine(c capsState) (line, gap string) {
	switch {
	case !c.held:
		return "none held, and none can be gained (no_new_privs)", ""
	case c.setpcap:
		return "all dropped (bounding, inheritable and ambient sets emptied): a root command has none", ""
	}
	return "NOT dropped: this process holds capabilities but not CAP_SETPCAP",
		"the command keeps the capabilities of the bounding set (this process lacks CAP_SETPCAP to drop them)"
}

// dropCapabilities empties the calling thread's ambient, inheritable and
// (with CAP_SETPCAP) bounding sets: the execve that follows grants none.
func dropCapabilities(c capsState) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	if !c.held {
		return nil
	}
	if c.setpcap {
		for n := 0; n <= lastCap(); n++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(n), 0, 0, 0); err != nil && err != unix.EINVAL {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", n, err)
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
