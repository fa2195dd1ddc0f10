package mcpproxy

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/policy"
)

// TestRemoteGuardJudgesResolvedAddresses: --url's name was judged before
// the bridge started; the address a connection dials (after DNS, on every
// connection: a rebinding name changes between them) is judged again, and
// a metadata address or a forbidden collector behind an innocent name is
// refused, while the addresses of a name the policy allowed are not
// refused by the catch-all rules that already ran on the name.
func TestRemoteGuardJudgesResolvedAddresses(t *testing.T) {
	root := t.TempDir()
	pol, err := policy.LoadProfile("default", policy.Vars{Workspace: root, Home: root, Tmp: root, User: "dev", AirlockHome: root})
	if err != nil {
		t.Fatal(err)
	}
	g := remoteGuard(pol, "https")
	for _, bad := range []string{"169.254.169.254", "fd00:ec2::254", "webhook.site"} {
		if err := g(bad, 443); err == nil || !strings.Contains(err.Error(), "refused by the policy") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, ok := range []string{"127.0.0.1", "::1", "140.82.112.3", "10.1.2.3"} {
		if err := g(ok, 443); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if remoteGuard(nil, "https") != nil {
		t.Error("no policy, no guard")
	}
}
