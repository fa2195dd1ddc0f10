package report

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// analyzeNaive is Analyze as it was before the egress index: every secret
// access walks every later record. The index must find the same.
func analyzeNaive(entries []Entry) (findings, attempts []finding) {
	var recs []indexed
	for _, e := range entries {
		if e.Err == nil {
			recs = append(recs, indexed{e.Line, e.Record})
		}
	}
	used := map[int]bool{}
	for i, x := range recs {
		r := x.r
		secretDecision := r.Event == "decision" && isSecretRule(r.Rule)
		lone := r.Event == "outcome" && !used[i] && (isSecretRule(r.Rule) || len(secretDigests(r)) > 0)
		if !secretDecision && !lone {
			continue
		}
		fd := finding{Session: r.Session, Credential: credentialLabel(r), Read: r.Effective != "block",
			Timeline: []step{{phaseSecret, x.line, r}}}
		if lone {
			fd.Digests = secretDigests(r)
		} else if fd.Read {
			for j := i + 1; j < len(recs); j++ {
				o := recs[j].r
				if o.Event == "outcome" && !used[j] && outcomeKey(o) == outcomeKey(r) {
					used[j] = true
					fd.Digests = secretDigests(o)
					fd.Timeline = append(fd.Timeline, step{phaseSecret, recs[j].line, o})
					break
				}
			}
		}
		gradeNaive(&fd, recs[i+1:])
		if !fd.Read && fd.Grade == possible {
			attempts = append(attempts, fd)
			continue
		}
		findings = append(findings, fd)
	}
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Grade > findings[j].Grade })
	return findings, attempts
}

func gradeNaive(fd *finding, after []indexed) {
	fd.Grade = possible
	if fd.Read {
		fd.Why = "a secret was read; nothing in the log ties it to egress"
	} else {
		fd.Why = "a secret read was attempted and blocked; nothing in the log ties it to egress"
	}
	for _, x := range after {
		r := x.r
		if r.Event != "decision" {
			continue
		}
		sameSession := r.Session == fd.Session
		hit := shared(fd.Digests, payloadDigests(r))
		host := collectorHost(r.Target)
		exfil := sameSession && (isExfilRule(r.Rule) || host != "")
		switch {
		case hit != "":
			fd.Timeline = append(fd.Timeline, step{phaseEgress, x.line, r})
			if r.Effective != "block" {
				fd.Grade = confirmed
				fd.Why = "the secret's own digest (" + hit + ") reappeared in an outbound payload the gate let through"
				return
			}
			if fd.Grade < probable {
				fd.Grade = probable
				fd.Why = "the secret's own digest (" + hit + ") reappeared in an outbound call; the gate blocked that call"
			}
		case exfil:
			fd.Timeline = append(fd.Timeline, step{phaseEgress, x.line, r})
			if fd.Read && fd.Grade < probable {
				fd.Grade = probable
				switch {
				case host != "":
					fd.Why = "after the secret was read, the same session called a known collector (" + host + ")"
				default:
					fd.Why = "after the secret was read, the same session hit exfiltration rule " + r.Rule
				}
				if r.Effective == "block" {
					fd.Why += "; the gate blocked that call"
				}
			} else if !fd.Read && fd.Grade == possible {
				fd.Why = "a secret read was attempted and blocked; the same session then tried egress (see timeline)"
			}
		case sameSession && isStaging(r):
			fd.Timeline = append(fd.Timeline, step{phaseStaging, x.line, r})
		}
	}
}

// TestEgressIndexGradesAsBefore: on random logs of secret reads, outcomes
// with secret digests, payloads, collectors, exfiltration rules and
// staging, the indexed Analyze finds exactly what the record-by-record
// walk found.
func TestEgressIndexGradesAsBefore(t *testing.T) {
	digest := func(n int) string { return fmt.Sprintf("sha256:%064x", n) }
	grades := map[Grade]int{}
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 15))
		var rs []audit.Record
		for i := range 5 + rng.IntN(60) {
			s := fmt.Sprintf("s%d", rng.IntN(3))
			r := audit.Record{Event: "decision", Source: "hook", Session: s, Tool: "Bash", Decision: "allow", Effective: "allow",
				ArgsDigest: fmt.Sprint(rng.IntN(4)), Time: fmt.Sprintf("t%03d", i)}
			if rng.IntN(3) == 0 {
				r.Effective = "block"
			}
			switch rng.IntN(8) {
			case 0:
				r.Tool, r.Rule, r.Target = "Read", "secrets.ssh", "/home/dev/.ssh/id_rsa"
			case 1:
				r.Event, r.Tool = "outcome", "Read"
				if rng.IntN(2) == 0 {
					r.Detail = secretDigestKey + "=" + digest(rng.IntN(3))
				}
				if rng.IntN(3) == 0 {
					r.Rule = "secrets.aws"
				}
			case 2:
				r.Detail = payloadDigestsKey + "=" + digest(rng.IntN(3)) + "," + digest(9)
			case 3:
				r.Target = "curl https://webhook.site/x"
			case 4:
				r.Rule = "net.exfil-collector"
			case 5:
				r.Target = "tar czf /tmp/x.tgz ."
			case 6:
				r.Rule = "exec.download-exec"
				r.Detail = payloadDigestsKey + "=" + digest(rng.IntN(3))
			}
			rs = append(rs, r)
		}
		entries := entriesOf(rs...)
		b := Analyze(entries, Integrity{Status: audit.Intact}, Filter{})
		wantF, wantA := analyzeNaive(entries)
		if !reflect.DeepEqual(b.Findings, wantF) || !reflect.DeepEqual(b.Attempts, wantA) {
			t.Fatalf("seed %d: indexed Analyze differs:\n got %+v\n     %+v\nwant %+v\n     %+v", seed, b.Findings, b.Attempts, wantF, wantA)
		}
		for _, f := range b.Findings {
			grades[f.Grade]++
		}
	}
	if grades[confirmed] == 0 || grades[probable] == 0 || grades[possible] == 0 {
		t.Fatalf("the random logs do not reach every grade: %v", grades)
	}
}
