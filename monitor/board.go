package monitor

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"

	"github.com/agentairlock/airlock/audit"
)

// Source is what the board polls for new records; *Follower is one.
type Source interface {
	Poll() (Batch, error)
}

// Show selects which records the board lists.
type Show int

// What the board lists.
const (
	ShowAll    Show = iota // every record
	ShowBlocks             // records whose call did not run (see stopped)
	ShowAsks               // records that count as asks
)

func (s Show) String() string {
	switch s {
	case ShowBlocks:
		return "blocks"
	case ShowAsks:
		return "asks"
	}
	return "all"
}

// The board's own messages.
type (
	tickMsg   struct{}
	pollError struct {
		err   error
		batch Batch // what was read before the error
	}
)

// Board is the bubbletea model of `airlock monitor`: counts, chain status
// and a scrolling, filterable list of the newest records. It holds at most
// keep records; counts cover every record the follower has read.
type Board struct {
	home     string
	src      Source
	interval time.Duration

	ring   []audit.Record
	next   int // oldest record once the ring is full
	counts Counts
	chain  Chain
	err    string

	show    Show
	text    string // applied text filter, lower case
	editing bool
	input   string
	offset  int // rows scrolled back from the newest

	width, height int
}

// NewBoard returns a board for the log in home that starts from first (the
// follower's Start) and polls src every interval; a nil src never polls.
func NewBoard(home string, src Source, first Batch, keep int, interval time.Duration) *Board {
	b := &Board{home: home, src: src, interval: interval, ring: make([]audit.Record, 0, max(keep, 1)), width: 120, height: 40}
	b.add(first)
	return b
}

// Init starts polling.
func (b *Board) Init() tea.Cmd {
	return b.tick()
}

func (b *Board) tick() tea.Cmd {
	if b.src == nil {
		return nil
	}
	return tea.Tick(b.interval, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles keys, window sizes and what the follower read.
func (b *Board) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		b.width, b.height = msg.Width, msg.Height
	case tickMsg:
		src := b.src
		return b, func() tea.Msg {
			batch, err := src.Poll()
			if err != nil {
				return pollError{err: err, batch: batch}
			}
			return batch
		}
	case Batch:
		b.err = ""
		b.add(msg)
		return b, b.tick()
	case pollError:
		ch := b.chain
		b.add(msg.batch)
		if msg.batch.Chain == (Chain{}) { // the source said nothing about the chain
			b.chain = ch
		}
		b.err = msg.err.Error()
		return b, b.tick()
	case tea.KeyMsg:
		if b.editing {
			return b, b.editKey(msg)
		}
		return b, b.key(msg)
	}
	return b, nil
}

// add takes in a batch. While the view is scrolled back, it stays on the
// same records instead of moving with every new one.
func (b *Board) add(batch Batch) {
	b.counts = b.counts.Plus(batch.Earlier)
	for _, r := range batch.Records {
		b.counts.Add(r)
		if b.offset > 0 && b.keeps(r) {
			b.offset++
		}
		if len(b.ring) < cap(b.ring) {
			b.ring = append(b.ring, r)
			continue
		}
		b.ring[b.next] = r
		b.next = (b.next + 1) % len(b.ring)
	}
	b.chain = batch.Chain
	b.clamp()
}

func (b *Board) key(msg tea.KeyMsg) tea.Cmd {
	page := max(b.rows()-1, 1)
	switch msg.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "a":
		b.show, b.text, b.offset = ShowAll, "", 0
	case "b":
		b.show, b.offset = ShowBlocks, 0
	case "k":
		b.show, b.offset = ShowAsks, 0
	case "/":
		b.editing, b.input = true, b.text
	case "esc":
		b.text, b.offset = "", 0
	case "up":
		b.offset++
	case "down":
		b.offset--
	case "pgup":
		b.offset += page
	case "pgdown":
		b.offset -= page
	case "home":
		b.offset = len(b.ring)
	case "end":
		b.offset = 0
	}
	b.clamp()
	return nil
}

func (b *Board) editKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyCtrlC:
		return tea.Quit
	case tea.KeyEnter:
		b.text, b.editing, b.offset = strings.ToLower(b.input), false, 0
	case tea.KeyEsc:
		b.editing = false
	case tea.KeyBackspace:
		if r := []rune(b.input); len(r) > 0 {
			b.input = string(r[:len(r)-1])
		}
	case tea.KeySpace:
		b.input += " "
	case tea.KeyRunes:
		b.input += string(msg.Runes)
	}
	b.clamp()
	return nil
}

// clamp keeps the scroll offset within the listed records.
func (b *Board) clamp() {
	b.offset = min(b.offset, b.listed()-b.rows())
	b.offset = max(b.offset, 0)
}

// rows is how many records fit: the screen less the two status lines, the
// note line, the column header and the key help.
func (b *Board) rows() int {
	return max(b.height-5, 1)
}

// keeps reports whether the current filters list r.
func (b *Board) keeps(r audit.Record) bool {
	switch b.show {
	case ShowBlocks:
		if !stopped(r) {
			return false
		}
	case ShowAsks:
		if KindOf(r) != KindAsk {
			return false
		}
	}
	if b.text == "" {
		return true
	}
	for _, s := range []string{r.Tool, r.Target, r.Rule} {
		if strings.Contains(strings.ToLower(s), b.text) || strings.Contains(strings.ToLower(audit.Escape(s)), b.text) {
			return true
		}
	}
	return false
}

// each calls fn for the kept records, oldest first.
func (b *Board) each(fn func(audit.Record)) {
	for i := range b.ring {
		r := b.ring[(b.next+i)%len(b.ring)]
		if b.keeps(r) {
			fn(r)
		}
	}
}

