package policy

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/agentairlock/airlock/policy/shell"
	"github.com/agentairlock/airlock/scan/secret"
)

// Secret flows: a secret source (a credential program's output, the
// process environment, a secret variable, a token shape written into the
// call) reaching a sink (the model, a file, the clipboard, DNS, a host).
// The shell analyzer follows the data through pipes, $( ), variables and
// redirects (policy/shell/flow.go); token shapes in the arguments of other
// tools are found here. A forbid names the sinks it refuses:
//
//	flow: {from: secret, to: [model, file, clipboard, dns, host-not-issuer]}
//
// A host sink is one of three: host-issuer (the secret's own issuer:
// a gh token to api.github.com), host-not-issuer (any other host, or the
// issuer's name re-pointed by --resolve, a proxy with TLS checks off, or
// the secret published as content), host-unknown-issuer (the source says
// nothing of its issuer: a vault token, a variable named only *_TOKEN).
// label is a token shape inside the host name of a URL (a name label
// the agent or a program chose: it leaves by DNS, but a shape there may be
// chance, and a person decides); agent is a token shape in a sub-agent's prompt; written is a token shape
// in the content a file tool writes (the agent wrote the token itself: a
// person decides whether it belongs in that file).

func init() {
	shell.TokenShapes = tokenShapeKinds
}

// tokenShapeKinds lists the kinds of the token shapes in s that are not
// documented placeholders.
func tokenShapeKinds(s string) []string {
	var out []string
	for _, m := range secret.Find(s) {
		if !isExampleToken(s[m.Start:m.End]) {
			out = append(out, m.Kind)
		}
	}
	return out
}

// flowFact is one secret reaching one sink.
type flowFact struct {
	Source     string   // "gh auth token", "$GITHUB_TOKEN", "env (the environment)", "a github-token …"
	SourceKind string   // program, environment, token-shape
	Issuers    []string // host globs of the secret's issuer; nil: unknown
	Sink       string   // model, file, clipboard, dns, host, agent
	SinkTarget string   // the file, host or name
	Redirected bool     // the issuer's name does not lead to the issuer
	Published  bool     // carried as content, not as the request's credential (shell.Flow)
	Arg        string

	to string // the sink kind forbids name (flowTo)
}

// Sink kinds a flow forbid names.
var flowSinks = []string{"model", "file", "clipboard", "dns", "host-issuer", "host-not-issuer", "host-unknown-issuer", "agent", "written", "label"}

type rawFlow struct {
	From strList `yaml:"from"`
	To   strList `yaml:"to"`
}

var flowKeys = []string{"from", "to"}

