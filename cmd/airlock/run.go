package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/sandbox"
	"github.com/urfave/cli/v2"
)

// exitConfig is the exit status when the policy, the audit log or the
// kernel cannot give the sandbox asked for: nothing is started.
const exitConfig = 78

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a command (an agent, a server) under Landlock, seccomp and the egress proxy",
		ArgsUsage: "[-v] [--require-landlock N] [--no-egress-proxy] [--yes] -- CMD ARGS…",
		Description: "Before the command starts, one line on stderr says what is enforced and how many\n" +
			"protections are not; -v lists them (so does airlock doctor --verbose, and the session's\n" +
			"sandbox_start record names each). The command's own output is untouched.\n" +
			"A destination the policy asks about goes to the ask channel (AIRLOCK_ASK_BACKEND:\n" +
			"socket,tty,desktop,fallback): run \"airlock askd\" in another terminal to answer.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list what the sandbox does not enforce, and its rules, before the command starts"},
			&cli.IntFlag{Name: "require-landlock", Usage: "refuse to run unless the kernel offers Landlock ABI `N` or newer (AIRLOCK_REQUIRE_SANDBOX=1: 4)", Action: atLeastZero("run", "require-landlock")},
			&cli.BoolFlag{Name: "no-egress-proxy", Usage: "start no egress proxy: the command then gets no TCP connect at all where Landlock has network rules"},
			&cli.BoolFlag{Name: "yes", Usage: "approve every destination the policy asks about without asking anyone (recorded as automatic; refused when ask_fallback is block)"},
			&cli.IntFlag{Name: "pretend-abi", Hidden: true, Usage: "cap the Landlock ABI (to see what an older kernel leaves open)"},
		},
		Action: runSandboxed,
	}
}

func runSandboxed(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return exitWith(64, "airlock run: give the command after --, e.g. airlock run -- claude")
	}
	require := c.Int("require-landlock")
	if require == 0 && os.Getenv("AIRLOCK_REQUIRE_SANDBOX") == "1" {
		require = 4
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return exitWith(exitConfig, "airlock run: the policy did not load; nothing was started:\n%v", err)
	}
	if err := home.Make(env.AirlockHome); err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	log, err := gate.OpenLog(env.AirlockHome, p, env.Getenv)
	if err != nil {
		return exitWith(exitConfig, "airlock run: open the audit log; nothing was started: %v", err)
	}
	defer log.Close()
	session := newSession()
	rec := &runRecorder{log: log, home: env.AirlockHome, stderr: c.App.ErrWriter}

	notes := notify.New(notify.Options{AirlockHome: env.AirlockHome, Getenv: env.Getenv})
	defer notes.Wait()
	cfg := sandbox.SessionConfig{
		Options: sandbox.Options{Argv: argv, Dir: cwd, Policy: p, RequireABI: require, MaxABI: c.Int("pretend-abi"), Env: os.Environ()},
		ID:      session, Source: "cli", Tool: "run",
		Home: env.AirlockHome, Getenv: env.Getenv,
		NoEgress: c.Bool("no-egress-proxy"),
		Record:   rec.append,
		Notice: func(r audit.Record) {
			notes.Blocked(notify.Block{Source: "airlock run", Tool: r.Tool, Target: r.Target, Rule: r.Rule, Reason: r.Reason, Fix: "airlock report"})
		},
	}
	if !cfg.NoEgress {
		if err := gate.CheckAskYes(p, c.Bool("yes")); err != nil {
			return exitWith(exitConfig, "airlock run: %v; nothing was started", err)
		}
		asker, err := ask.New(ask.Options{Home: env.AirlockHome, Auto: c.Bool("yes")})
		if err != nil {
			return exitWith(exitConfig, "airlock run: %v; nothing was started", err)
		}
		cfg.Ask = asker
	}
	// A parent that stops airlock run with a signal may kill it a moment
	// later (Codex: SIGKILL ~12 ms after SIGTERM): the session's stop is
	// recorded, with its checkpoint, at the signal; the end with the
	// command's exit status follows if there is time.
	var sess *sandbox.Session
	cfg.Stopped = func(sig os.Signal) { rec.write(sess.StopRecord(sig)) }

	sess, err = sandbox.OpenSession(cfg)
	switch {
	case errors.Is(err, sandbox.ErrEgressStart):
		return exitWith(exitConfig, "airlock run: the egress proxy did not start; nothing was started: %v", errors.Unwrap(err))
	case errors.Is(err, sandbox.ErrKernelTooOld):
		return exitWith(exitConfig, "airlock run: %v; nothing was started (drop --require-landlock / AIRLOCK_REQUIRE_SANDBOX to run with what the kernel has)", err)
	case err != nil:
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	defer sess.Close()
	rep := sess.Report()
	if require > 0 && !rep.Seccomp {
		return exitWith(exitConfig, "airlock run: a sandbox was required and seccomp is off (%s); nothing was started", rep.SeccompWhy)
	}
	fmt.Fprint(c.App.ErrWriter, runBanner(rep, c.Bool("verbose")))

	digest := gate.ConfigOf("run", p, env).Fingerprint()
	if _, err := log.Append(sess.StartRecord(textsafe.Escape(strings.Join(argv, " ")), fmt.Sprintf("cwd=%q policy=%s", cwd, digest))); err != nil {
		return exitWith(exitConfig, "airlock run: record the session start; nothing was started: %v", err)
	}
	status, runErr := sess.Run()
	end, status := sess.EndRecord(status, runErr)
	// the ends of the connections still open come before the session's
	if err := sess.Close(); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "airlock run: %v\n", err)
	}
	rec.finish(end)
	if runErr != nil {
		return exitWith(status, "%s", notStarted(argv[0], runErr))
	}
	return exitWith(status, "")
}

