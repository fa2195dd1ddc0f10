// Package demo replays what a hijacked coding agent would do — read the
// SSH key, send it out, use a poisoned MCP server, live through a rug
// pull — through the real hook and the real MCP proxy, and reports how
// each step came out. `airlock demo` prints it; CI checks it.
//
// Nothing of the user's is touched: the demo builds a throwaway home
// (with a fake key) and workspace (with a poisoned skill) in a temp
// directory, runs with HOME and AIRLOCK_HOME pointed there and the user's
// other AIRLOCK_* settings set aside, and removes it all at the end. The
// MCP servers are built into the airlock binary (Serve).
//
// demo never decides anything itself: every verdict it reports is the
// hook's, the proxy's or the audit verifier's.
package demo

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// outcome is how a step came out.
type outcome string

// The outcomes a step can have. A step whose call could not even be made
// (the proxy would not start, an answer never came) is Failed.
const (
	Blocked outcome = "blocked" // the gate refused the call
	Held    outcome = "held"    // the proxy refused the call: the server is held
	Allowed outcome = "allowed" // the call went through
	asked   outcome = "asked"   // the hook asked the user
	Intact  outcome = "intact"  // the audit chain verifies
	Broken  outcome = "broken"  // the audit chain does not verify
	Failed  outcome = "failed"
)

// Step IDs, stable for tests and CI.
const (
	StepKeyRead    = "key-read"
	StepExfil      = "exfil"
	StepPoisoned   = "poisoned-toolset"
	StepBenignRead = "benign-read"
	StepBenignMCP  = "benign-mcp"
	StepRugPull    = "rug-pull"
	StepVerify     = "verify"
)

// Step is one replayed move and what came of it.
type Step struct {
	ID     string
	Title  string  // what was tried, as a user would say it
	Want   outcome // what Airlock must answer
	Got    outcome
	Rule   string // the rule that decided, when one did
	Reason string // the decision's reason, with the throwaway paths shown as ~ and .
	// Detail says what happened instead, when Got is not Want: an exit
	// code, an error, what the proxy or the hook printed.
	Detail string
	// Records is the number of audit records verified (StepVerify).
	Records int
}

// OK reports whether the step came out as Airlock must answer it.
func (s Step) OK() bool { return s.Got == s.Want }

// Options configure a run.
type Options struct {
	// Server is the command that runs an embedded MCP server, completed
	// with "--server NAME --state FILE": the airlock binary and its
	// hidden subcommand, [os.Executable(), "__demo-server"].
	Server []string
	// Keep leaves the temp directory in place (Result.Dir).
	Keep bool
	// OnStep, when set, is called as each step ends.
	OnStep func(Step)
	// Timeout bounds each wait on the proxy (default 10s).
	Timeout time.Duration
}

// Result is a whole run.
type Result struct {
	Dir     string // the temp directory; gone unless Options.Keep
	Steps   []Step
	Elapsed time.Duration
}

// OK reports whether every step came out as it must.
func (r *Result) OK() bool { return len(r.Failed()) == 0 }

// Failed lists the steps that did not come out as they must.
func (r *Result) Failed() []Step {
	var bad []Step
	for _, s := range r.Steps {
		if !s.OK() {
			bad = append(bad, s)
		}
	}
	return bad
}

// Run builds the throwaway world, replays the attack in it and removes it
// (unless o.Keep). An error means the demo could not be set up at all; a
// step that comes out wrong is in the Result, not an error.
func Run(o Options) (*Result, error) {
	if len(o.Server) == 0 {
		return nil, errors.New("no command to start the demo's MCP servers with")
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	start := time.Now()
	w, err := newWorld()
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: w.dir}
	restore, err := w.enter()
	if err != nil {
		w.remove()
		return nil, err
	}
	r := &runner{w: w, o: o, res: res}
	r.replay()
	restore()
	if !o.Keep {
		w.remove()
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// runner replays the steps in one world.
type runner struct {
	w   *world
	o   Options
	res *Result
}

func (r *runner) add(s Step) {
	s.Reason = r.w.tidy(s.Reason)
	s.Detail = r.w.tidy(strings.TrimSpace(s.Detail))
	r.res.Steps = append(r.res.Steps, s)
	if r.o.OnStep != nil {
		r.o.OnStep(s)
	}
}

// replay is the attack, in the order a hijacked agent would try it: the
// skill's instructions first (take the key, send it out), then the
// poisoned MCP server, then an honest server that later turns.
func (r *runner) replay() {
	r.add(r.hookStep(StepKeyRead, Blocked, "Read", map[string]any{"file_path": "~/.ssh/id_rsa"}))
	r.add(r.hookStep(StepExfil, Blocked, "Bash", map[string]any{"command": exfilCommand}))
	r.add(r.mcpStep(StepPoisoned, Held, PoisonedServer, poisonedTool, map[string]any{"path": "report.pdf"}))
	r.add(r.hookStep(StepBenignRead, Allowed, "Read", map[string]any{"file_path": "README.md"}))
	r.add(r.mcpStep(StepBenignMCP, Allowed, RugPullServer, rugPullTool, map[string]any{"query": "release"}))
	r.add(r.mcpStep(StepRugPull, Held, RugPullServer, rugPullTool, map[string]any{"query": "release"}))
	r.add(r.verifyStep())
}

func describe(tool string, input map[string]any) string {
	switch tool {
	case "Read":
		return fmt.Sprintf("Read %v", input["file_path"])
	case "Bash":
		return fmt.Sprintf("Bash %v", input["command"])
	}
	return tool
}