func (b *Board) listed() int {
	n := 0
	b.each(func(audit.Record) { n++ })
	return n
}

// Counts returns the counts the board shows.
func (b *Board) Counts() Counts { return b.counts }

// View draws the board. Every string from a record is escaped.
func (b *Board) View() string {
	w := max(b.width, 40)
	lines := make([]string, 0, b.height)
	lines = append(lines, spread("airlock monitor  "+audit.Escape(b.home), b.chain.String(), w))
	filter := "showing " + b.show.String()
	if b.text != "" {
		filter += fmt.Sprintf(" matching %q", audit.Escape(b.text))
	}
	lines = append(lines, spread(fmt.Sprintf("allow %d   ask %d   block %d   hold %d", b.counts.Allow, b.counts.Ask, b.counts.Block, b.counts.Hold), filter, w))

	var kept []audit.Record
	b.each(func(r audit.Record) { kept = append(kept, r) })
	note := ""
	switch {
	case b.err != "":
		note = "error: " + audit.Escape(b.err)
	case len(b.ring) == 0:
		note = "no records yet: waiting for " + audit.Escape(b.home) + "/" + audit.LogFile
	case len(kept) == 0:
		note = "no records match"
	case b.offset > 0:
		note = fmt.Sprintf("scrolled back: %d newer below (End to follow)", b.offset)
	}
	lines = append(lines, fit(note, w))

	cols := columnsFor(w)
	lines = append(lines, cols.row([]string{"TIME(UTC)", "SRC", "RESULT", "TOOL", "TARGET", "RULE", "REASON"}))
	end := len(kept) - b.offset
	start := max(end-b.rows(), 0)
	for _, r := range kept[start:max(end, start)] {
		lines = append(lines, cols.row(cells(r)))
	}
	for len(lines) < b.height-1 {
		lines = append(lines, "")
	}
	help := "a all · b blocks · k asks · / filter · esc clear · ↑↓ PgUp PgDn scroll · End follow · q quit"
	if b.editing {
		help = "filter tool/target/rule: " + audit.Escape(b.input) + "_   (enter apply · esc cancel)"
	}
	return strings.Join(append(lines, fit(help, w)), "\n")
}

// cells are a record's columns, escaped.
func cells(r audit.Record) []string {
	t := r.Time
	if len(t) >= len("2006-01-02T15:04:05") {
		t = t[len("2006-01-02T"):len("2006-01-02T15:04:05")]
	}
	reason := r.Reason
	if r.Asked != "" {
		reason = "(asked: " + r.Asked + ") " + reason
	} else if d := r.Decision; r.Event == "decision" && d != "" && d != effective(r) {
		reason = "(policy: " + d + ") " + reason
	}
	if r.Event == audit.EventMalformed {
		reason = r.Detail
	}
	out := []string{t, r.Source, result(r), r.Tool, r.Target, r.Rule, reason}
	for i := range out {
		out[i] = audit.Escape(out[i])
	}
	return out
}

// result is what happened to the call, or the event of a record that is
// not a decision.
func result(r audit.Record) string {
	switch KindOf(r) {
	case KindHold:
		return "hold"
	case KindOther:
		if r.Event != "decision" {
			return r.Event
		}
	}
	if r.Asked != "" {
		return "ask→" + effective(r)
	}
	return effective(r)
}

// columns are the display widths of the seven columns.
type columns [7]int

func columnsFor(w int) columns {
	c := columns{9, 5, 13, 0, 0, 0, 0}
	rest := w - (c[0] + c[1] + c[2]) - 6 // six separating spaces
	c[3] = min(16, rest/5)
	c[5] = min(20, rest/4)
	c[4] = (rest - c[3] - c[5]) / 2
	c[6] = rest - c[3] - c[4] - c[5]
	return c
}

func (c columns) row(vals []string) string {
	var sb strings.Builder
	for i, v := range vals {
		if i > 0 {
			sb.WriteByte(' ')
		}
		switch i {
		case len(vals) - 1:
			sb.WriteString(runewidth.Truncate(v, c[i], "…"))
		case targetColumn:
			sb.WriteString(runewidth.FillRight(truncMiddle(v, c[i]), c[i]))
		default:
			sb.WriteString(runewidth.FillRight(runewidth.Truncate(v, c[i], "…"), c[i]))
		}
	}
	return strings.TrimRight(sb.String(), " ")
}

// targetColumn is cut in the middle: the end of a path or command is
// what tells one target from another.
const targetColumn = 4

// truncMiddle cuts s to width w by replacing its middle with "…".
func truncMiddle(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	if w < 8 {
		return runewidth.Truncate(s, w, "…")
	}
	head := runewidth.Truncate(s, w/3, "")
	room := w - runewidth.StringWidth(head) - 1
	rs := []rune(s)
	i, tail := len(rs), 0
	for i > 0 && tail+runewidth.RuneWidth(rs[i-1]) <= room {
		tail += runewidth.RuneWidth(rs[i-1])
		i--
	}
	return head + "…" + string(rs[i:])
}

// spread puts left and right on one line of width w, cutting left first.
func spread(left, right string, w int) string {
	right = runewidth.Truncate(right, w, "…")
	room := w - runewidth.StringWidth(right) - 2
	if room < 1 {
		return right
	}
	left = runewidth.Truncate(left, room, "…")
	return left + strings.Repeat(" ", w-runewidth.StringWidth(left)-runewidth.StringWidth(right)) + right
}

func fit(s string, w int) string {
	return runewidth.Truncate(s, w, "…")
}
