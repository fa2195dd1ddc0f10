package doctor

import (
	"runtime"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/sandbox"
)

func TestDoctorKernelCheck(t *testing.T) {
	has := func(t *testing.T, c Check, want ...string) {
		t.Helper()
		all := c.Detail + "\n" + strings.Join(c.Items, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("missing %q in:\n%s", w, all)
			}
		}
	}
	t.Run("abi7", func(t *testing.T) {
		c := kernelCheck("linux", sandbox.Report{KernelABI: 7, ABI: 7, Rights: []string{"execute", "read_file"},
			Network: "TCP connect and bind refused", Seccomp: true, Scoped: true, Gaps: []string{"UDP is not restricted"}})
		if c.Name != "kernel sandbox" || c.Status != info {
			t.Fatalf("%+v", c)
		}
		has(t, c, "airlock run -- CMD", "airlock-mcp --sandbox", "Landlock ABI 7", "rights: execute read_file",
			"TCP connect only to the egress proxy's port", "seccomp: on", "scoped:",
			"not enforced: port rules carry no address", "not enforced: UDP is not restricted")
	})
	t.Run("abi3", func(t *testing.T) {
		c := kernelCheck("linux", sandbox.Report{KernelABI: 3, ABI: 3, Rights: []string{"execute"},
			Network: "NOT restricted: Landlock network rules need ABI 4 (Linux 6.7)", SeccompWhy: "no filter for riscv64",
			Gaps: []string{"no network rules: TCP connect and bind are open (ABI 4)"}})
		has(t, c, "Landlock ABI 3", "network: NOT restricted", "seccomp: OFF (no filter for riscv64)",
			"not enforced: no network rules")
		if strings.Contains(strings.Join(c.Items, "\n"), "port rules carry no address") {
			t.Errorf("no port rules below ABI 4: %q", c.Items)
		}
	})
	t.Run("none", func(t *testing.T) {
		c := kernelCheck("linux", sandbox.Report{Network: "NOT restricted: Landlock network rules need ABI 4 (Linux 6.7)", Seccomp: true})
		has(t, c, "Landlock: not available", "NOT kernel-enforced", "lsm=")
		if !strings.HasPrefix(c.Brief, "airlock run: NOT sandboxed by Landlock: files and network are open (seccomp, egress proxy)") {
			t.Errorf("one line %q does not lead with what is off", c.Brief)
		}
		if c.Status != info {
			t.Errorf("status %s", c.Status)
		}
	})
	t.Run("darwin", func(t *testing.T) {
		c := kernelCheck("darwin", sandbox.Report{})
		has(t, c, "Linux-only", "darwin")
	})
	t.Run("darwin seatbelt", func(t *testing.T) {
		c := kernelCheck("darwin", sandbox.Report{Seatbelt: true, Egress: true, Network: "TCP connect only to the egress proxy on loopback", Gaps: []string{"a file rule cannot ask"}})
		has(t, c, "Seatbelt", "sandbox-exec", "not enforced: a file rule cannot ask", "loopback")
		if c.Brief != "airlock run: sandboxed (Seatbelt, egress proxy) — 1 not enforced: airlock doctor --verbose" {
			t.Errorf("one line %q", c.Brief)
		}
	})
	t.Run("probe", func(t *testing.T) {
		// the check doctor runs is the launcher's own probe
		c, r := checkKernel(), sandbox.Probe()
		if runtime.GOOS == "linux" && r.ABI > 0 {
			has(t, c, r.Rights...)
		}
		for _, g := range r.Gaps {
			if runtime.GOOS == "linux" {
				has(t, c, "not enforced: "+g)
			}
		}
	})
}
