package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/notify"
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
		ArgsUsage: "[--require-landlock N] [--no-egress-proxy] [--yes] -- CMD ARGS…",
		Description: "A destination the policy asks about goes to the ask channel (AIRLOCK_ASK_BACKEND:\n" +
			"socket,tty,desktop,fallback): run \"airlock askd\" in another terminal to answer.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "require-landlock", Usage: "refuse to run unless the kernel offers Landlock ABI `N` or newer (AIRLOCK_REQUIRE_SANDBOX=1: 4)"},
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
	env, err := gate.EnvFromOS()
	if err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	p, err := gate.Load(env, cwd)
	if err != nil {
		return exitWith(exitConfig, "airlock run: the policy did not load; nothing was started:\n%v", err)
	}
	if err := home.Make(env.AirlockHome); err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	log, err := audit.Open(env.AirlockHome)
	if err != nil {
		return exitWith(exitConfig, "airlock run: open the audit log; nothing was started: %v", err)
	}
	defer log.Close()
	session := newSession()
	childEnv := os.Environ()

	opt := sandbox.Options{Argv: argv, Dir: cwd, Policy: p, RequireABI: require, MaxABI: c.Int("pretend-abi")}
	notes := notify.New(notify.Options{AirlockHome: env.AirlockHome, Getenv: env.Getenv})
	defer notes.Wait()
	if !c.Bool("no-egress-proxy") {
		asker, err := gate.AskChannel(p, env.AirlockHome, c.Bool("yes"))
		if err != nil {
			return exitWith(exitConfig, "airlock run: %v; nothing was started", err)
		}
		eg, err := sandbox.StartEgress(sandbox.EgressOptions{
			Policy:  p,
			Ask:     asker,
			Session: session,
			Record: func(r audit.Record) error {
				_, err := log.Append(r)
				if r.Effective == "block" {
					notes.Blocked(notify.Block{Source: "airlock run", Tool: r.Tool, Target: r.Target, Rule: r.Rule, Reason: r.Reason, Fix: "airlock report"})
				}
				return err
			},
		})
		if err != nil {
			return exitWith(exitConfig, "airlock run: the egress proxy did not start; nothing was started: %v", err)
		}
		defer eg.Close()
		_, port, _ := net.SplitHostPort(eg.Addr())
		opt.EgressPort, _ = strconv.Atoi(port)
		childEnv = append(childEnv, eg.Env()...)
	}
	opt.Env = childEnv

	plan, err := sandbox.Prepare(opt)
	if errors.Is(err, sandbox.ErrKernelTooOld) {
		return exitWith(exitConfig, "airlock run: %v; nothing was started (drop --require-landlock / AIRLOCK_REQUIRE_SANDBOX to run with what the kernel has)", err)
	}
	if err != nil {
		return exitWith(exitConfig, "airlock run: %v", err)
	}
	defer plan.Close()
	rep := plan.Report()
	if require > 0 && !rep.Seccomp {
		return exitWith(exitConfig, "airlock run: a sandbox was required and seccomp is off (%s); nothing was started", rep.SeccompWhy)
	}
	fmt.Fprint(c.App.ErrWriter, rep.Banner())

	digest := gate.ConfigOf("run", p, env.Getenv).Fingerprint()
	if _, err := log.Append(audit.Record{
		Event: "sandbox_start", Source: "cli", Session: session, Tool: "run", Mode: p.Mode.String(),
		Target: audit.Escape(strings.Join(argv, " ")),
		Detail: audit.Escape(fmt.Sprintf("cwd=%q policy=%s %s", cwd, digest, rep.AuditDetail())),
	}); err != nil {
		return exitWith(exitConfig, "airlock run: record the session start; nothing was started: %v", err)
	}
	status, runErr := plan.Run()
	end := audit.Record{Event: "sandbox_end", Source: "cli", Session: session, Tool: "run",
		Effective: "exit " + strconv.Itoa(status), Detail: fmt.Sprintf("exit_status=%d", status)}
	if runErr != nil {
		end.Effective, end.Detail = "error", audit.Escape(runErr.Error())
		status = 126
	}
	if _, err := log.Append(end); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "airlock run: record the session end: %v\n", err)
	}
	if runErr != nil {
		return exitWith(status, "airlock run: %v", runErr)
	}
	return exitWith(status, "")
}

func newSession() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}
