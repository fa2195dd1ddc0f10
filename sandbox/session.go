package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/scan/secret"
)

// SessionConfig is one sandboxed session: the launch, and what its egress
// proxy needs to decide, ask, record and tell. `airlock run` and
// `airlock-mcp --sandbox` fill it in; the session wires the rest the same
// way for both.
type SessionConfig struct {
	// Options is the launch. Env is the child's environment before the
	// egress proxy's variables are added (nil: this process's);
	// EgressPort is set by the session.
	Options

	ID     string // the session id, in the egress proxy's records and the session's own
	Source string // the session's own records' source ("cli"); "" leaves it to the recorder
	Tool   string // the session's own records' tool ("run"); "" leaves it to the recorder

	Home   string              // the audit log's directory, named in a refusal of an unrecorded connection
	Getenv func(string) string // AIRLOCK_FAIL_OPEN; nil reads nothing

	// NoEgress starts no egress proxy: the command then gets no TCP
	// connect at all where Landlock has network rules.
	NoEgress bool
	// Ask settles a destination the policy asks about (the ask channel:
	// airlock askd, a terminal, a desktop dialog). nil: ask_fallback at
	// once.
	Ask Asker
	// Server names the MCP server the session runs (airlock-mcp
	// --sandbox): each ask then names it, and an answer is remembered for
	// that server alone. "": the command of airlock run.
	Server string
	// Record receives every egress record (see EgressOptions.Record).
	Record func(audit.Record) error
	// Notice is called, after Record, with every egress record whose
	// effect is block: the desktop notice a front end sends on a block.
	// nil: no notice.
	Notice func(audit.Record)
}

// Session is a prepared sandbox: the kernel ruleset for the command and,
// unless NoEgress, the running egress proxy the command's TCP goes
// through. Close releases both.
type Session struct {
	cfg    SessionConfig
	plan   *plan
	egress *egress
}

// ErrEgressStart marks an OpenSession error from the egress proxy (as
// opposed to the kernel ruleset).
var ErrEgressStart = errors.New("the egress proxy did not start")

type egressStartError struct{ err error }

func (e egressStartError) Error() string        { return ErrEgressStart.Error() + ": " + e.err.Error() }
func (e egressStartError) Is(target error) bool { return target == ErrEgressStart }
func (e egressStartError) Unwrap() error        { return e.err }

// OpenSession starts the egress proxy (unless cfg.NoEgress) with the ask
// channel and notices, and prepares the kernel ruleset. Nothing is
// started on failure: an error from the proxy matches ErrEgressStart
// (errors.Unwrap gives its cause), one from Prepare is Prepare's
// (ErrKernelTooOld, ErrUnsupported …).
func OpenSession(cfg SessionConfig) (*Session, error) {
	s := &Session{cfg: cfg}
	opt := cfg.Options
	opt.handoff = &termHandoff{}
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	if !cfg.NoEgress {
		eg, err := StartEgress(egressOptions{
			Policy:  cfg.Policy,
			Ask:     terminalAsker(serverAsker(cfg.Ask, cfg.Server), opt.handoff),
			Session: cfg.ID,
			Home:    cfg.Home,
			Getenv:  cfg.Getenv,
			Record:  s.recordEgress,
		})
		if err != nil {
			return nil, egressStartError{err}
		}
		s.egress = eg
		_, port, _ := net.SplitHostPort(eg.Addr())
		opt.EgressPort, _ = strconv.Atoi(port)
		env = append(env[:len(env):len(env)], eg.Env()...)
	}
	opt.Env = env
	plan, err := Prepare(opt)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.plan = plan
	return s, nil
}

// serverAsker is a, with every question naming server and its answer
// remembered for that server alone: a yes to one server's destination is
// not another's.
func serverAsker(a Asker, server string) Asker {
	if a == nil || server == "" {
		return a
	}
	return askAs{a, server}
}

// terminalAsker is a, taking the person's terminal from the command's
// pty relay while it asks (airlock run's tty prompt needs it).
func terminalAsker(a Asker, h *termHandoff) Asker {
	if a == nil {
		return nil
	}
	return askTerminal{a, h}
}

