package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// auditManaged is a managed policy that requires signed, anchored records.
const auditManaged = "rules: []\naudit:\n  sign: hmac\n  anchor_dir: /var/lib/airlock/anchors\n"

// The managed policy's audit: key is read with its lines, for the messages
// that name them; an unmanaged machine, and a managed policy without the
// key, require nothing.
func TestManagedAuditRequirement(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	o := managedEnv(t, "rules: []\n", auditManaged)
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	got := p.ManagedAudit()
	want := AuditRequirement{File: p.ManagedFile(), Sign: "hmac", SignLine: 3, AnchorDir: "/var/lib/airlock/anchors", AnchorLine: 4}
	if got != want {
		t.Errorf("ManagedAudit = %+v, want %+v", got, want)
	}
	if s := got.String(); s != "sign=hmac anchor_dir=/var/lib/airlock/anchors" {
		t.Errorf("String = %q", s)
	}
	for _, c := range []struct{ name, managed string }{{"unmanaged", ""}, {"no audit key", "rules: []\n"}} {
		p, err := Load(managedEnv(t, "rules: []\n", c.managed))
		if err != nil {
			t.Fatal(err)
		}
		if a := p.ManagedAudit(); a.Required() || a.String() != "" {
			t.Errorf("%s: requires %+v", c.name, a)
		}
	}
}

// The user cannot turn the requirement off or move it: audit: is the
// managed policy's key, refused in the user's policy and in the
// repository's overlay (so neither can say sign: off over it), and AIRLOCK_SIGN
// / AIRLOCK_ANCHOR_DIR do not reach the requirement.
func TestManagedAuditCannotBeLoosened(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	for _, user := range []string{"rules: []\naudit: {sign: \"\"}\n", "rules: []\naudit:\n  sign: hmac\n"} {
		o := managedEnv(t, user, auditManaged)
		if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "audit: is for the managed policy only") {
			t.Errorf("the user's policy %q: %v", user, err)
		}
	}
	o := managedEnv(t, "rules: []\n", auditManaged)
	overlay := filepath.Join(o.Cwd, ".airlock", "policy.yaml")
	if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, []byte("rules: []\naudit: {anchor_dir: /tmp/mine}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "audit: is for the managed policy only") {
		t.Errorf("the overlay's audit: %v", err)
	}
	o = managedEnv(t, "rules: []\n", auditManaged)
	o.Getenv = func(k string) string {
		return map[string]string{"AIRLOCK_SIGN": "", "AIRLOCK_ANCHOR_DIR": "/tmp/mine", "AIRLOCK_POLICY": ""}[k]
	}
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if a := p.ManagedAudit(); a.Sign != "hmac" || a.AnchorDir != "/var/lib/airlock/anchors" {
		t.Errorf("under the environment's settings: %+v", a)
	}
}

// What the audit: key says is checked: a mode that is not one, a relative
// or unclean anchor directory, an unknown key, are load errors naming the
// line (fail closed), never read as no requirement.
func TestManagedAuditRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	for _, c := range []struct{ name, managed, want string }{
		{"sign off", "rules: []\naudit:\n  sign: \"off\"\n", `managed.yaml:3: audit.sign: "off" is not a signing mode`},
		{"sign empty", "rules: []\naudit:\n  sign: \"\"\n", `audit.sign: "" is not a signing mode`},
		{"sign true", "rules: []\naudit: {sign: true}\n", `audit.sign: "true" is not a signing mode`},
		{"relative anchors", "rules: []\naudit: {anchor_dir: anchors}\n", `audit.anchor_dir: "anchors" is not a clean absolute path`},
		{"unclean anchors", "rules: []\naudit: {anchor_dir: /var/lib/../tmp}\n", `is not a clean absolute path`},
		{"a typo", "rules: []\naudit: {require_signing: true}\n", `unknown key "require_signing"`},
		{"not a mapping", "rules: []\naudit: hmac\n", "audit must be a mapping"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Load(managedEnv(t, "", c.managed)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}
