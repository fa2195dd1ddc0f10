package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/doctor"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/urfave/cli/v2"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "verify the audit chain (exit 0 intact, 1 broken or cannot verify, 2 tail unprovable)",
		Description: "Checks every record, segment, the ledger and the checkpoint; with AIRLOCK_SIGN their\n" +
			"signatures; with AIRLOCK_ANCHOR_DIR (or --anchor-dir) the external anchors.\n" +
			"--anchor appends an anchor for the verified head after a clean verify.\n" +
			"An intact log may carry warnings (records a stopped writer left after the checkpoint, a\n" +
			"break sealed by airlock audit seal): they are printed and exit 0; --strict exits 2 on them.\n" +
			"A home that does not exist is an error (exit 1), naming it.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "anchor", Usage: "after a clean verify, append an anchor for the head to the anchor directory"},
			&cli.StringFlag{Name: "anchor-dir", Usage: "check (and with --anchor, write) anchors in `DIR` (default $" + audit.AnchorDirEnv + ")"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "export", Usage: "check a receiver's copy in `FILE` (syslog lines or OTLP JSON from airlock forward) without the machine: exit 0 whole, 1 broken, 2 partial (starts mid-chain)"},
			&cli.StringFlag{Name: "from", Usage: "with --export: the copy is expected to start after the record with h `HASH` (or at it; 12+ hex digits), not at the chain's first record"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 2 when an intact log has warnings (unconfirmed records, sealed breaks)"},
		},
		Action: runVerify,
	}
}

func runVerify(c *cli.Context) error {
	if path := c.String("export"); path != "" {
		return runVerifyExport(c, path)
	}
	if c.IsSet("from") {
		return exitWith(64, "airlock verify: --from goes with --export FILE (where a receiver's copy is expected to start)")
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock verify: %v", err)
	}
	vo, err := verifyOptions(env, c.String("anchor-dir"))
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "airlock verify: warning: %v\n", err)
	}
	dir := vo.AnchorDir
	if c.Bool("anchor") && dir == "" {
		return exitWith(1, "airlock verify --anchor: no anchor directory: pass --anchor-dir DIR or set %s (a directory the agent cannot rewrite)", audit.AnchorDirEnv)
	}
	if err := requireHome(env.AirlockHome); err != nil {
		return exitWith(1, "airlock verify: %v", err)
	}
	rep, err := audit.VerifyWith(env.AirlockHome, vo)
	if err != nil {
		return exitWith(1, "airlock verify: %v", err)
	}
	w := c.App.Writer
	anchored := ""
	if c.Bool("anchor") && rep.Status == audit.Intact {
		count, last, err := audit.AnchorNow(env.AirlockHome, dir)
		if err != nil {
			return exitWith(1, "airlock verify --anchor: %v", err)
		}
		anchored = fmt.Sprintf("anchored: %d records (last h %.12s…) in %s", count, last, textsafe.Escape(dir))
		// report what the log is worth now that the anchor is there
		if again, err := audit.VerifyWith(env.AirlockHome, vo); err == nil && again.Status == audit.Intact {
			rep = again
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitWith(1, "airlock verify: %v", err)
		}
	} else {
		printReport(w, rep, anchored)
	}
	switch {
	case rep.Status == audit.Intact && len(rep.Warnings) > 0 && c.Bool("strict"):
		return exitWith(int(audit.TailUnprovable), "--strict: intact, but with %d warning(s)", len(rep.Warnings))
	case rep.Status == audit.Intact:
		return nil
	case c.Bool("anchor"):
		fmt.Fprintln(c.App.ErrWriter, "not anchored: only an intact log is anchored")
	}
	if rep.Status == audit.TailUnprovable {
		return exitWith(int(rep.Status), "tail unprovable: %d records chain correctly, but nothing proves that no records were cut from the end", rep.Records)
	}
	return exitWith(int(rep.Status), "BROKEN: the audit log was altered (%d problem(s))", len(rep.Problems))
}

// verifyOptions are what the log is checked with: the managed policy's
// signing mode and anchor directory over AIRLOCK_SIGN and
// AIRLOCK_ANCHOR_DIR (flag, --anchor-dir, names another directory). A
// managed machine whose policy does not load is checked as the
// environment says, and the error says so.
func verifyOptions(env home.Env, flag string) (audit.VerifyOptions, error) {
	cwd, _ := os.Getwd()
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		p = nil
		if home.ManagedInForce() {
			err = fmt.Errorf("the policy does not load, so the managed policy's audit requirement (signing, anchors) is not applied to this check: %w", err)
		} else {
			err = nil
		}
	}
	vo := doctor.VerifyOptions(p, flag)
	if vo.AnchorDir == "" {
		vo.AnchorDir = os.Getenv(audit.AnchorDirEnv)
	}
	return vo, err
}

// printReport writes one line per problem ("FILE line N: kind: message"),
// the notes, the verdict for an intact log and, last, the strength.
func printReport(w io.Writer, rep *audit.Report, anchored string) {
	for _, p := range rep.Problems {
		file := textsafe.Escape(p.File)
		if p.Line > 0 {
			fmt.Fprintf(w, "%s line %d: %s: %s\n", file, p.Line, p.Kind, textsafe.Escape(p.Message))
		} else {
			fmt.Fprintf(w, "%s: %s: %s\n", file, p.Kind, textsafe.Escape(p.Message))
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", textsafe.Escape(n))
	}
	for _, x := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s: %s\n", x.Kind, textsafe.Escape(x.Message))
	}
	if rep.Status == audit.Intact {
		what := "chain and checkpoint verified"
		if rep.Signing != "" {
			what = "chain, checkpoint and signatures verified"
		}
		if rep.Anchors > 0 {
			what += fmt.Sprintf(", %d anchor(s) hold", rep.Anchors)
		}
		if len(rep.Warnings) > 0 {
			what += fmt.Sprintf(" (%d warning(s) above)", len(rep.Warnings))
		}
		fmt.Fprintf(w, "intact: %d records, %s\n", rep.Records, what)
	}
	if anchored != "" {
		fmt.Fprintln(w, anchored)
	}
	fmt.Fprintf(w, "strength: %s\n", textsafe.Escape(rep.Strength))
}

// requireHome refuses a home that is not there: a typo'd AIRLOCK_HOME
// must not verify as an intact log of 0 records. An existing home with no
// log is judged by audit.Verify (0 records, or a deletion if the chain was
// started: audit.GenesisFile).
func requireHome(home string) error {
	st, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: there is no Airlock home there (check AIRLOCK_HOME; airlock init creates it)", textsafe.Escape(home))
	case err != nil:
		return fmt.Errorf("%s: %w", textsafe.Escape(home), err)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory: it cannot be an Airlock home (check AIRLOCK_HOME)", textsafe.Escape(home))
	}
	return nil
}
