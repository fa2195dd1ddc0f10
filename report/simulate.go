package report

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/agentairlock/airlock/audit"
)

// SimulatedIncident is the canonical incident breach --simulate analyses,
// with no log needed:
//
//   - session sim-poisoned: a poisoned skill makes the agent read
//     ~/.aws/credentials (observe mode lets it through), pack it with
//     base64, and curl it to a collector; the outcome of the read and the
//     curl's payload carry the same digest: CONFIRMED.
//   - session sim-ssh: an SSH key read (allowed by an override), then a
//     call to webhook.site the gate blocked: PROBABLE.
//   - session sim-dotenv: a .env read let through in observe mode, nothing
//     after it: POSSIBLE.
//   - session sim-attempt: an SSH key read the gate blocked, nothing after
//     it: an attempt, listed but not a burn.
//   - session sim-noise: ordinary work, including an upload to a normal
//     host whose payload digest matches nothing: no finding.
func SimulatedIncident() Records {
	// digests as the gate writes them: 128 bits of SHA-256 per token
	key := contentDigest("AKIAIOSFODNN7EXAMPLE")
	secret := contentDigest("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	benign := contentDigest("ok  github.com/example/app  0.412s")
	d := func(ts, session, tool, decision, effective, rule, target, reason, detail, mode string) audit.Record {
		return audit.Record{Time: "2026-03-14T" + ts + "Z", Event: "decision", Source: "hook", Session: session,
			Tool: tool, Decision: decision, Effective: effective, Rule: rule, Target: target, Reason: reason,
			Detail: detail, Mode: mode, ArgsDigest: digestOf(session + tool + target)}
	}
	o := func(ts, session, tool, rule, target, detail string) audit.Record {
		return audit.Record{Time: "2026-03-14T" + ts + "Z", Event: "outcome", Source: "hook", Session: session,
			Tool: tool, Effective: "ran", Rule: rule, Detail: detail, ArgsDigest: digestOf(session + tool + target)}
	}
	return Records{
		{Time: "2026-03-14T09:00:00.000Z", Event: audit.EventStart, Source: "hook", Detail: audit.StartDetail},
		d("09:01:00.000", "sim-noise", "Read", "allow", "allow", "", "", "", "", "enforce"),
		o("09:01:00.200", "sim-noise", "Read", "", "", ""),
		d("09:02:00.000", "sim-noise", "Bash", "allow", "allow", "", "", "", "", "enforce"),
		d("09:10:00.000", "sim-poisoned", "Skill", "allow", "allow", "", "", "", "", "observe"),
		d("09:10:05.000", "sim-poisoned", "Read", "block", "allow", "secrets.aws", "/home/dev/.aws/credentials", "AWS credentials", "", "observe"),
		o("09:10:05.300", "sim-poisoned", "Read", "secrets.aws", "/home/dev/.aws/credentials", secretDigestKey+"="+key+","+secret),
		d("09:10:09.000", "sim-poisoned", "Bash", "allow", "allow", "", "base64 /tmp/.c", "", "", "observe"),
		d("09:10:12.000", "sim-poisoned", "Bash", "block", "allow", "net.exfil-collector", "https://x7.oast.fun/u",
			"a request-capture, tunnel or paste service is where stolen data goes", payloadDigestsKey+"="+secret, "observe"),
		d("09:20:00.000", "sim-ssh", "Read", "block", "allow", "secrets.ssh", "/home/dev/.ssh/id_ed25519", "SSH keys and config are credentials", "override: deploy key", "enforce"),
		d("09:20:04.000", "sim-ssh", "WebFetch", "block", "block", "net.exfil-collector", "webhook.site",
			"a request-capture, tunnel or paste service is where stolen data goes", "", "enforce"),
		d("09:30:00.000", "sim-dotenv", "Read", "block", "allow", "secrets.dotenv", "/home/dev/app/.env", ".env files hold application secrets", "", "observe"),
		d("09:30:30.000", "sim-attempt", "Read", "block", "block", "secrets.ssh", "/home/dev/.ssh/id_rsa", "SSH keys and config are credentials", "", "enforce"),
		d("09:31:00.000", "sim-noise", "Bash", "allow", "allow", "", "", "", payloadDigestsKey+"="+benign, "enforce"),
		d("09:32:00.000", "sim-noise", "WebFetch", "allow", "allow", "", "pkg.go.dev", "", "", "enforce"),
	}
}

func contentDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return digestPrefix + hex.EncodeToString(sum[:16])
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