type askTerminal struct {
	Asker
	h *termHandoff
}

func (a askTerminal) Ask(ctx context.Context, r ask.Request) ask.Outcome {
	var out ask.Outcome
	a.h.during(func() { out = a.Asker.Ask(ctx, r) })
	return out
}

type askAs struct {
	Asker
	server string
}

func (a askAs) Ask(ctx context.Context, r ask.Request) ask.Outcome {
	r.Server = secret.Mask(a.server) // shown as the gate shows it; the shape keeps the name itself
	if r.Shape != "" {
		r.Shape = ask.Shape(r.Source, a.server, r.Tool, []byte(r.Shape))
	}
	return a.Asker.Ask(ctx, r)
}

// recordEgress records one egress record and, for a block, sends the
// notice.
func (s *Session) recordEgress(r audit.Record) error {
	var err error
	if s.cfg.Record != nil {
		err = s.cfg.Record(r)
	}
	if r.Effective == "block" && s.cfg.Notice != nil {
		s.cfg.Notice(r)
	}
	return err
}

// Report is what the kernel enforces for this session and what it does
// not.
func (s *Session) Report() Report { return s.plan.Report() }

// Run starts the command and waits for it (Plan.Run).
func (s *Session) Run() (int, error) { return s.plan.Run() }

// Start starts the command (Plan.Start); the caller waits for it.
func (s *Session) Start() (*exec.Cmd, error) { return s.plan.Start() }

// Close stops the egress proxy (the ends of its open connections are
// recorded first, so before the log closes) and releases the ruleset. It
// returns the first error the proxy's Record returned, if any. Calling it
// again does nothing and returns nil.
func (s *Session) Close() error {
	var err error
	if s.egress != nil {
		_ = s.egress.Close()
		err = s.egress.RecordErr()
		s.egress = nil
	}
	if s.plan != nil {
		_ = s.plan.Close()
		s.plan = nil
	}
	return err
}

// StartRecord is the session's first record: sandbox_start, with target
// (the command, escaped by the caller) and the caller's detail followed
// by what the kernel enforces.
func (s *Session) StartRecord(target, detail string) audit.Record {
	return audit.Record{
		Event: "sandbox_start", Source: s.cfg.Source, Session: s.cfg.ID, Tool: s.cfg.Tool,
		Mode: s.cfg.Policy.Mode.String(), Target: target,
		Detail: textsafe.Escape(detail + " " + s.plan.Report().AuditDetail()),
	}
}

// EndRecord is the session's last record once the command has exited
// with status, or could not start (runErr); the status returned is the
// one to exit with (126 for a command that did not start with status 0).
func (s *Session) EndRecord(status int, runErr error) (audit.Record, int) {
	end := audit.Record{Event: "sandbox_end", Source: s.cfg.Source, Session: s.cfg.ID, Tool: s.cfg.Tool,
		Effective: "exit " + strconv.Itoa(status), Detail: fmt.Sprintf("exit_status=%d", status)}
	if runErr != nil {
		if status == 0 {
			status = 126
		}
		end.Effective, end.Detail = "error", textsafe.Escape(fmt.Sprintf("exit_status=%d not started: %v", status, runErr))
	}
	return end, status
}

// StopRecord is the record of a stop signal passed on to a command that
// is still waited for (sandbox_stop; its end follows).
func (s *Session) StopRecord(sig os.Signal) audit.Record {
	return audit.Record{Event: "sandbox_stop", Source: s.cfg.Source, Session: s.cfg.ID, Tool: s.cfg.Tool,
		Effective: "stopped", Detail: "stopped by " + SignalName(sig) + "; passed to the command"}
}

// StoppedEndRecord is the last record of a session whose command got a
// stop signal and is not waited for (sandbox_end, effective stopped).
func (s *Session) StoppedEndRecord(sig os.Signal) audit.Record {
	return audit.Record{Event: "sandbox_end", Source: s.cfg.Source, Session: s.cfg.ID, Tool: s.cfg.Tool,
		Effective: "stopped", Detail: "stopped by " + SignalName(sig)}
}