// runBanner is what airlock run prints on stderr before the command: one
// line saying what is enforced and how many protections are not, or with
// verbose, that line and every rule and gap by name.
func runBanner(rep sandbox.Report, verbose bool) string {
	switch {
	case verbose && len(rep.Gaps) > 0:
		return "airlock run: " + rep.Summary() + ", listed below\n" + rep.Details()
	case verbose:
		return "airlock run: " + rep.Summary() + "\n" + rep.Details()
	case len(rep.Gaps) > 0:
		return "airlock run: " + rep.Summary() + ": airlock run -v\n"
	}
	return "airlock run: " + rep.Summary() + "\n"
}

// notStarted is the message for a command the sandbox could not start:
// what went wrong with which command, and what to do. The name is the
// line's (a script, an agent's config, a repository can choose it): it
// reaches the terminal escaped, never as control sequences.
func notStarted(name string, err error) string {
	return textsafe.Escape(notStartedText(name, err))
}

func notStartedText(name string, err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound) && strings.Contains(name, "/"):
		return fmt.Sprintf("airlock run: %s: no such file: check the path; nothing was run", name)
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Sprintf("airlock run: %s: command not found on PATH: check the name, or give its path (airlock run -- ./%s); nothing was run", name, name)
	case errors.Is(err, fs.ErrPermission):
		file := name
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			file = pe.Path
		}
		st, serr := os.Stat(file)
		switch {
		case serr == nil && st.IsDir():
			return fmt.Sprintf("airlock run: %s: is a directory, not a command; nothing was run", file)
		case serr == nil && st.Mode()&0o111 == 0:
			return fmt.Sprintf("airlock run: %s: permission denied: it is not executable (chmod +x %s); nothing was run", file, file)
		}
		return fmt.Sprintf("airlock run: %s: permission denied: the sandbox does not let it run (execute is granted on the system trees, the home and the workspace: airlock run -v lists them); nothing was run", file)
	case errors.Is(err, fs.ErrNotExist):
		// the command was found; the exec of it failed ENOENT: what is
		// missing is what it needs to start
		file := name
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			file = pe.Path
		}
		if interp := shebang(file); interp != "" {
			return fmt.Sprintf("airlock run: %s: its interpreter %s is not there: install it or fix the script's #! line; nothing was run", file, interp)
		}
		return fmt.Sprintf("airlock run: %s: a file it needs to start is not there (its #! interpreter or its ELF loader); nothing was run", file)
	}
	return fmt.Sprintf("airlock run: %s did not start: %v", name, err)
}

// shebang is the interpreter a script's #! line names, "" when file is
// not a script.
func shebang(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	var head [256]byte
	n, _ := io.ReadFull(f, head[:])
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

func newSession() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}

// runRecorder is airlock run's audit log: the egress proxy's records, the
// stop at a signal, the session's end. After the end nothing is written
// (a connection decided after it is refused as unrecorded).
type runRecorder struct {
	log    *audit.Log
	home   string
	stderr io.Writer

	mu    sync.Mutex
	ended bool
}

// errSessionEnded refuses a record after the session's last.
var errSessionEnded = errors.New("airlock run: the session has ended; nothing more is recorded")

func (r *runRecorder) append(rec audit.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return errSessionEnded
	}
	_, err := r.log.Append(rec)
	return err
}

// write appends rec, telling the person when it did not land.
func (r *runRecorder) write(rec audit.Record) {
	what := strings.TrimPrefix(rec.Event, "sandbox_")
	switch err := r.append(rec); {
	case err == nil, errors.Is(err, errSessionEnded):
	case audit.Written(err):
		fmt.Fprintf(r.stderr, "airlock run: the session %s is recorded, its checkpoint not: %v\n", what, err)
	default:
		fmt.Fprintf(r.stderr, "airlock run: record the session %s: %s\n", what, audit.Unwritable(err, r.home))
	}
}

// finish writes the session's last record (with its checkpoint) and
// closes the log; it waits for a record being written at a signal.
func (r *runRecorder) finish(rec audit.Record) {
	r.write(rec)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	_ = r.log.Close()
}
