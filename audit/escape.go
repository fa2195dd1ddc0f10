package audit

import "github.com/agentairlock/airlock/internal/textsafe"

// Escape is textsafe.Escape, kept so that a branch written before the
// move still builds.
//
// Deprecated: use textsafe.Escape; audit holds the log, not the escaper.
func Escape(s string) string { return textsafe.Escape(s) }
