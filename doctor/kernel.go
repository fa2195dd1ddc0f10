package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentairlock/airlock/sandbox"
	"github.com/agentairlock/airlock/scan"
)

func checkFeed(home string) Check {
	f, err := scan.LoadFeed(filepath.Join(home, scan.FeedFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Check{Name: "indicators", Status: OK, Detail: fmt.Sprintf("the %d bundled indicators (no feed installed)", scan.BundledIndicators())}
	case err != nil:
		return Check{Name: "indicators", Status: fail, Detail: err.Error(),
			Fix: "airlock-mcp refuses to start while feed.json does not load: install a good feed with airlock update, or remove the file"}
	}
	st := f.Stats()
	return Check{Name: "indicators", Status: OK,
		Detail: fmt.Sprintf("feed version %d (signer %s) on top of the %d bundled indicators: %d new, %d raised",
			f.Version, f.Signer, scan.BundledIndicators(), st.New, st.Raised)}
}

// checkKernel says what `airlock run` would enforce on this machine and
// what not, from the same probe the launcher uses (sandbox.Probe), so the
// doctor and the banner cannot disagree.
func checkKernel() Check { return kernelCheck(runtime.GOOS, sandbox.Probe()) }

func kernelCheck(goos string, r sandbox.Report) Check {
	c := Check{Name: "kernel sandbox", Status: info}
	if goos == "darwin" && r.Seatbelt {
		return seatbeltCheck(c, r)
	}
	if goos != "linux" {
		c.Detail = "the kernel sandbox is Linux-only: on " + goos + " `airlock run` starts nothing and commands Airlock launches run unconfined"
		return c
	}
	switch {
	case r.ABI == 0:
		c.Items = append(c.Items, "Landlock: not available on this kernel (Linux 5.13 or newer built with CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= boot parameter): files and network are NOT kernel-enforced")
	case r.KernelABI != r.ABI:
		c.Items = append(c.Items, fmt.Sprintf("Landlock ABI %d (the kernel offers %d; Airlock knows up to %d)", r.ABI, r.KernelABI, r.ABI))
	default:
		c.Items = append(c.Items, fmt.Sprintf("Landlock ABI %d", r.ABI))
	}
	if len(r.Rights) > 0 {
		c.Items = append(c.Items, "files: the workspace and temp read-write, home and /etc read-only minus what the policy forbids; rights: "+strings.Join(r.Rights, " "))
	}
	if r.ABI >= 4 {
		c.Items = append(c.Items, "network: TCP connect only to the egress proxy's port (with --no-egress-proxy: "+r.Network+")")
	} else {
		c.Items = append(c.Items, "network: "+r.Network)
	}
	if r.Seccomp {
		c.Items = append(c.Items, "seccomp: on ("+sandbox.SeccompRefuses+")")
	} else {
		c.Items = append(c.Items, "seccomp: OFF ("+r.SeccompWhy+")")
	}
	if r.Scoped {
		c.Items = append(c.Items, "scoped: signals and abstract UNIX sockets stay inside the sandbox")
	}
	gaps := r.Gaps
	if r.ABI >= 4 {
		// Probe reports no proxy; `airlock run` starts one by default.
		gaps = append([]string{"port rules carry no address: the egress proxy's TCP port is open on every host, not only the proxy"}, gaps...)
	}
	for _, g := range gaps {
		c.Items = append(c.Items, "not enforced: "+g)
	}
	c.Items = append(c.Items, "airlock run -v lists these for the command it starts, with what its walk of the workspace and home finds (a tree over the walk budget, directories granted entry by entry)")
	// what airlock run starts by default: the egress proxy too
	run := r
	run.Egress, run.Gaps = true, gaps
	// the same line airlock run prints (its walk may find gaps more)
	c.Detail = "what `airlock run -- CMD` and airlock-mcp --sandbox enforce here: " + run.Summary()
	c.Brief = "airlock run: " + run.Summary()
	if len(gaps) > 0 {
		c.Brief += ": airlock doctor --verbose"
	}
	return c
}

// seatbeltCheck is the macOS sandbox's check: Seatbelt through
// sandbox-exec, with the same summary and gap list airlock run prints.
func seatbeltCheck(c Check, r sandbox.Report) Check {
	c.Items = append(c.Items,
		"Seatbelt: sandbox-exec with a profile made from the policy (deny by default)",
		"files: the workspace and temp read-write, home and /etc read-only minus what the policy forbids",
		"network: "+r.Network)
	for _, g := range r.Gaps {
		c.Items = append(c.Items, "not enforced: "+g)
	}
	c.Detail = "what `airlock run -- CMD` and airlock-mcp --sandbox enforce here: " + r.Summary()
	c.Brief = "airlock run: " + r.Summary()
	if len(r.Gaps) > 0 {
		c.Brief += ": airlock doctor --verbose"
	}
	return c
}
