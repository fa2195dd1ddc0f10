package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// HTML writes the report as one self-contained page: inline CSS and inline
// SVG charts, no script, no external font, image or stylesheet, nothing
// fetched. Every record-derived string goes through html/template, which
// escapes it for the context it lands in.
func (s Summary) HTML(w io.Writer) error {
	return pageTemplate.Execute(w, s.htmlView())
}

type htmlView struct {
	S              Summary
	Banner         string
	BannerCls      string
	Caveat         string
	Window         string
	Coverage       string
	CandidatesNote string
	Policy         [][]piece
	Holds          [][]piece
	Taints         [][]piece
	Limits         [][]piece
	NeedsNothing   string // the one line when nothing needs the person
	NeedsCount     int
	Needs          []htmlNeedBlock
	Interrupt      [][2]string // the report's own words and counts
	Candidates     []string
	Time           timeChart
	Tools          toolChart
	HasTrouble     bool

	// the ranked tables, keys passed through textsafe.Escape
	Decisions                           []classedCount
	TopBlocked, Asks, TopTools, Trouble []Count
}

// classedCount is a row of the decisions table with the chart's colour
// for its result.
type classedCount struct {
	Count
	Class string
}

func escapedCounts(cs []Count) []Count {
	out := make([]Count, len(cs))
	for i, c := range cs {
		out[i] = Count{textsafe.Escape(c.Key), c.N}
	}
	return out
}

// htmlNeedBlock is a needBlock for the page: the text of each item split
// into runs so a shortened hash keeps its full value as a title.
type htmlNeedBlock struct {
	Kind  string
	Intro string
	Items []htmlNeedItem
}

type htmlNeedItem struct {
	Text []piece
	Cmd  string
}

type rect struct {
	X, Y, W, H float64
	Class      string
	Tip        string
}

type label struct {
	X, Y   float64
	Text   string
	Anchor string
}

type timeChart struct {
	Width, Height int
	Unit          string
	Rects         []rect
	Labels        []label
	Legend        []legendItem
}

type legendItem struct {
	X     float64
	Class string
	Text  string
}

type toolChart struct {
	Width, Height int
	Rects         []rect
	Labels        []label
}

// chartClass maps an effective result to a fixed CSS class; record text
// never becomes a class name.
func chartClass(k string) string {
	switch k {
	case "block", "ask", "allow":
		return k
	}
	return "other"
}

func (s Summary) htmlView() htmlView {
	st := htmlStyle{}
	v := htmlView{S: s, Banner: s.Integrity.Headline(), Caveat: s.Integrity.Caveat(),
		Window: s.window(st), Coverage: Coverage, CandidatesNote: CandidatesNote, HasTrouble: len(s.Trouble) > 0}
	switch {
	case s.Integrity.Simulated:
		v.BannerCls = "sim"
	case s.Integrity.Status == audit.Intact:
		v.BannerCls = "ok"
	case s.Integrity.Status == audit.TailUnprovable:
		v.BannerCls = "warn"
	default:
		v.BannerCls = "bad"
	}
	for _, r := range s.PolicyChanges {
		v.Policy = append(v.Policy, pieces(recordLine(st, r)))
	}
	for _, r := range s.Holds {
		v.Holds = append(v.Holds, pieces(recordLine(st, r)))
	}
	for _, r := range s.Taints {
		v.Taints = append(v.Taints, pieces(recordLine(st, r)))
	}
	for _, r := range s.Limits {
		v.Limits = append(v.Limits, pieces(recordLine(st, r)))
	}
	if s.Needs.Nothing() {
		v.NeedsNothing = nothingNeedsYou
	}
	v.NeedsCount = s.Needs.Items()
	for _, bl := range s.Needs.blocks(st) {
		hb := htmlNeedBlock{Kind: bl.Kind, Intro: bl.Intro}
		for _, it := range bl.Items {
			hb.Items = append(hb.Items, htmlNeedItem{Text: pieces(it.Text), Cmd: textsafe.Escape(it.Cmd)})
		}
		v.Needs = append(v.Needs, hb)
	}
	if len(s.Asks) > 0 {
		v.Interrupt = s.interruptionRows()
	}
	v.Candidates = candidateLines(st, s.GrantCandidates)
	for _, c := range escapedCounts(s.Decisions) {
		v.Decisions = append(v.Decisions, classedCount{c, chartClass(c.Key)})
	}
	v.TopBlocked, v.Asks = escapedCounts(s.TopBlocked), escapedCounts(s.Asks)
	v.TopTools, v.Trouble = escapedCounts(s.TopTools), escapedCounts(s.Trouble)
	v.Time = s.timeChart()
	v.Tools = s.toolChart()
	return v
}

