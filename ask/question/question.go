// Package question is what an ask is about and what became of it: the
// request a broker puts to a person, the answer, and the call shape
// answers are remembered by. It is ask's vocabulary without ask's
// channel (the askd socket, the terminal and desktop prompts), so that
// gate, and with it the per-call hook, can name an ask without linking
// the network code (issue 16); ask re-exports every name here.
package question

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Request is what the broker observed about a call the policy asks about.
type Request struct {
	Source string // mcp | sandbox
	Tool   string // the tool as the policy names it (mcp__server__tool, CONNECT …)
	Server string // the MCP server, when there is one
	Target string // what the rule matched: a path, host or command
	Rule   string // the rule id
	Reason string // the rule's reason
	Args   string // the call's arguments as the broker received them (JSON), shown cut
	// Fallback is what the policy's ask_fallback does with an ask nobody
	// answers ("allow" or "block"), for the question to say.
	Fallback string
	// Shape is the exact call shape answers are remembered by; Shape
	// builds one. Empty: the answer is not remembered.
	Shape string
}

// Shape returns the key of an exact call shape: the same tool on the same
// server with byte-identical arguments.
func Shape(source, server, tool string, input []byte) string {
	h := sha256.New()
	for _, s := range []string{source, server, tool} {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	h.Write(input)
	return hex.EncodeToString(h.Sum(nil))
}

// Answer is what became of an ask.
type Answer uint8

// Answers.
const (
	Fallback Answer = iota // nobody answered: the policy's ask_fallback decides
	Allow                  // approved
	Deny                   // refused
)

func (a Answer) String() string {
	switch a {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "fallback"
}

// Outcome is an answer and how it was reached.
type Outcome struct {
	Answer Answer
	// Asked is one of the audit.Asked* values: human, remembered,
	// automatic, timeout or unattended.
	Asked string
	// Detail says how, for the record ("answered at the askd terminal",
	// "no backend reached a person: socket not running, no terminal …").
	Detail string
}
