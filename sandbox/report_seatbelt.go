package sandbox

import (
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// The report's lines for the macOS backend: the same banner, summary,
// gap list and audit detail as Linux's, naming Seatbelt where Linux names
// the Landlock ABI and seccomp.

func (r Report) seatbeltEnforced() string {
	network := "no TCP connect"
	switch {
	case r.Egress:
		network = "egress proxy"
	case strings.HasPrefix(r.Network, "IP not restricted"):
		network = "network open"
	}
	return "Seatbelt, " + network
}

func (r Report) seatbeltDetails() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  files:    %d profile rules over %s\n", r.Rules, textsafe.Escape(strings.Join(r.Roots, ", ")))
	fmt.Fprintf(&b, "  rights:   %s\n", strings.Join(r.Rights, " "))
	fmt.Fprintf(&b, "  network:  %s\n", r.Network)
	fmt.Fprintf(&b, "  seccomp:  none (%s)\n", r.SeccompWhy)
	if r.Egress {
		b.WriteString("  egress:   proxy on: HTTP(S) goes through the policy\n")
	} else {
		b.WriteString("  egress:   proxy off\n")
	}
	b.WriteString("  scoped:   signals and process information stay inside the sandbox; UNIX sockets outside it are refused\n")
	if len(r.Gaps) > 0 {
		fmt.Fprintf(&b, "  not enforced (%d):\n", len(r.Gaps))
		for _, g := range r.Gaps {
			fmt.Fprintf(&b, "    - %s\n", textsafe.Escape(g))
		}
	}
	return b.String()
}

func (r Report) seatbeltAuditDetail() string {
	return fmt.Sprintf("backend=seatbelt rules=%d rules_digest=%s egress=%t network=%q enforced=%q not_enforced=%d gaps=%q",
		r.Rules, r.RulesDigest, r.Egress, r.Network, r.Enforced(), len(r.Gaps), strings.Join(r.Gaps, "; "))
}
