package monitor

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// recordView is one record opened in full: every field, escaped, wrapped
// to the screen and scrolled by line. It holds a copy, so new records do
// not change it.
type recordView struct {
	rec    audit.Record
	scroll int // first body line shown
}

// fields are a record's fields in the log's order, with their JSON names.
func fields(r audit.Record) [][2]string {
	return [][2]string{
		{"ts", r.Time}, {"event", r.Event}, {"source", r.Source}, {"session", r.Session}, {"tool", r.Tool},
		{"decision", r.Decision}, {"effective", r.Effective}, {"mode", r.Mode}, {"asked", r.Asked},
		{"rule", r.Rule}, {"target", r.Target}, {"reason", r.Reason}, {"detail", r.Detail},
		{"args_digest", r.ArgsDigest}, {"prev", r.Prev}, {"h", r.H}, {"alg", r.Alg}, {"sig", r.Sig},
	}
}

// nameWidth is the width of the field-name column.
const nameWidth = len("args_digest") + 2

// body is the record's lines at width w: what happened, the observe flag,
// then every field (empty ones as "-"), long values wrapped.
func (v *recordView) body(w int, color bool) []string {
	r := v.rec
	lines := []string{fit("result: "+paint(color, resultSGR(r), textsafe.Escape(result(r))), w)}
	if observed(r) {
		lines = append(lines, paint(color, sgrObserved, fit("OBSERVE MODE: this call "+observedNote(r), w)))
	}
	lines = append(lines, "")
	room := max(w-nameWidth, 10)
	for _, f := range fields(r) {
		val := textsafe.Escape(f[1])
		if val == "" {
			val = "-"
		}
		for i, part := range strings.Split(ansi.Hardwrap(val, room, true), "\n") {
			name := ""
			if i == 0 {
				name = f[0]
			}
			lines = append(lines, paint(color, sgrField, fmt.Sprintf("%-*s", nameWidth, name))+part)
		}
	}
	lines = append(lines, "", fit(fmt.Sprintf("strings longer than %d bytes are cut (…) on the board; airlock log --json has them whole", maxField), w))
	return lines
}

// rows is how many body lines fit: the screen less the title and the key
// help.
func recordRows(height int) int { return max(height-2, 1) }

func (v *recordView) render(width, height int, color bool) string {
	w := max(width, 40)
	body := v.body(w, color)
	rows := recordRows(height)
	v.scroll = max(min(v.scroll, len(body)-rows), 0)
	end := min(v.scroll+rows, len(body))
	lines := make([]string, 0, height)
	lines = append(lines, spread(paint(color, sgrTitle, "airlock monitor")+"  record", fmt.Sprintf("lines %d-%d of %d", v.scroll+1, end, len(body)), w))
	lines = append(lines, body[v.scroll:end]...)
	for len(lines) < height-1 {
		lines = append(lines, "")
	}
	help := "↑↓ PgUp PgDn Home End scroll · esc or q back to the list · ctrl+c quit"
	return strings.Join(append(lines, paint(color, sgrKeyHelp, fit(help, w))), "\n")
}

// recordKey handles a key while a record is open.
func (b *board) recordKey(msg tea.KeyPressMsg) tea.Cmd {
	v := b.open
	page := max(recordRows(b.height)-1, 1)
	switch msg.String() {
	case "ctrl+c":
		return tea.Quit
	case "esc", "q", "backspace", "enter":
		b.open = nil
	case "up":
		v.scroll--
	case "down":
		v.scroll++
	case "pgup":
		v.scroll -= page
	case "pgdown", "space":
		v.scroll += page
	case "home":
		v.scroll = 0
	case "end":
		v.scroll = 1 << 30
	}
	if b.open != nil {
		v.scroll = max(min(v.scroll, len(v.body(max(b.width, 40), false))-recordRows(b.height)), 0)
	}
	return nil
}
