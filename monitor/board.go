package monitor

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Source is what the board polls for new records; *Follower is one.
type Source interface {
	Poll() (batch, error)
}

// show selects which records the board lists.
type show int

// What the board lists.
const (
	showAll      show = iota // every record
	showBlocks               // records whose call did not run (see stopped)
	showAsks                 // records that count as asks
	showObserved             // calls that ran only because of observe mode
)

func (s show) String() string {
	switch s {
	case showBlocks:
		return "blocks"
	case showAsks:
		return "asks"
	case showObserved:
		return "observe-only runs"
	}
	return "all"
}

// The board's own messages.
type (
	tickMsg   struct{}
	pollError struct {
		err   error
		batch batch // what was read before the error
	}
)

// board is the bubbletea model of `airlock monitor`: counts, chain status
// and a scrolling, filterable list of the newest records, with a cursor
// whose record Enter opens in full. It holds at most keep records; counts
// cover every record the follower has read.
type board struct {
	home     string
	src      Source
	interval time.Duration
	color    bool
	short    shortener

	ring   []audit.Record
	next   int // oldest record once the ring is full
	counts counts
	chain  chain
	err    string

	show    show
	text    string // applied text filter, lower case
	editing bool
	input   string
	offset  int // rows scrolled back from the newest
	cursor  int // the selected row, counted back from the newest listed

	open *recordView // the record Enter opened; nil on the list

	width, height int
}

// NewBoard returns a board for the log in home that starts from first (the
// follower's Start) and polls src every o.Interval, holding o.Keep
// records; a nil src never polls. o.Color turns on colour; o.UserHome is
// the home that paths are shortened to ~ against.
func NewBoard(home string, src Source, first batch, o Options) *board {
	b := &board{home: home, src: src, interval: o.Interval, color: o.Color, short: newShortener(o.UserHome),
		ring: make([]audit.Record, 0, max(o.Keep, 1)), width: 120, height: 40}
	b.add(first)
	return b
}

// Init starts polling.
func (b *board) Init() tea.Cmd {
	return b.tick()
}

func (b *board) tick() tea.Cmd {
	if b.src == nil {
		return nil
	}
	return tea.Tick(b.interval, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles keys, window sizes and what the follower read.
func (b *board) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		b.width, b.height = msg.Width, msg.Height
		b.clamp()
	case tickMsg:
		src := b.src
		return b, func() tea.Msg {
			batch, err := src.Poll()
			if err != nil {
				return pollError{err: err, batch: batch}
			}
			return batch
		}
	case batch:
		b.err = ""
		b.add(msg)
		return b, b.tick()
	case pollError:
		ch := b.chain
		b.add(msg.batch)
		if msg.batch.Chain == (chain{}) { // the source said nothing about the chain
			b.chain = ch
		}
		b.err = msg.err.Error()
		return b, b.tick()
	case tea.KeyPressMsg:
		switch {
		case b.open != nil:
			return b, b.recordKey(msg)
		case b.editing:
			return b, b.editKey(msg)
		}
		return b, b.key(msg)
	case tea.PasteMsg:
		if b.editing {
			b.input += msg.Content
		}
	}
	return b, nil
}

// add takes in a batch. While the view is scrolled back or the cursor is
// off the newest row, view and cursor stay on the same records instead of
// moving with every new one.
func (b *board) add(batch batch) {
	b.counts = b.counts.Plus(batch.Earlier)
	for _, r := range batch.Records {
		b.counts.Add(r)
		if (b.offset > 0 || b.cursor > 0) && b.keeps(r) {
			b.offset++
			b.cursor++
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

func (b *board) key(msg tea.KeyPressMsg) tea.Cmd {
	page := max(b.rows()-1, 1)
	switch msg.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "a":
		b.show, b.text, b.offset, b.cursor = showAll, "", 0, 0
	case "b":
		b.show, b.offset, b.cursor = showBlocks, 0, 0
	case "k":
		b.show, b.offset, b.cursor = showAsks, 0, 0
	case "o":
		b.show, b.offset, b.cursor = showObserved, 0, 0
	case "/":
		b.editing, b.input = true, b.text
	case "esc":
		b.text, b.offset, b.cursor = "", 0, 0
	case "enter":
		if r, ok := b.selected(); ok {
			b.open = &recordView{rec: r}
		}
	case "up":
		b.cursor++
	case "down":
		b.cursor--
	case "pgup":
		b.offset += page
		b.cursor += page
	case "pgdown":
		b.offset -= page
		b.cursor -= page
	case "home":
		b.offset, b.cursor = len(b.ring), len(b.ring)
	case "end":
		b.offset, b.cursor = 0, 0
	}
	b.clamp()
	return nil
}

func (b *board) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.Code {
	case 'c':
		if msg.Mod == tea.ModCtrl {
			return tea.Quit
		}
	case tea.KeyEnter:
		b.text, b.editing, b.offset, b.cursor = strings.ToLower(b.input), false, 0, 0
		b.clamp()
		return nil
	case tea.KeyEscape:
		b.editing = false
		return nil
	case tea.KeyBackspace:
		if r := []rune(b.input); len(r) > 0 {
			b.input = string(r[:len(r)-1])
		}
		return nil
	}
	if msg.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) == 0 {
		b.input += msg.Text
	}
	return nil
}

