package scan

import "slices"

// Indicator describes one indicator for a person: what its id means.
type Indicator struct {
	ID       string
	Category Category
	Severity Severity // in instructions, before weighting
	Explain  string
}

// builtinOthers are the indicators that are code rather than a pattern.
var builtinOthers = []Indicator{
	{"stealth.tag-chars", Stealth, High, "invisible Unicode tag characters (U+E0000–E007F) spell out text only the model reads (ASCII smuggling)"},
	{"stealth.bidi", Stealth, High, "bidirectional control characters make a reader see different text from what the model reads"},
	{"stealth.zero-width", Stealth, Med, "zero-width or blank characters inside words, invisible to a reader and able to split words past filters"},
	{"stealth.html-comment", Stealth, Med, "an HTML comment, which markdown does not render, carries instructions"},
	{"stealth.details", Stealth, Med, "a collapsed <details> block carries instructions a reviewer skims past"},
	{"stealth.base64", Stealth, Med, "a long base64 blob no reader can check; High when it decodes to instructions"},
	{"stealth.ansi", Stealth, High, "terminal control sequences (conceal, erase, cursor moves, OSC, backspaces) make a terminal show other text than the model reads; a colour alone is Med"},
	{"inject.native-name", injection, High, "an MCP tool named like one of the agent's built-in tools (Bash, Read, WebFetch, …), so calls meant for the built-in reach the server"},
	{"scan.truncated", Stealth, High, "text too long to read whole; what was not read cannot be called clean"},
	{"scan.unreadable", Stealth, High, "a tool definition that is not readable JSON cannot be shown clean"},
	{"scan.link-outside", Stealth, Med, "an instruction or config file that is a link out of the scanned tree (or a broken one): what the agent loads was not read"},
	{"scan.frontmatter", Stealth, Low, "frontmatter that is not valid YAML; an agent may read it differently from a person"},
	{"scan.config-unreadable", Stealth, Low, "an agent config that could not be parsed, so its servers are not listed"},
	{"exec.hook-fetch", Execution, Med, "an agent hook command reaches the network on every matching tool call; High when it sends data, calls a collector or runs what it downloads"},
	{"exec.server-command", Execution, High, "an MCP server is launched by a command that downloads code and runs it"},
	{"config.api-redirect", Exfiltration, Med, "project settings send the agent's model or web traffic through a host the repository chose (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, proxies)"},
	{"config.auto-approve", Execution, Med, "project settings approve the repository's own MCP servers without asking (enableAllProjectMcpServers, enabledMcpjsonServers)"},
	{"risk.combined", injection, High, "findings that together amount to an attack: a credential with somewhere to send it, an <IMPORTANT> block naming a credential, or steering of other tools next to either"},
}

// Indicators lists every indicator the engine can report, bundled first in
// id order, then any from the active feed.
func Indicators() []Indicator {
	var out []Indicator
	for _, r := range rules {
		out = append(out, Indicator{ID: r.id, Category: r.cat, Severity: r.sev, Explain: r.explain})
	}
	out = append(out, builtinOthers...)
	if f := ActiveFeed(); f != nil {
		for _, fi := range f.Indicators {
			sev, err := ParseSeverity(fi.Severity)
			if err != nil {
				continue
			}
			i := slices.IndexFunc(out, func(ind Indicator) bool { return ind.ID == fi.ID })
			if i >= 0 {
				out[i].Severity = max(out[i].Severity, sev)
				continue
			}
			out = append(out, Indicator{ID: fi.ID, Category: fi.Category, Severity: sev, Explain: fi.Explain})
		}
	}
	slices.SortFunc(out, func(a, b Indicator) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}
