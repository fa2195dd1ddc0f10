package setup

import (
	"errors"
	"fmt"
	"strings"
)

// server is one MCP server definition as a config file writes it.
type server struct {
	Name  string
	Store Store
	// Line is the 1-based line of the server's entry (its key, table
	// header or list item); 0 if unknown.
	Line    int
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL is a remote server's address: url, httpUrl, serverUrl or uri.
	URL string
	// Transport is the transport as the file writes it ("stdio", "http",
	// "sse", "streamable-http", opencode's "local"/"remote", Goose's
	// "builtin" …); "stdio" when only a command is given. Where the file
	// names none, the key tells for Gemini CLI (httpUrl "http", url "sse")
	// and Codex CLI (url "http"); otherwise it is "".
	Transport string
	// Remote: the agent connects to a URL, so Airlock sees its calls only
	// once init has rewritten the entry into airlock-mcp --url.
	Remote   bool
	Disabled bool // disabled: true, or enabled: false
	// Wrapped: the command launches airlock-mcp.
	Wrapped  bool
	WrapName string   // the --name given to airlock-mcp
	Inner    []string // the command line after airlock-mcp's "--"
	// Project is the project path for a server under ~/.claude.json's
	// projects["/abs/path"].mcpServers; "" otherwise.
	Project string
}

// Hook is one command hook in a Claude Code settings file.
type Hook struct {
	Event, Matcher, Command string
	Timeout                 int // seconds, a fraction rounded up; 0 when not set
	Line                    int // 1-based line of the "command" value
	// If is the hook's "if" filter (the hook runs only for calls it
	// matches); Async: "async" or "asyncRewake" is true (the hook runs in
	// the background and cannot block).
	If    string
	Async bool
	// Helper: not a hook but a command the agent runs by itself all the
	// same (Claude Code's statusLine and credential helpers, Codex's
	// notify); Event names the setting.
	Helper bool
}

// Config is what one config file defines.
type Config struct {
	Store   Store
	Servers []server
	Hooks   []Hook
	// HooksDisabled: a Claude Code settings file sets disableAllHooks (or
	// Gemini CLI's hooksConfig.enabled is false), which silences every
	// hook, Airlock's included.
	HooksDisabled bool
	// DisabledHooks are hooks Gemini CLI's hooksConfig.disabled names (by
	// name or command): they do not run.
	DisabledHooks []string
}

// MaxFileSize is the largest config file Parse reads. Real ones are
// kilobytes; ~/.claude.json, which also holds history, reaches megabytes.
const MaxFileSize = 16 << 20

// ErrTooLarge is the cause when a file is over MaxFileSize.
var ErrTooLarge = errors.New("larger than 16 MiB: not read")

// ParseError is a problem in one config file: where it is and what.
type ParseError struct {
	Path string
	Line int // 1-based; 0 if unknown
	Err  error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// ServerError is a problem in one server's entry; the server is dropped.
type ServerError struct {
	Name string // as the file writes it; may be ""
	Err  error
}

func (e *ServerError) Error() string { return fmt.Sprintf("server %q: %v", e.Name, e.Err) }
func (e *ServerError) Unwrap() error { return e.Err }

// FieldError is a field of the wrong type (or shape).
type FieldError struct {
	Field string // "args", "env.TOKEN", "hooks.PreToolUse[0].hooks[1].timeout"; "" for the entry itself
	Want  string // "an array of strings", "a boolean", "an object" …
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return "entry must be " + e.Want
	}
	return fmt.Sprintf("%q must be %s", e.Field, e.Want)
}

// Parse reads one config file's bytes in its store's format.
//
// An empty file, or one that defines no servers, is not an error. A file
// that cannot be read as its format gives a *ParseError naming Store.Path
// and, where known, the line; the Config is then nil. A field of the wrong
// type costs only its own entry: Parse returns the Config with every
// server and hook it could read, and an error joining one *ParseError per
// entry it dropped, each with the line, the server (a *ServerError) and
// the field (a *FieldError). Callers that change the file (wrap, unwrap)
// must refuse to on any error.
//
// JSON is read as JSONC in every JSON store: comments and trailing commas
// change nothing in a valid JSON file, and a scanner that also reads a file
// the agent would refuse reports more, never less. When a key is repeated,
// the last one wins, as in JSON.parse and encoding/json. A "generic" JSON
// file is read as mcpServers, or as VS Code's servers when it has no
// mcpServers.
func Parse(st Store, data []byte) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, &ParseError{Path: st.Path, Err: fmt.Errorf("%d bytes: %w", len(data), ErrTooLarge)}
	}
	p := &parser{st: st, cfg: &Config{Store: st}}
	var err error
	switch st.Format {
	case formatJSON, formatJSONC:
		err = p.json(data)
	case formatTOML:
		err = p.toml(data)
	case formatYAML:
		err = p.yaml(data)
	case formatScript:
		p.script(data)
	default:
		err = &ParseError{Path: st.Path, Err: fmt.Errorf("unknown format %q", st.Format)}
	}
	if err != nil {
		return nil, err
	}
	return p.cfg, errors.Join(p.errs...)
}

// parser collects one file's servers, hooks and per-entry errors.
type parser struct {
	st   Store
	cfg  *Config
	errs []error
}

// fail records a problem that is not one server's (a hook, a block of the
// wrong type).
func (p *parser) fail(line int, err error) {
	p.errs = append(p.errs, &ParseError{Path: p.st.Path, Line: line, Err: err})
}

// addMembers reads each member of obj as a server named by its key. A
// repeated name keeps its first place and takes the last definition.
func (p *parser) addMembers(obj value, d dialect, project string) {
	var order []string
	last := map[string]member{}
	for _, m := range obj.members() {
		if _, dup := last[m.key]; !dup {
			order = append(order, m.key)
		}
		last[m.key] = m
	}
	for _, name := range order {
		m := last[name]
		s, err := readServer(p.st, name, m.line, m.val, d)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		s.Project = project
		p.cfg.Servers = append(p.cfg.Servers, s)
	}
}
