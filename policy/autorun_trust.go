package policy

import (
	"strings"

	"github.com/agentairlock/airlock/policy/shell"
)

// derivedTrust: the content of a file that runs by itself (a shell
// start-up file, /etc/environment, an .envrc) sets a variable for every
// later program that sends its traffic through a proxy on another host, or
// turns its TLS check off. One command's own NAME=VALUE prefix is not
// persistent and is not judged here (policy/shell/trust.go).
func (c *classifier) derivedTrust(r *shell.Facts, label string) {
	for _, e := range r.Env {
		k, v, _ := strings.Cut(e, "=")
		sig := Signal(shell.PersistentEnvTrust(k, v))
		if sig == "" || c.hasSignal(sig) {
			continue
		}
		what := "turns TLS verification off for every later program"
		if sig == signalTrustSubverted {
			what = "sends every later program's traffic through " + v
		}
		c.f.Signals = append(c.f.Signals, signalFact{Signal: sig, Detail: k + "=" + clip(v, 60) + " " + what, Arg: label})
	}
}