// clamp keeps the cursor on a listed record and the scroll offset where
// the cursor's row is on screen.
func (b *board) clamp() {
	n, rows := b.listed(), b.rows()
	b.cursor = max(min(b.cursor, n-1), 0)
	if b.cursor < b.offset {
		b.offset = b.cursor
	}
	if b.cursor >= b.offset+rows {
		b.offset = b.cursor - rows + 1
	}
	b.offset = max(min(b.offset, n-rows), 0)
}

// selected is the record under the cursor.
func (b *board) selected() (audit.Record, bool) {
	var kept []audit.Record
	b.each(func(r audit.Record) { kept = append(kept, r) })
	i := len(kept) - 1 - b.cursor
	if i < 0 || i >= len(kept) {
		return audit.Record{}, false
	}
	return kept[i], true
}

// rows is how many records fit: the screen less the two status lines, the
// note line, the column header and the key help.
func (b *board) rows() int {
	return max(b.height-5, 1)
}

// keeps reports whether the current filters list r.
func (b *board) keeps(r audit.Record) bool {
	switch b.show {
	case showBlocks:
		if !stopped(r) {
			return false
		}
	case showAsks:
		if kindOf(r) != kindAsk {
			return false
		}
	case showObserved:
		if !observed(r) {
			return false
		}
	}
	if b.text == "" {
		return true
	}
	for _, s := range []string{r.Tool, r.Target, r.Rule} {
		if strings.Contains(strings.ToLower(s), b.text) || strings.Contains(strings.ToLower(textsafe.Escape(s)), b.text) {
			return true
		}
	}
	return false
}

// each calls fn for the kept records, oldest first.
func (b *board) each(fn func(audit.Record)) {
	for i := range b.ring {
		r := b.ring[(b.next+i)%len(b.ring)]
		if b.keeps(r) {
			fn(r)
		}
	}
}

func (b *board) listed() int {
	n := 0
	b.each(func(audit.Record) { n++ })
	return n
}

// Counts returns the counts the board shows.
func (b *board) Counts() counts { return b.counts }

// View draws the board, full screen.
func (b *board) View() tea.View {
	v := tea.NewView(b.Render())
	v.AltScreen = true
	return v
}

// Render draws the board, or the record Enter opened. Every string from a
// record is escaped.
func (b *board) Render() string {
	if b.open != nil {
		return b.open.render(b.width, b.height, b.color)
	}
	w := max(b.width, 40)
	lines := make([]string, 0, b.height)
	chain := b.chain.String()
	if b.chain.Broken != "" {
		chain = paint(b.color, sgrBroken, fit(chain, w))
	}
	lines = append(lines, spread(paint(b.color, sgrTitle, "airlock monitor")+"  "+b.short.short(textsafe.Escape(b.home)), chain, w))
	filter := "showing " + b.show.String()
	if b.text != "" {
		filter += fmt.Sprintf(" matching %q", textsafe.Escape(b.text))
	}
	allow := fmt.Sprintf("allow %d", b.counts.Allow)
	if b.counts.Observed > 0 {
		allow += fmt.Sprintf(" (%d only by observe)", b.counts.Observed)
	}
	counts := paint(b.color, sgrAllow, allow) + "   " + paint(b.color, sgrAsk, fmt.Sprintf("ask %d", b.counts.Ask)) + "   " +
		paint(b.color, sgrBlock, fmt.Sprintf("block %d", b.counts.Block)) + "   " + paint(b.color, sgrHold, fmt.Sprintf("hold %d", b.counts.Hold))
	lines = append(lines, spread(counts, filter, w))

	var kept []audit.Record
	b.each(func(r audit.Record) { kept = append(kept, r) })
	note := ""
	switch {
	case b.err != "":
		note = "error: " + textsafe.Escape(b.err)
	case len(b.ring) == 0:
		note = "no records yet: waiting for " + b.short.short(textsafe.Escape(b.home)) + "/" + audit.LogFile
	case len(kept) == 0:
		note = "no records match"
	case b.offset > 0:
		note = fmt.Sprintf("scrolled back: %d newer below (End to follow)", b.offset)
	case b.cursor > 0:
		note = "the cursor holds the view on this record (End to follow)"
	}
	lines = append(lines, fit(note, w))

	cols := columnsFor(w)
	lines = append(lines, cols.row([]string{"", "TIME(UTC)", "SRC", "RESULT", "TOOL", "TARGET", "RULE", "REASON"}, "", false))
	end := len(kept) - b.offset
	start := max(end-b.rows(), 0)
	for i, r := range kept[start:max(end, start)] {
		sel := start+i == len(kept)-1-b.cursor
		lines = append(lines, cols.row(b.cells(r, sel), resultSGR(r), b.color))
	}
	for len(lines) < b.height-1 {
		lines = append(lines, "")
	}
	help := "↑↓ move · enter open · a all · b blocks · k asks · o observe-only · / filter · esc clear · End follow · q quit"
	if b.editing {
		help = "filter tool/target/rule: " + textsafe.Escape(b.input) + "_   (enter apply · esc cancel)"
	}
	return strings.Join(append(lines, paint(b.color, sgrKeyHelp, fit(help, w))), "\n")
}

