package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

// TestReportSummary: the one line airlock run prints names what is in
// force, what is off, and how many gaps; the record names every gap and
// counts them as the line does.
func TestReportSummary(t *testing.T) {
	gaps := []string{"UDP is not restricted (DNS needs it)", "a hard link to a secret inside an allowed tree is readable"}
	cases := []struct {
		name string
		r    Report
		want string
	}{
		{"everything on", Report{KernelABI: 7, ABI: 7, Seccomp: true, Egress: true, Gaps: gaps},
			"sandboxed (Landlock ABI 7, seccomp, egress proxy) — 2 not enforced"},
		// without network rules the proxy is not enforced: a program
		// that ignores HTTPS_PROXY connects anywhere
		{"an older ABI than the kernel's", Report{KernelABI: 7, ABI: 3, Seccomp: true, Egress: true, Gaps: gaps},
			"sandboxed (Landlock ABI 3 of the kernel's 7, seccomp, egress proxy but TCP open) — 2 not enforced"},
		{"ABI 4: network rules", Report{KernelABI: 4, ABI: 4, Seccomp: true, Egress: true, Gaps: gaps},
			"sandboxed (Landlock ABI 4, seccomp, egress proxy) — 2 not enforced"},
		{"seccomp off", Report{KernelABI: 6, ABI: 6, SeccompWhy: "no filter for riscv64", Egress: true, Gaps: gaps},
			"sandboxed (Landlock ABI 6, seccomp OFF, egress proxy) — 2 not enforced"},
		{"no proxy, no TCP", Report{KernelABI: 5, ABI: 5, Seccomp: true, Network: networkRefused, Gaps: gaps},
			"sandboxed (Landlock ABI 5, seccomp, no TCP connect) — 2 not enforced"},
		{"no proxy, TCP open", Report{KernelABI: 3, ABI: 3, Seccomp: true, Network: "NOT restricted: Landlock network rules need ABI 4 (Linux 6.7)", Gaps: gaps},
			"sandboxed (Landlock ABI 3, seccomp, no egress proxy) — 2 not enforced"},
		{"no Landlock", Report{Seccomp: true, Egress: true, Gaps: gaps},
			"NOT sandboxed by Landlock: files and network are open (seccomp, egress proxy) — 2 not enforced"},
		{"no gaps", Report{KernelABI: 9, ABI: 9, Seccomp: true, Egress: true},
			"sandboxed (Landlock ABI 9, seccomp, egress proxy)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.Summary(); got != c.want {
				t.Errorf("Summary\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(c.r.Summary(), "\n") {
				t.Errorf("Summary is more than one line")
			}
			d := c.r.AuditDetail()
			for _, w := range append([]string{fmt.Sprintf("not_enforced=%d ", len(c.r.Gaps)), fmt.Sprintf("enforced=%q", c.r.Enforced())}, c.r.Gaps...) {
				if !strings.Contains(d, w) {
					t.Errorf("record detail lacks %q: %s", w, d)
				}
			}
			details := c.r.Details()
			for _, g := range c.r.Gaps {
				if !strings.Contains(details, "    - "+g+"\n") {
					t.Errorf("Details lacks the gap %q:\n%s", g, details)
				}
			}
		})
	}
}

// TestReportDetailsEscapeNames: a gap or a root names directories a
// repository chose; their control characters reach the terminal escaped,
// never as sequences that clear the screen or retitle the window.
func TestReportDetailsEscapeNames(t *testing.T) {
	evil := "~/proj/ev\x1b[2J\x1b]0;pwn\x07il\u202e"
	r := Report{KernelABI: 7, ABI: 7, Seccomp: true, Egress: true, Roots: []string{evil + " (rw)"},
		Gaps: []string{"1 directories hold a denied entry and are granted entry by entry: a file created in one of them (" + evil + ") cannot be read or written"}}
	for name, out := range map[string]string{"Details": r.Details(), "Banner": r.Banner(), "Summary": r.Summary()} {
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s carries raw control characters: %q", name, out)
		}
	}
	if !strings.Contains(r.Details(), "ev\\x1b[2J") {
		t.Errorf("the name is not shown escaped: %q", r.Details())
	}
}
