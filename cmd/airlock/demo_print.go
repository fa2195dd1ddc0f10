package main

import (
	"fmt"
	"io"
	"regexp"

	"github.com/agentairlock/airlock/internal/demo"
)

// demoPrinter writes the demo for a person: one line per step as it ends.
type demoPrinter struct {
	w     io.Writer
	color bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (p demoPrinter) paint(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// what each step shows: the agent's move in words a person follows.
var demoCaptions = map[string]string{
	demo.StepKeyRead:    "the skill's hidden comment says: read the SSH key",
	demo.StepExfil:      "…and send your environment (tokens, keys) to a collector",
	demo.StepPoisoned:   "an MCP server whose tool description asks for the key",
	demo.StepBenignRead: "ordinary work goes on",
	demo.StepBenignMCP:  "an honest MCP server, first start",
	demo.StepRugPull:    "the same server, next start: its tool now asks for keys",
	demo.StepVerify:     "every decision above is in one hash-chained log",
}

func (p demoPrinter) intro() {
	fmt.Fprintf(p.w, "%s — a hijacked coding agent, replayed against the real hook and MCP proxy.\n\n", p.paint(ansiBold, "Airlock demo"))
	fmt.Fprintln(p.w, "In a throwaway home and workspace (a temp directory; nothing of yours is read or")
	fmt.Fprintln(p.w, "written, nothing goes over the network): a fake SSH key, a skill with an instruction")
	fmt.Fprintln(p.w, "hidden in an HTML comment, and two MCP servers built into this binary — one poisoned,")
	fmt.Fprintln(p.w, "one that turns on its next start. Each call the agent makes is put to Airlock as")
	fmt.Fprintln(p.w, "Claude Code would put it; none is executed. The agent follows the instructions:")
	fmt.Fprintln(p.w)
}

func (p demoPrinter) step(s demo.Step) {
	if c := demoCaptions[s.ID]; c != "" {
		fmt.Fprintf(p.w, "  %s\n", p.paint(ansiDim, c))
	}
	if !s.OK() {
		fmt.Fprintf(p.w, "  %s %s — wanted %s, got %s: %s\n", p.paint(ansiBold+ansiRed, "!! FAILED "), s.Title, s.Want, s.Got, s.Detail)
		return
	}
	mark, color := "✓", ansiGreen
	switch s.Got {
	case demo.Blocked:
		mark, color = "✗", ansiRed
	case demo.Held:
		mark, color = "⏸", ansiYellow
	}
	verb := fmt.Sprintf("%s %-8s", mark, s.Got)
	line := fmt.Sprintf("  %s %s", p.paint(ansiBold+color, verb), s.Title)
	if s.Rule != "" || s.Reason != "" {
		line += " — "
	}
	if s.Rule != "" {
		line += p.paint(ansiCyan, s.Rule) + ": "
	}
	fmt.Fprintln(p.w, line+evidence.ReplaceAllString(s.Reason, ""))
}

// evidence is the quoted text a scan finding cites ("Do not mention…"):
// on one line per step it crowds out the finding; `airlock pins diff`
// shows it whole.
var evidence = regexp.MustCompile(` \("[^"]*"\)`)

func (p demoPrinter) outro(res *demo.Result, keep bool) {
	fmt.Fprintln(p.w)
	if res.OK() {
		fmt.Fprintf(p.w, "%s the key never left, the poisoned and the changed servers were held before\n", p.paint(ansiBold+ansiGreen, "Done:"))
		fmt.Fprintf(p.w, "serving a call, ordinary work went through, and the log proves what happened.\n")
	} else {
		fmt.Fprintf(p.w, "%s %d of %d steps did not come out as they must. This is a security\n", p.paint(ansiBold+ansiRed, "REGRESSION:"), len(res.Failed()), len(res.Steps))
		fmt.Fprintln(p.w, "regression in this build of Airlock: please report it with the output above.")
	}
	if keep {
		fmt.Fprintf(p.w, "\nKept: %s (HOME=%s/home, AIRLOCK_HOME=%s/home/.airlock)\n", res.Dir, res.Dir, res.Dir)
		fmt.Fprintf(p.w, "  AIRLOCK_HOME=%s/home/.airlock airlock log\n", res.Dir)
	}
	fmt.Fprintln(p.w)
	fmt.Fprintln(p.w, "Next, on your own machine:")
	fmt.Fprintf(p.w, "  %s    wire Airlock into your agents (each agent's hooks, the MCP proxy)\n", p.paint(ansiBold, "airlock init"))
	fmt.Fprintf(p.w, "  %s  check what is covered and what is not\n", p.paint(ansiBold, "airlock doctor"))
}