func compileFlow(r *rawFlow, name string) ([]string, error) {
	for _, f := range r.From {
		if f != "secret" {
			return nil, fmt.Errorf("rule %s: flow from %q: write from: secret", name, f)
		}
	}
	if len(r.To) == 0 {
		return nil, fmt.Errorf("rule %s: flow needs to: one or more of %s", name, strings.Join(flowSinks, ", "))
	}
	var out []string
	for _, t := range r.To {
		t = strings.ToLower(strings.TrimSpace(t))
		ok := false
		for _, s := range flowSinks {
			if s == t {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("rule %s: flow to %q: write one of %s", name, t, strings.Join(flowSinks, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

func matchFlows(to []string, flows []flowFact) (Hit, bool) {
	for i := range flows {
		fl := &flows[i]
		for _, t := range to {
			if fl.to == t {
				return Hit{Target: fl.describe(), Arg: fl.Arg}, true
			}
		}
	}
	return Hit{}, false
}

// describe says what flowed where: "gh auth token's output reaches the model".
func (fl *flowFact) describe() string {
	src := fl.Source
	switch fl.SourceKind {
	case shell.SourceProgram:
		src = src + "'s output"
	}
	var dst string
	switch fl.to {
	case "model":
		dst = "the model"
	case "file":
		dst = "the file " + fl.SinkTarget
	case "clipboard":
		dst = "the clipboard (" + fl.SinkTarget + ")"
	case "dns":
		dst = "DNS as part of the name " + fl.SinkTarget
	case "agent":
		dst = "a sub-agent's prompt"
	case "written":
		dst = "the content written to " + fl.SinkTarget
	case "label":
		dst = "a host name label (" + fl.SinkTarget + ")"
	case "host-issuer":
		dst = "its issuer " + fl.host()
	case "host-unknown-issuer":
		dst = "the host " + fl.host() + ", which may not be its issuer"
	default:
		switch {
		case fl.Redirected || fl.Published:
			dst = "the host " + fl.host() + " by a way that does not lead to its issuer (pinned address, insecure proxy, or published content)"
		default:
			dst = "the host " + fl.host() + ", not its issuer"
		}
	}
	return clip(src, 80) + " reaches " + clip(dst, 160)
}

func (fl *flowFact) host() string {
	if fl.SinkTarget == "" {
		return "(a host named at run time)"
	}
	if h := CanonicalHost(fl.SinkTarget); h != "" {
		return h
	}
	return fl.SinkTarget
}

// flowTo classifies a flow's sink for the forbids.
func flowTo(fl *flowFact) string {
	if fl.Sink != shell.SinkHost {
		return fl.Sink
	}
	h := CanonicalHost(fl.SinkTarget)
	if fl.Redirected || h == "" || strings.ContainsAny(fl.SinkTarget, "$…") && !strings.Contains(fl.SinkTarget, "://") {
		return "host-not-issuer"
	}
	if len(fl.Issuers) == 0 {
		return "host-unknown-issuer"
	}
	for _, g := range fl.Issuers {
		if compileHost(g).match(h) {
			if fl.Published {
				// handed to its issuer as content, stored where others
				// may read it: not the issuer's use of its own secret
				return "host-not-issuer"
			}
			return "host-issuer"
		}
	}
	return "host-not-issuer"
}

func (c *classifier) shellFlows(name string, flows []shell.Flow) {
	for _, fl := range flows {
		c.f.Flows = append(c.f.Flows, flowFact{Source: fl.Source, SourceKind: fl.Kind, Issuers: fl.Issuers, Sink: fl.Sink,
			SinkTarget: fl.Target, Redirected: fl.Redirected, Published: fl.Published, Arg: name})
	}
}

// tokenFlows finds token shapes leaving through tools other than a shell:
// a URL, header or body of a fetch or an MCP call (the hosts it names, or
// the server), a search query (the search provider), the content of a
// file written, a sub-agent's prompt.
func (c *classifier) tokenFlows() {
	if c.kind == kindShell || len(c.f.Flows) >= 64 {
		return
	}
	tool := strings.ToLower(c.f.Tool)
	mcp := strings.HasPrefix(tool, "mcp__")
	var sink, target string
	switch {
	case tool == "task" || tool == "agent":
		sink = "agent"
	case tool == "websearch":
		sink, target = shell.SinkHost, "the search provider"
	case c.kind == kindFetch || mcp && len(c.f.Hosts) > 0:
		sink = shell.SinkHost
	case c.kind == kindWrite || mcp && mcpVerbKind(tool[strings.LastIndex(tool, "__")+2:]) == kindWrite && len(c.f.Hosts) == 0:
		sink, target = "written", c.f.Primary
	case mcp:
		sink, target = shell.SinkHost, "the MCP server of "+c.f.Tool
	default:
		return
	}
	for i := range c.f.Texts {
		t := &c.f.Texts[i]
		if strings.HasPrefix(t.Arg, "key:") || len(t.Raw) < 12 {
			continue
		}
		if sink == "agent" {
			for _, s := range shell.PromptSources(t.Raw) {
				c.addFlow(flowFact{Source: s + ", requested", SourceKind: shell.SourceProgram, Sink: sink, Arg: t.Arg})
			}
		}
		switch lk := strings.ToLower(lastKey(t.Arg)); {
		case c.kind == kindWrite && lk != "content" && lk != "new_string" && lk != "new_source" && lk != "text":
			continue // the file's name is not what is written
		case c.kind == kindFetch && (lk == "prompt" || lk == "description"):
			continue // a fetch's prompt goes to the model, not to the host
		}
		for _, m := range secret.Find(t.Raw) {
			iss, ok := shell.ShapeIssuers(m.Kind)
			if !ok || isExampleToken(t.Raw[m.Start:m.End]) {
				continue
			}
			src := "a " + m.Kind + " in " + t.Arg
			if sink == shell.SinkHost && inHostPart(t.Raw, m.Start) {
				c.addFlow(flowFact{Source: src, SourceKind: shell.SourceShape, Issuers: iss, Sink: "label", SinkTarget: t.Raw, Arg: t.Arg})
				continue
			}
			if sink == shell.SinkHost && target == "" {
				for _, h := range c.f.Hosts {
					c.addFlow(flowFact{Source: src, SourceKind: shell.SourceShape, Issuers: iss, Sink: sink, SinkTarget: h.Raw, Arg: t.Arg})
				}
				continue
			}
			c.addFlow(flowFact{Source: src, SourceKind: shell.SourceShape, Issuers: iss, Sink: sink, SinkTarget: target, Arg: t.Arg})
		}
	}
}

// inHostPart: s[at:] starts inside the authority of a URL in s.
func inHostPart(s string, at int) bool {
	i := strings.LastIndex(s[:at], "://")
	if i < 0 {
		return false
	}
	return !strings.ContainsAny(s[i+3:at], "/?#")
}

func (c *classifier) addFlow(f flowFact) {
	if len(c.f.Flows) < 64 {
		c.f.Flows = append(c.f.Flows, f)
	}
}

// isExampleToken: the documented placeholders (AWS's AKIAIOSFODNN7EXAMPLE,
// runs of x or 0) are not secrets.
func isExampleToken(v string) bool {
	return strings.Contains(v, "EXAMPLE") || strings.Contains(v, "XXXXXXXX") || strings.Contains(v, "xxxxxxxx") || strings.Contains(v, "00000000") || strings.Contains(v, "YOUR_") || strings.Contains(v, "your_")
}

// finishFlows classifies each flow's sink.
func (c *classifier) finishFlows() {
	for i := range c.f.Flows {
		c.f.Flows[i].to = flowTo(&c.f.Flows[i])
	}
}

// argvCommand reads a shell tool's argv array ({"argv": ["gh", "auth",
// "token"]}) as the command it runs: each word quoted, so that the shell
// analyzer sees the program and its arguments, not loose strings.
func (c *classifier) argvCommand(root gjson.Result) {
	mcp := strings.HasPrefix(strings.ToLower(c.f.Tool), "mcp__")
	if c.kind != kindShell && !mcp || c.f.TooLarge != "" || c.f.Primary != "" && c.kind == kindShell {
		return // a shell tool with a command string has been read already
	}
	for _, key := range []string{"argv", "args", "arguments"} {
		v := root.Get(key)
		if !v.IsArray() || key != "argv" && (c.kind != kindShell || root.Get("command").Exists()) {
			continue
		}
		var b strings.Builder
		ok := true
		v.ForEach(func(_, w gjson.Result) bool {
			if w.Type != gjson.String {
				ok = false
				return false
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("'" + strings.ReplaceAll(w.String(), "'", `'\''`) + "'")
			return true
		})
		if ok && b.Len() > 0 {
			c.primary(key, b.String())
			c.shell(key, b.String())
			return
		}
	}
}
