// Package report owns the read-only views of the audit log: the filtered
// log, exports for a SIEM (CEF, RFC 5424 syslog, JSONL), the summary
// report (text, Markdown, one self-contained HTML page: how often a person
// was interrupted, and the gated calls a grant could lift), breach forensics,
// and the human review chain (reviews.jsonl) that signs a report off.
//
// Report reads, it never decides and never writes the audit log: every
// view is derived from records the gate already wrote, and every string
// that came from a record is escaped for the medium it is rendered in (a
// terminal, a syslog line, a CEF extension, Markdown, HTML), so a hostile
// tool argument cannot forge a line, a field or a page element.
//
// Coverage is stated, never implied: report and breach see what the gate
// saw (calls through the hook and the MCP proxy), not what a process did
// after it was allowed to run.
package report
