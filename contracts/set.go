package contracts

import (
	"sort"

	"github.com/agentairlock/airlock/policy"
)

// FileName is the contracts file inside $AIRLOCK_HOME.
const FileName = "contracts.yaml"

// Contract is what one MCP server may do. Every list is an allow list: a
// list left out allows nothing of its kind.
type Contract struct {
	Name     string        // the server, as written in the file
	Enforced bool          // false: calls outside it are reported, not refused
	Tools    []string      // tool names or globs ("read_*")
	FS       []string      // path globs as written (${workspace} unexpanded)
	Net      []string      // host patterns as written
	Shell    bool          // may the server's calls carry shell commands
	Default  policy.Action // policy.Block or policy.Ask: what a call outside becomes
	Line     int           // where the entry starts in the file (0: not from a file)
}

// compiled is a Contract ready to match calls.
type compiled struct {
	c     Contract
	tools []string             // normalised names and globs
	fs    []policy.PathPattern // variables expanded; a pattern naming an empty variable is dropped
	net   []hostPattern
}

// hostPattern is an exact canonical host or a pattern for policy.HostMatch.
type hostPattern struct {
	exact string
	glob  string
}

func (p hostPattern) match(host string) bool {
	if p.exact != "" {
		return p.exact == host
	}
	return policy.HostMatch(p.glob, host)
}

// Set is the contracts in force, by server.
type Set struct {
	path    string
	home    string // for ~ and $HOME in raw paths
	servers map[string]*compiled
}

// Path is the file the set was loaded from (or would be).
func (s *Set) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// Get returns the contract for server (raw or Claude Code spelling). The
// returned value is a copy.
func (s *Set) Get(server string) (*Contract, bool) {
	e := s.lookup(server)
	if e == nil {
		return nil, false
	}
	c := e.c
	c.Tools = append([]string(nil), c.Tools...)
	c.FS = append([]string(nil), c.FS...)
	c.Net = append([]string(nil), c.Net...)
	return &c, true
}

// Names lists the servers that have a contract, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.servers))
	for _, e := range s.servers {
		out = append(out, e.c.Name)
	}
	sort.Strings(out)
	return out
}

func (s *Set) lookup(server string) *compiled {
	if s == nil {
		return nil
	}
	return s.servers[NormName(server)]
}

// NormName is a server or tool name as Claude Code spells it inside
// mcp__SERVER__TOOL: every byte other than a letter, digit, '_' or '-'
// becomes '_'.
func NormName(s string) string {
	return normBytes(s, false)
}

// normBytes maps name bytes to Claude Code's spelling; glob keeps '*' and
// '?' for tool patterns.
func normBytes(s string, glob bool) string {
	b := []byte(s)
	for i, c := range b {
		if !nameByte(c) && !(glob && (c == '*' || c == '?')) {
			b[i] = '_'
		}
	}
	return string(b)
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
