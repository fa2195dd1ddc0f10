//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The real Claude Code hands its native tools' results to the post-tool
// hook, and from 2.1.121 takes a replacement for any of them
// (updatedToolOutput): a workspace file holding an AWS key pair, read
// with Read and with cat, reaches the model masked, and a control run
// without Airlock shows the pair reaching it.

// awsPair is a made-up AWS key pair in the documented shapes (AWS IAM
// User Guide, "Manage access keys"; scan/secret/testdata/shapes.txt).
const (
	awsKeyID  = "AKIAEXDGE3HDKEATCIYJ"
	awsSecret = "YW5LSQdGrKNB4di4RX2G1zdW8FXpCEyGjFl6gdyK"
)

// TestRealClaudeMasksNativeResults: one turn in which the fake model asks
// Read of a workspace file with an AWS key pair, then cat of it through
// Bash. Without Airlock both reach the model; after airlock init neither
// does, the tool_result Claude Code sends next holds the masks instead,
// and each masking is recorded (the shape and digest, never the key).
func TestRealClaudeMasksNativeResults(t *testing.T) {
	const rel = "notes/aws-setup.txt"
	body := "Deploy credentials for the staging bucket:\nAWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\nREGION=eu-west-1\n"
	home := func(t *testing.T) agentHome {
		h := turnHome(t)
		p := filepath.Join(h.proj, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return h
	}
	calls := func(h agentHome) []toolCall {
		return []toolCall{{"Read", map[string]any{"file_path": filepath.Join(h.proj, rel)}}, {"Bash", map[string]any{"command": "cat " + rel}}}
	}
	// results is the tool_result of each call in the request after it
	results := func(m *fakeModel) []string {
		var out []string
		for _, id := range []string{`"tool_use_id":"toolu_01"`, `"tool_use_id":"toolu_02"`} {
			got := ""
			for _, r := range m.requests() {
				if i := strings.Index(r, id); i >= 0 {
					got = r[i:min(len(r), i+600)]
					break
				}
			}
			out = append(out, got)
		}
		return out
	}

	t.Run("control: without Airlock the key pair reaches the model", func(t *testing.T) {
		h := home(t)
		m := claudeTurn(t, h, calls(h))
		for i, r := range results(m) {
			if !strings.Contains(r, awsSecret) || !strings.Contains(r, awsKeyID) {
				t.Errorf("call %d: the control run's result lacks the key pair: the test could not fail (%s)", i+1, r)
			}
		}
	})

	t.Run("after init the model gets the result masked", func(t *testing.T) {
		h := home(t)
		if out, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "init"); code != 0 {
			t.Fatalf("airlock init: exit %d\n%s%s", code, out, errOut)
		}
		m := claudeTurn(t, h, calls(h))
		if m.carrying(awsSecret) || m.carrying(awsKeyID) {
			t.Errorf("the key pair reached the model (last request %s)", lastTail(m))
		}
		got := results(m)
		t.Logf("the results the model got: %q", got)
		for i, r := range got {
			// the rest of the file is there, the pair masked in place
			if !strings.Contains(r, "[masked aws-secret-access-key sha256:") || !strings.Contains(r, "[masked aws-access-key-id") ||
				!strings.Contains(r, "REGION=eu-west-1") {
				t.Errorf("call %d: the result the model got is not the masked file: %s", i+1, r)
			}
		}
		recs := readAudit(t, h.airlockHome)
		for _, tool := range []string{"Read", "Bash"} {
			masked := slices.ContainsFunc(recs, func(r auditRecord) bool {
				return r.Event == "mask" && r.Tool == tool && r.Effective == "masked" && strings.Contains(r.Detail, "aws-secret-access-key:sha256:")
			})
			if !masked {
				t.Errorf("no mask record of the %s result: %+v", tool, recs)
			}
		}
		for _, r := range recs {
			if strings.Contains(r.Detail+r.Reason, awsSecret) {
				t.Errorf("a record holds the secret: %+v", r)
			}
		}
	})
}