func (s Summary) timeChart() timeChart {
	const w, h, top, bottom, left, maxBar = 760, 220, 24, 28, 36, 48
	c := timeChart{Width: w, Height: h, Unit: s.Series.Unit}
	n := len(s.Series.Buckets)
	m := s.Series.Max()
	if n == 0 || m == 0 {
		return c
	}
	plot := float64(h - top - bottom)
	bw := float64(w-left) / float64(n)
	for i, b := range s.Series.Buckets {
		x := float64(left) + float64(i)*bw
		y := float64(h - bottom)
		for _, k := range s.Series.Keys {
			cnt := b.Counts[k]
			if cnt == 0 {
				continue
			}
			hh := plot * float64(cnt) / float64(m)
			y -= hh
			// a bar is at most maxBar wide, centred in its slot: one
			// bucket must not fill the chart like a wall
			bar := min(max(bw-2, 1), maxBar)
			c.Rects = append(c.Rects, rect{X: x + (bw-bar)/2, Y: y, W: bar, H: hh, Class: chartClass(k),
				Tip: fmt.Sprintf("%s: %d %s", b.Start.Format("2006-01-02 15:04"), cnt, textsafe.Escape(k))})
		}
		if n <= 14 || i%((n+13)/14) == 0 {
			lt := b.Start.Format("01-02")
			if s.Series.Step < 24*60*60*1e9 {
				lt = b.Start.Format("02 15h")
			}
			c.Labels = append(c.Labels, label{X: x + bw/2, Y: float64(h - bottom + 16), Text: lt, Anchor: "middle"})
		}
	}
	c.Labels = append(c.Labels, label{X: left - 4, Y: top + 4, Text: fmt.Sprint(m), Anchor: "end"},
		label{X: left - 4, Y: float64(h - bottom), Text: "0", Anchor: "end"})
	for i, k := range s.Series.Keys {
		c.Legend = append(c.Legend, legendItem{X: float64(left + i*110), Class: chartClass(k), Text: textsafe.Escape(k)})
	}
	return c
}

func (s Summary) toolChart() toolChart {
	const w, row, left = 760, 22, 220
	c := toolChart{Width: w, Height: row*len(s.TopTools) + 4}
	m := 0
	for _, t := range s.TopTools {
		m = max(m, t.N)
	}
	for i, t := range s.TopTools {
		y := float64(i*row + 2)
		bw := float64(w-left-60) * float64(t.N) / float64(max(m, 1))
		name := textsafe.Escape(t.Key)
		if len([]rune(name)) > 32 {
			name = string([]rune(name)[:31]) + "…"
		}
		// calls of every result: the neutral colour, never an allow's
		c.Rects = append(c.Rects, rect{X: left, Y: y, W: max(bw, 1), H: row - 6, Class: "tool", Tip: fmt.Sprintf("%s: %d", textsafe.Escape(t.Key), t.N)})
		c.Labels = append(c.Labels, label{X: left - 6, Y: y + row - 10, Text: name, Anchor: "end"},
			label{X: left + bw + 6, Y: y + row - 10, Text: fmt.Sprint(t.N), Anchor: "start"})
	}
	return c
}

// htmlStyle leaves text raw: html/template escapes it when the page is
// written. Record text still passes textsafe.Escape, so a bidi override or an
// invisible character cannot reorder or hide what the page shows.
type htmlStyle struct{ textStyle }