// cells are a record's columns, escaped, the target's home shortened to
// ~; the first is the cursor's gutter.
func (b *board) cells(r audit.Record, selected bool) []string {
	t := r.Time
	if len(t) >= len("2006-01-02T15:04:05") {
		t = t[len("2006-01-02T"):len("2006-01-02T15:04:05")]
	}
	reason := r.Reason
	switch {
	case observed(r):
		reason = "(ran only because of observe mode) " + reason
	case r.Asked != "":
		reason = "(asked: " + r.Asked + ") " + reason
	case r.Event == "decision" && r.Decision != "" && r.Decision != effective(r):
		reason = "(policy: " + r.Decision + ") " + reason
	}
	if r.Event == audit.EventMalformed {
		reason = r.Detail
	}
	out := []string{t, r.Source, result(r), r.Tool, r.Target, r.Rule, reason}
	for i := range out {
		out[i] = textsafe.Escape(out[i])
	}
	out[targetColumn-1] = b.short.short(out[targetColumn-1])
	gutter := " "
	if selected {
		gutter = ">"
	}
	return append([]string{gutter}, out...)
}

// result is what happened to the call, or the event of a record that is
// not a decision. A call that ran only because of observe mode says what
// the policy would have done: observe:block, observe:ask.
func result(r audit.Record) string {
	if observed(r) {
		return observedResult(r)
	}
	switch kindOf(r) {
	case kindHold:
		return "hold"
	case kindOther:
		if r.Event != "decision" {
			return r.Event
		}
	}
	if r.Asked != "" {
		return "ask→" + effective(r)
	}
	return effective(r)
}

// columns are the display widths of the eight columns: the cursor's
// gutter, then time, source, result, tool, target, rule and reason.
type columns [8]int

func columnsFor(w int) columns {
	c := columns{1, 9, 5, 13, 0, 0, 0, 0}
	rest := w - (c[0] + c[1] + c[2] + c[3]) - 7 // seven separating spaces
	c[4] = min(16, rest/5)
	c[6] = min(20, rest/4)
	c[5] = (rest - c[4] - c[6]) / 2
	c[7] = rest - c[4] - c[5] - c[6]
	return c
}

// row lays out one row's cells; with colour, the gutter of the selected
// row stands out and the result is painted resultSGR.
func (c columns) row(vals []string, resultSGR string, color bool) string {
	var sb strings.Builder
	for i, v := range vals {
		if i > 0 {
			sb.WriteByte(' ')
		}
		var cell string
		switch i {
		case len(vals) - 1:
			cell = ansi.Truncate(v, c[i], "…")
		case targetColumn:
			cell = shortPath(v, c[i])
		default:
			cell = ansi.Truncate(v, c[i], "…")
		}
		pad := ""
		if i < len(vals)-1 {
			pad = strings.Repeat(" ", max(c[i]-ansi.StringWidth(cell), 0))
		}
		switch {
		case i == resultColumn:
			cell = paint(color, resultSGR, cell)
		case i == 0 && v == ">":
			cell = paint(color, sgrSelected, cell)
		}
		sb.WriteString(cell + pad)
	}
	return strings.TrimRight(sb.String(), " ")
}

// The result column is painted; the target column is cut keeping its end
// (shortPath): the end of a path or command is what tells one target from
// another.
const (
	resultColumn = 3
	targetColumn = 5
)

// truncMiddle cuts s to width w by replacing its middle with "…".
func truncMiddle(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	if w < 8 {
		return ansi.Truncate(s, w, "…")
	}
	head := ansi.Truncate(s, w/3, "")
	room := w - ansi.StringWidth(head) - 1
	return head + "…" + ansi.TruncateLeft(s, ansi.StringWidth(s)-room, "")
}

// spread puts left and right on one line of width w, cutting left first.
func spread(left, right string, w int) string {
	right = ansi.Truncate(right, w, "…")
	room := w - ansi.StringWidth(right) - 2
	if room < 1 {
		return right
	}
	left = ansi.Truncate(left, room, "…")
	return left + strings.Repeat(" ", w-ansi.StringWidth(left)-ansi.StringWidth(right)) + right
}

func fit(s string, w int) string {
	return ansi.Truncate(s, w, "…")
}
