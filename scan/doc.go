// Package scan owns Airlock's indicators: the patterns in text that are
// evidence of prompt injection, secret access, exfiltration, download-and-
// execute and hidden (stealth) content.
//
// The MCP proxy asks it whether a server's toolset is poisoned at first
// sight (Tool, Poisoned); the static scanner, scan/files, reuses the same
// engine on SKILL.md, AGENTS.md, rules files and MCP configs (Text,
// ToolList, Combined). scan itself knows no file kinds and no agent
// configs, and must never import setup: the proxy links this package.
//
// An indicator is evidence for a person, never a verdict on its own. Risk
// turns a set of findings into one severity, and only intent reaches High:
// an override or concealment, hidden-instruction stealth, a credential
// named together with somewhere to send it, or download-and-execute in
// instructions. scan never decides what happens to a call or a toolset;
// gate does. scan never reads files or the network: callers hand it text.
//
// Matching runs on a folded copy of the text (NFKC, case-folded, invisible
// characters removed, Unicode tag characters decoded, common homoglyphs
// mapped to ASCII) so fullwidth letters or a zero-width space inside
// "ignore" do not evade it; positions are always reported in the original.
package scan