// short leaves hashes whole: pieces shortens them on the page and keeps
// the full value in a title.
func (htmlStyle) short(s string) string { return s }

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>Airlock report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:860px;color:#1d232a;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.3em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #dde;padding-bottom:.2em}
.banner{padding:.7em 1em;border-radius:6px;font-weight:600}
.banner.ok{background:#e5f5ea;color:#14532d}.banner.warn{background:#fff4d6;color:#7a4b00}
.banner.bad{background:#fde2e1;color:#8a1010}.banner.sim{background:#e8eefc;color:#1c3a7a}
.note{color:#555}table{border-collapse:collapse;margin:.4em 0}
td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:left;vertical-align:top;overflow-wrap:anywhere}
td.n{text-align:right;font-variant-numeric:tabular-nums}
li{overflow-wrap:anywhere;margin:.25em 0}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em}
.h{border-bottom:1px dotted #777;cursor:help}
svg{max-width:100%;height:auto}svg.sw{vertical-align:-1px}
svg text{font:11px system-ui,sans-serif;fill:#444}
.block{fill:#c0392b}.ask{fill:#e67e22}.allow{fill:#2e86c1}.other{fill:#95a5a6}.tool{fill:#64748b}
section.needs{border:2px solid #b42318;border-radius:8px;padding:.2em 1.1em .6em;margin:1.2em 0;background:#fffafa}
section.needs h2{margin-top:.6em;border:0;color:#8a1010}
section.needs.none{border-color:#2f855a;background:#f3fbf6}section.needs.none h2{color:#14532d}
.need{margin:.8em 0 .2em;padding-left:.7em;border-left:5px solid #999}
.need p{margin:.2em 0;font-weight:600}.need ul{margin:.2em 0;padding-left:1.2em}
.need.broken,.need.burn{border-color:#b42318}.need.broken p,.need.burn p{color:#8a1010}
.need.ran{border-color:#c2410c}.need.ran p{color:#9a3412}
.need.unasked,.need.hold{border-color:#b7791f}.need.unasked p,.need.hold p{color:#7a4b00}
code.cmd{display:inline-block;background:#f1f3f5;border:1px solid #d0d5dc;border-radius:4px;padding:0 .35em;color:#1d232a;user-select:all;overflow-wrap:anywhere}
</style>
</head>
<body>
<h1>Airlock report</h1>
<p class="banner {{.BannerCls}}">{{.Banner}}</p>
{{with .Caveat}}<p class="note">{{.}}</p>{{end}}
<p>{{.Window}}</p>
<p class="note">{{.Coverage}}</p>

{{if .NeedsNothing}}<section class="needs none" id="needs"><h2>Needs you</h2><p>{{.NeedsNothing}}</p></section>
{{else}}<section class="needs" id="needs"><h2>Needs you: {{.NeedsCount}}</h2>
{{range .Needs}}<div class="need {{.Kind}}"><p>{{.Intro}}</p>
<ul>{{range .Items}}<li>{{template "pieces" .Text}}: <code class="cmd">{{.Cmd}}</code></li>
{{end}}</ul></div>
{{end}}</section>
{{end}}
<a id="policy"></a><h2>Policy changes</h2>
{{if .Policy}}<p>The policy in force changed {{len .Policy}} time(s); every decision after a change was made by a different policy:</p>
<ul>{{range .Policy}}<li class="mono">{{template "pieces" .}}</li>{{end}}</ul>
{{else}}<p>No policy change in this window: one policy was in force throughout.</p>{{end}}

<a id="time"></a><h2>Decisions over time</h2>
{{if .Time.Rects}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Time.Width}}" height="{{.Time.Height}}" viewBox="0 0 {{.Time.Width}} {{.Time.Height}}" role="img" aria-label="decisions per {{.Time.Unit}}">
{{range .Time.Legend}}<rect x="{{.X}}" y="2" width="10" height="10" class="{{.Class}}"/><text x="{{.X}}" y="11" dx="14">{{.Text}}</text>
{{end}}{{range .Time.Rects}}<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" class="{{.Class}}"><title>{{.Tip}}</title></rect>
{{end}}{{range .Time.Labels}}<text x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>
{{end}}</svg>
<p class="note">One bar per {{.Time.Unit}} (UTC).</p>
{{else}}<p>No decisions in this window.</p>{{end}}

<a id="decisions"></a><h2>Calls by decision</h2>
{{if .Decisions}}<table>{{range .Decisions}}<tr><td><svg class="sw" width="10" height="10" aria-hidden="true"><rect width="10" height="10" class="{{.Class}}"/></svg> {{.Key}}</td><td class="n">{{.N}}</td></tr>{{end}}</table>
{{if .S.Observed}}<p>{{.S.Observed}} call(s) the policy would have blocked ran because of the mode (observe).</p>{{end}}
{{else}}<p>No decisions in this window.</p>{{end}}

<a id="blocked"></a><h2>Top blocked targets</h2>
{{if .TopBlocked}}<table>{{range .TopBlocked}}<tr><td class="mono">{{.Key}}</td><td class="n">{{.N}}</td></tr>{{end}}</table>
{{else}}<p>Nothing was blocked.</p>{{end}}

<a id="asks"></a><h2>Asks</h2>
{{if .Asks}}<table>{{range .Asks}}<tr><td>{{.Key}}</td><td class="n">{{.N}}</td></tr>{{end}}</table>
{{else}}<p>No call was sent to a person.</p>{{end}}

<a id="interruptions"></a><h2>Interruptions</h2>
{{if .Interrupt}}<table>{{range .Interrupt}}<tr><td>{{index . 0}}</td><td class="n">{{index . 1}}</td></tr>{{end}}</table>
{{if .S.UnattendedAllowed}}<p>{{.S.UnattendedAllowed}} ask(s) ran without a person's answer: ask_fallback allowed them.</p>{{end}}
{{else}}<p>No ask in this window: nobody was interrupted.</p>{{end}}

<a id="grants"></a><h2>Grant candidates</h2>
{{if .Candidates}}<p>{{.CandidatesNote}}</p>
<ul>{{range .Candidates}}<li class="mono">{{.}}</li>{{end}}</ul>
{{else}}<p>No gated call that a grant could lift.</p>{{end}}

<a id="holds"></a><h2>Holds</h2>
{{if .Holds}}<p>{{len .Holds}} hold record(s) in this window (those still in force are under Needs you):</p>
<ul>{{range .Holds}}<li class="mono">{{template "pieces" .}}</li>{{end}}</ul>
{{else}}<p>No MCP server's toolset was held.</p>{{end}}{{if .Taints}}

<a id="taints"></a><h2>Tainted sessions</h2>
<p>{{len .Taints}} taint record(s): a session saw a result carrying injection, and its privileged actions were escalated until the taint ended (airlock taint):</p>
<ul>{{range .Taints}}<li class="mono">{{template "pieces" .}}</li>{{end}}</ul>{{end}}{{if .Limits}}

<a id="limits"></a><h2>Call limits</h2>
<p>{{len .Limits}} call-limit decision(s): the same call repeated past the loop detector, or a per-minute cap passed (loop:, limits:):</p>
<ul>{{range .Limits}}<li class="mono">{{template "pieces" .}}</li>{{end}}</ul>{{end}}

<a id="tools"></a><h2>Top tools</h2>
{{if .Tools.Rects}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Tools.Width}}" height="{{.Tools.Height}}" viewBox="0 0 {{.Tools.Width}} {{.Tools.Height}}" role="img" aria-label="decisions by tool">
{{range .Tools.Rects}}<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" class="{{.Class}}"><title>{{.Tip}}</title></rect>
{{end}}{{range .Tools.Labels}}<text x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>
{{end}}</svg>
{{else}}<p>No tool calls in this window.</p>{{end}}

{{if .HasTrouble}}<a id="problems"></a><h2>Problems recorded</h2>
<table>{{range .Trouble}}<tr><td>{{.Key}}</td><td class="n">{{.N}}</td></tr>{{end}}</table>{{end}}
</body>
</html>
{{define "pieces"}}{{range .}}{{if .Full}}<span class="h mono" title="{{.Full}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{end}}`))
