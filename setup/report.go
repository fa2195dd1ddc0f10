package setup

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Report is what init or uninstall did (or, under DryRun, would do): one
// line per file and per server.
type Report struct {
	DryRun bool   `json:"dry_run,omitempty"`
	Lines  []line `json:"lines"`
	// Changed counts the files written, created or removed (that would
	// be, under DryRun); Refused, the files and servers left alone because
	// editing them was not safe.
	Changed int `json:"changed"`
	Refused int `json:"refused"`
}

// line is one thing done to (or found in) one file or one server.
type line struct {
	Path   string `json:"path"`
	Agent  string `json:"agent,omitempty"`
	Server string `json:"server,omitempty"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

// Actions. A change is written in the past tense, or, under DryRun, as
// "would" and the verb.
const (
	actWrapped        = "wrapped"
	actAlreadyWrapped = "already wrapped"
	actRemote         = "remote: not wrapped"
	actLeftAlone      = "left alone"
	actSkipped        = "skipped"
	actRefused        = "refused"
	actBackedUp       = "backed up to"
	actCreated        = "created"
	actHookWired      = "hook wired"
	actHookPresent    = "hook already wired"
	actHookTrusted    = "Codex trusts airlock-hook's hooks"
	actTrustPresent   = "Codex already trusts airlock-hook's hooks"
	actTrustMissing   = "warning: Codex does not trust airlock-hook's hooks"
	actHooksDisabled  = "warning: disableAllHooks is set"
	actWrote          = "wrote"
	actUnchanged      = "unchanged"
	actKept           = "kept"
	actKeptEdited     = "kept your edited policy.yaml"
	actRestored       = "restored byte for byte"
	actUnwrapped      = "unwrapped (edited since init)"
	actNoBackup       = "unwrapped (its backup is missing)"
	actServerUnwrap   = "unwrapped"
	actNotWrapped     = "not wrapped"
	actRemovedHook    = "removed airlock-hook"
	actRemoved        = "removed (airlock init created it)"
	actGone           = "gone since init: nothing to restore"
	actNothingLeft    = "nothing of airlock's left in it"
	actPurged         = "purged"
	actNotPurged      = "not purged"
)

// would is each change's form under DryRun (init's: uninstall has none).
var would = map[string]string{
	actWrapped:   "would wrap",
	actBackedUp:  "would back up to",
	actCreated:   "would create",
	actHookWired: "would wire hook",
	// and the trust init would record for Codex
	actHookTrusted: "would record that Codex trusts airlock-hook's hooks",
	actWrote:       "would write",
}

func (r *Report) add(l line) {
	if w, ok := would[l.Action]; ok && r.DryRun {
		l.Action = w
	}
	if l.Action == actRefused {
		r.Refused++
	}
	r.Lines = append(r.Lines, l)
}

func (r *Report) file(path, agent, action, detail string) {
	r.add(line{Path: path, Agent: agent, Action: action, Detail: detail})
}

func (r *Report) server(path, agent, name, action, detail string) {
	r.add(line{Path: path, Agent: agent, Server: name, Action: action, Detail: detail})
}

// String is the line as the commands print it:
//
//	/home/dev/.cursor/mcp.json: backed up to /home/dev/.airlock/backups/…
//	/home/dev/.cursor/mcp.json: github: wrapped
//	/home/dev/.zed/settings.json: figma: remote: not wrapped (http://127.0.0.1:3845/mcp: airlock init does not rewrite Zed's remote entries yet; …)
//
// Names, URLs and paths come from files a repository may ship: control
// characters in them are escaped, so a server name cannot clear the
// screen or rewrite the lines above it.
func (l line) String() string {
	var b strings.Builder
	b.WriteString(printable(l.Path))
	b.WriteString(": ")
	if l.Server != "" {
		b.WriteString(printable(l.Server))
		b.WriteString(": ")
	}
	b.WriteString(l.Action)
	switch {
	case l.Detail == "":
	case strings.HasSuffix(l.Action, " to"):
		b.WriteString(" " + printable(l.Detail))
	default:
		b.WriteString(" (" + printable(l.Detail) + ")")
	}
	return b.String()
}

// printable escapes what a terminal would act on rather than show:
// control characters (C0, DEL, C1), bidirectional overrides, and bytes
// that are not UTF-8.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += w
	}
	return b.String()
}

// Summary is the report's last line.
func (r *Report) Summary() string {
	var s string
	switch {
	case r.Changed == 0 && r.DryRun:
		s = "nothing would change"
	case r.Changed == 0:
		s = "nothing changed"
	case r.DryRun:
		s = fmt.Sprintf("would change %d %s (dry run: nothing written)", r.Changed, plural(r.Changed, "file"))
	default:
		s = fmt.Sprintf("%d %s changed", r.Changed, plural(r.Changed, "file"))
	}
	if r.Refused > 0 {
		s += fmt.Sprintf("; %d refused (see above)", r.Refused)
	}
	return s
}

// WriteText prints every line, then the summary.
func (r *Report) WriteText(w io.Writer) error {
	for _, l := range r.Lines {
		if _, err := fmt.Fprintln(w, l.String()); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
