package mcpproxy

import (
	"fmt"
	"io"
	"os"
	"time"

	taintstore "github.com/agentairlock/airlock/taint"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/pins/schema"
)

// Setup loads everything a proxy run needs before the server starts: the
// environment, the policy, the contracts, a writable home and the pins.
// Any failure is fatal with ExitConfig: a proxy that cannot decide must not
// start the server ungated.
//
// yes approves every ask automatically (--yes).
func Setup(name string, argv []string, yes bool, stderr io.Writer) (Options, int, error) {
	o := Options{Name: name, Argv: argv, Stderr: stderr}
	env, err := airlockhome.FromOS()
	if err != nil {
		return o, exitConfig, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return o, exitConfig, fmt.Errorf("find the working directory: %w", err)
	}
	o.Dir = cwd
	if v := os.Getenv("AIRLOCK_MCP_GRACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, exitConfig, fmt.Errorf("AIRLOCK_MCP_GRACE=%q is not a duration like 5s or 500ms", v)
		}
		o.Grace = d
	}
	g, err := loadGate(env, cwd)
	if err != nil {
		return o, exitConfig, err
	}
	g.Notify = notify.New(notify.Options{AirlockHome: env.AirlockHome, Getenv: env.Getenv})
	store := taintstore.Open(env.AirlockHome, nil)
	g.Taints = store
	// per client connection (its session) and per server, in memory:
	// the proxy is one long-lived process
	g.Calls = &calls.Memory{}
	ttl := g.Policy.TaintTTL
	o.MarkTaint = func(session, tool, why string) {
		if _, err := store.Mark(session, taintstore.Source{Origin: "mcp", Tool: tool, What: why}, ttl); err != nil {
			fmt.Fprintf(stderr, "airlock-mcp: warning: the session's taint was not recorded: %v\n", err)
		}
	}
	if err := gate.CheckAskYes(g.Policy, yes); err != nil {
		return o, exitConfig, err
	}
	if g.Ask, err = ask.New(ask.Options{Home: env.AirlockHome, Auto: yes}); err != nil {
		return o, exitConfig, err
	}
	if err := probeWritable(env.AirlockHome); err != nil {
		return o, exitConfig, err
	}
	log, err := gate.OpenLog(env.AirlockHome, g.Policy, env.Getenv)
	if err != nil {
		return o, exitConfig, fmt.Errorf("open the audit log: %w", err)
	}
	o.Gate = g
	o.Log = log
	o.Pins = pins.Open(env.AirlockHome)
	if _, err := o.Pins.Load(); err != nil {
		// Not fatal: the server starts and every call to it is refused
		// with this message until pins.json is fixed.
		fmt.Fprintf(stderr, "airlock-mcp: %v\nEvery call to %q will be refused until this is fixed.\n", err, name)
	}
	o.Schemas = schema.NewSchemas()
	o.Inspect = inspectToolset
	o.Observe = observer(env.AirlockHome, name, stderr)
	return o, 0, nil
}

// probeWritable fails unless a file can be created in home: the audit log,
// pins and holds all live there.
func probeWritable(home string) error {
	if err := airlockhome.Make(home); err != nil {
		return fmt.Errorf("airlock home %s cannot be created: %w", home, err)
	}
	f, err := os.CreateTemp(home, ".probe-*")
	if err != nil {
		return fmt.Errorf("airlock home %s is not writable: %w", home, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
