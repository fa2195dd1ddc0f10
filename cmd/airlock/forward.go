package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentairlock/airlock/forward"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

func forwardCommand() *cli.Command {
	return &cli.Command{
		Name:  "forward",
		Usage: "ship the audit chain to syslog (RELP, TLS, TCP, UDP) or an OpenTelemetry Collector, continuously",
		Description: "Follows the chain across rotations and sends every record at least once, in order, to each\n" +
			"--target: relp://HOST:PORT (acknowledged), tls://HOST:PORT?ca=FILE (RFC 5425), tcp://HOST:PORT,\n" +
			"udp://HOST:PORT (add ?format=cef for ArcSight), otlp+http://HOST:4318 or otlp+https://HOST:4318.\n" +
			"A cursor per target ($AIRLOCK_HOME/forward/) advances only on the receiver's confirmation; a\n" +
			"receiver that is down is retried with backoff and nothing is dropped. docs/forwarding.md says\n" +
			"what each transport promises. --print-unit writes a systemd user unit or a launchd agent.\n" +
			"With no --target, the managed policy's export: list names the receivers.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "target", Usage: "a receiver `URL` (repeat for several)"},
			&cli.IntFlag{Name: "batch", Value: 256, Usage: "records per batch: the most held in memory per target"},
			&cli.DurationFlag{Name: "heartbeat", Value: forwardDefaultHeartbeat, Usage: "interval between heartbeats"},
			&cli.DurationFlag{Name: "poll", Value: forwardDefaultPoll, Usage: "how often the log is read for new records"},
			&cli.BoolFlag{Name: "once", Usage: "ship what the log holds, send a heartbeat and exit"},
			&cli.BoolFlag{Name: "quiet", Usage: "print only errors"},
			&cli.StringFlag{Name: "print-unit", Usage: "print a service definition for these flags: `systemd|launchd`"},
		},
		Action: runForward,
	}
}

const (
	forwardDefaultHeartbeat = 60 * time.Second
	forwardDefaultPoll      = time.Second
)

func runForward(c *cli.Context) error {
	raw := c.StringSlice("target")
	if len(raw) == 0 {
		env, err := home.FromOS()
		if err != nil {
			return exitWith(1, "airlock forward: %v", err)
		}
		targets, file, err := managedTargets(env)
		if err != nil {
			return exitWith(1, "airlock forward: no --target, and the policy that could name them does not load: %v", err)
		}
		if len(targets) == 0 {
			return exitWith(64, "airlock forward: no --target: name at least one receiver (relp://HOST:PORT, tls://HOST:PORT?ca=FILE, otlp+http://HOST:4318, …), or list them under export: in the managed policy %s", home.ManagedFile())
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.ErrWriter, "airlock forward: the targets of the managed policy %s: %s\n", file, strings.Join(targets, ", "))
		}
		raw = targets
	}
	var targets []forward.Target
	for _, r := range raw {
		t, err := forward.ParseTarget(r)
		if err != nil {
			return exitWith(64, "airlock forward: %v", err)
		}
		targets = append(targets, t)
	}
	if kind := c.String("print-unit"); kind != "" {
		return printUnit(c, kind)
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock forward: %v", err)
	}
	if err := requireHome(env.AirlockHome); err != nil {
		return exitWith(1, "airlock forward: %v", err)
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	host, _ := os.Hostname()
	var status io.Writer = &lockedWriter{w: c.App.ErrWriter}
	if c.Bool("quiet") {
		status = nil
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = forward.Run(ctx, forward.Config{
				Home: env.AirlockHome, Target: t, Host: host, Version: version,
				Batch: c.Int("batch"), Heartbeat: c.Duration("heartbeat"), Poll: c.Duration("poll"),
				Once: c.Bool("once"), Status: status,
			})
			if errs[i] != nil {
				stop() // one target that cannot go on stops the others: a service manager restarts the whole
			}
		}()
	}
	wg.Wait()
	var msgs []string
	for i, err := range errs {
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", targets[i].Raw, err))
		}
	}
	if len(msgs) > 0 {
		return exitWith(1, "airlock forward: %s", strings.Join(msgs, "; "))
	}
	return nil
}

func printUnit(c *cli.Context, kind string) error {
	bin, err := os.Executable()
	if err != nil {
		return exitWith(1, "airlock forward --print-unit: %v", err)
	}
	if abs, err := filepath.EvalSymlinks(bin); err == nil {
		bin = abs
	}
	var args []string
	for _, t := range c.StringSlice("target") {
		args = append(args, "--target", t)
	}
	for _, f := range []string{"batch", "heartbeat", "poll"} {
		if c.IsSet(f) {
			args = append(args, "--"+f, fmt.Sprint(c.Value(f)))
		}
	}
	if c.Bool("quiet") {
		args = append(args, "--quiet")
	}
	unit, err := forward.Unit(kind, bin, args, os.Getenv("AIRLOCK_HOME"))
	if err != nil {
		return exitWith(64, "airlock forward --print-unit: %v", err)
	}
	_, err = io.WriteString(c.App.Writer, unit)
	return err
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// runVerifyExport is airlock verify --export FILE: a receiver's copy,
// checked without the machine.
func runVerifyExport(c *cli.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return exitWith(1, "airlock verify --export: %v", err)
	}
	defer f.Close()
	from := c.String("from")
	if from != "" && !forward.ValidHashPrefix(from) {
		return exitWith(64, "airlock verify --export: --from %q is not a record hash: give 12 to 64 hex digits of an h (verify --export prints where a copy starts)", textsafe.Escape(from))
	}
	rep, err := forward.VerifyExportWith(f, forward.ExportOptions{From: from})
	if err != nil {
		return exitWith(1, "airlock verify --export %s: %v", textsafe.Escape(path), err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		if len(rep.Chains) == 0 {
			fmt.Fprintf(w, "%s: no airlock records (%d other lines)\n", textsafe.Escape(path), rep.Other)
		}
		for _, ch := range rep.Chains {
			verdict := "complete and unedited"
			switch ch.Status {
			case forward.CopyBroken:
				verdict = "BROKEN"
			case forward.CopyPartial:
				verdict = "PARTIAL (links hold, but the copy starts mid-chain)"
			}
			fmt.Fprintf(w, "chain %s: %s — %d records (%d recomputed from the stored line), %d duplicates dropped by h\n",
				orDash(short12(ch.Chain)), verdict, ch.Records, ch.Verified, ch.Duplicates)
			if ch.Records > 0 {
				from := "from the chain's first record"
				if !ch.FromStart {
					from = "from the record after " + short12(ch.First)
				}
				order := "in order"
				if !ch.InOrder {
					order = "out of order"
				}
				fmt.Fprintf(w, "  %s to %s, %s\n", from, short12(ch.Last), order)
			}
			if s := ch.Start; s != nil && !ch.FromStart {
				fmt.Fprintf(w, "  starts after prev %s\n", s.Prev)
				at := "  first record h " + s.H
				if s.Event != "" {
					at += ", " + textsafe.Escape(s.Event)
				}
				if s.Segment > 0 {
					at += fmt.Sprintf(" of segment %d", s.Segment)
				}
				if s.Time != "" {
					at += " at " + textsafe.Escape(s.Time)
				}
				fmt.Fprintln(w, at)
				switch {
				case ch.FromGiven:
					fmt.Fprintf(w, "  reaches back to --from %s: whole from there\n", textsafe.Escape(rep.From))
				case ch.Status == forward.CopyPartial:
					fmt.Fprintf(w, "  what came before is not in this copy: check the receiver's earlier files with it, or pass --from %s if the copy is meant to start there\n", short12raw(s.Prev))
				}
			}
			if b := ch.LastBeat; b != nil {
				fmt.Fprintf(w, "  last heartbeat %s (beat %d, %d shipped, next within %ds)\n", textsafe.Escape(b.Time), b.Seq, b.Shipped, b.EveryS)
			} else {
				fmt.Fprintf(w, "  no heartbeat: a stopped forwarder cannot be told from a quiet one\n")
			}
			for _, n := range ch.Notes {
				fmt.Fprintf(w, "  note: %s\n", textsafe.Escape(n))
			}
			for _, p := range ch.Problems {
				fmt.Fprintf(w, "  problem: %s\n", textsafe.Escape(p))
			}
		}
		if rep.Other > 0 && len(rep.Chains) > 0 {
			fmt.Fprintf(w, "%d lines that are not airlock's were ignored\n", rep.Other)
		}
	}
	switch rep.Status() {
	case forward.CopyWhole:
		return nil
	case forward.CopyPartial:
		return exitWith(2, "")
	}
	return exitWith(1, "")
}

// short12raw is the first 12 characters of h, without the ellipsis (a
// prefix --from accepts).
func short12raw(h string) string { return h[:min(12, len(h))] }

func short12(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// managedTargets is the managed policy's export targets and its file
// (none on a machine that is not managed).
func managedTargets(env home.Env) ([]string, string, error) {
	cwd, _ := os.Getwd()
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return nil, "", err
	}
	return p.ManagedExport(), p.ManagedFile(), nil
}

// forwardService is the forwarder's user service init installs when the
// managed policy names export targets: the unit `airlock forward
// --print-unit` prints, with no --target (the forwarder reads the managed
// policy's when it starts), where the service manager looks for it.
func forwardService(env home.Env, goos string) (*setup.ServiceFile, error) {
	targets, _, err := managedTargets(env)
	if err != nil || len(targets) == 0 {
		return nil, err
	}
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.EvalSymlinks(bin); err == nil {
		bin = abs
	}
	var kind, path, next string
	switch goos {
	case "linux":
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(cfg) {
			cfg = filepath.Join(env.Home, ".config")
		}
		kind, path = forward.UnitSystemd, filepath.Join(cfg, "systemd", "user", "airlock-forward.service")
		next = "start it: systemctl --user daemon-reload && systemctl --user enable --now airlock-forward.service"
	case "darwin":
		kind, path = forward.UnitLaunchd, filepath.Join(env.Home, "Library", "LaunchAgents", forward.UnitLabel+".plist")
		next = "start it: launchctl bootstrap gui/$(id -u) " + path
	default:
		return nil, nil
	}
	unit, err := forward.Unit(kind, bin, nil, os.Getenv("AIRLOCK_HOME"))
	if err != nil {
		return nil, err
	}
	return &setup.ServiceFile{Path: path, Data: []byte(unit), Next: next + " (it ships the log to " + strings.Join(targets, ", ") + ")"}, nil
}
