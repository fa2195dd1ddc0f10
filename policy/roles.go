package policy

import (
	"strings"

	"github.com/tidwall/gjson"
)

// role says what an argument's string is for, and so which facts it can
// yield. A path is a read only where something opens it: the file_path of
// Read, the words of a command. The same path in a commit message, a
// document being written or an issue body is named by nobody who reads it,
// and yields a text fact only — still matched by the text forbids
// (AIRLOCK_* assignments, metadata addresses, chat webhooks) and by the
// secret-value checks, since a secret value in prose is still a secret.
type role uint8

const (
	// RoleUnknown: a string whose use the tool does not say. Conservative:
	// a path is a path (of every access, for a tool whose verb is unknown),
	// a URL or host name is a destination.
	roleUnknown role = iota
	// RoleTarget: the file, directory or URL the tool acts on (file_path,
	// path, url).
	roleTarget
	// RoleCommand: shell text the tool runs.
	roleCommand
	// RoleContent: what a write puts into a file. Text, unless the file is
	// one that runs (writeContent).
	roleContent
	// RoleProse: words for a person or a model (a description, a title, a
	// commit message, a to-do item). Text facts only.
	roleProse
	// RoleData: a value the tool searches for or stores, not a place (a
	// search query, a status). Text facts only.
	roleData
	// RoleBrief: instructions to another agent (Task/Agent prompt). The
	// paths it names are asked about, not blocked: the sub-agent's own
	// calls are checked when it makes them. Its URLs stay destinations.
	roleBrief
)

func (r role) String() string {
	switch r {
	case roleTarget:
		return "target"
	case roleCommand:
		return "command"
	case roleContent:
		return "content"
	case roleProse:
		return "prose"
	case roleData:
		return "data"
	case roleBrief:
		return "brief"
	}
	return "unknown"
}

// textOnly reports whether a role yields text facts only.
func (r role) textOnly() bool {
	return r == roleProse || r == roleData || r == roleContent
}

// nativeRoles are the fields of the agents' own tools whose meaning is
// documented (Claude Code's tool reference), by lower-case tool name and
// argument shape (list indexes written "[]", names lower-case). Fields
// not listed keep the classifier's conservative reading: an extra field
// Read does not take ({"file_path": "a.py", "note": "~/.ssh/id_rsa"}) is
// still a path.
var nativeRoles = map[string]map[string]role{
	"write":        {"content": roleContent},
	"edit":         {"old_string": roleContent, "new_string": roleContent},
	"multiedit":    {"edits[].old_string": roleContent, "edits[].new_string": roleContent},
	"notebookedit": {"new_source": roleContent, "cell_type": roleData, "edit_mode": roleData, "cell_id": roleData},
	"todowrite": {"todos[].content": roleProse, "todos[].activeform": roleProse, "todos[].status": roleData,
		"todos[].id": roleData, "todos[].priority": roleData},
	"bash":         {"description": roleProse},
	"webfetch":     {"prompt": roleProse},
	"websearch":    {"query": roleData, "allowed_domains[]": roleData, "blocked_domains[]": roleData}, // filters of the search provider's results, not fetches
	"task":         {"description": roleProse, "prompt": roleBrief, "subagent_type": roleData},
	"agent":        {"description": roleProse, "prompt": roleBrief, "subagent_type": roleData},
	"exitplanmode": {"plan": roleProse},
	"askuserquestion": {"questions[].question": roleProse, "questions[].header": roleProse,
		"questions[].options[].label": roleProse, "questions[].options[].description": roleProse},
	"bashoutput": {"filter": roleData},
}

// mcpProse: MCP argument names that are prose by name, at any depth
// (github's create_issue title/body, Slack's text, a git server's commit
// message). A name ending in _NAME counts too (initial_comment,
// commit_message, pr_body).
func mcpProse(k string) bool {
	switch k {
	case "body", "title", "description", "text", "message", "comment", "summary", "subject", "caption", "commit_message", "markdown":
		return true
	}
	return false
}

// mcpContent: MCP argument names that hold what a write tool puts into a
// file (the filesystem server's write_file content, edit_file's newText):
// text, judged like the content of a native Write.
func mcpContent(k string) bool {
	switch k {
	case "content", "new_content", "file_content", "newtext", "oldtext", "new_string", "old_string", "new_source":
		return true
	}
	return false
}

// mcpData: MCP argument names that are a search or a query string, not a
// place. A SQL statement is not here (sql, statement): a database's file
// functions read files.
func mcpData(k string) bool {
	switch k {
	case "query", "q", "search", "search_query", "keywords":
		return true
	}
	return false
}

// roleTable is what a call's tool says about its arguments' roles, built
// once per call (rolesFor): the native tool's table, or the MCP reading.
type roleTable struct {
	native map[string]role // a native tool's documented fields
	mcp    bool            // an MCP tool: roles by argument name
	runs   bool            // an MCP tool whose text may run (runsText): no name roles
	schema map[string]role // what the pinned input schema says (MCP)
}

func rolesFor(tool string, schema []byte) roleTable {
	if len(tool) < 5 || !strings.EqualFold(tool[:5], "mcp__") {
		// lower-cased on the stack: this runs for every call
		var buf [24]byte
		if len(tool) > len(buf) {
			return roleTable{}
		}
		for i := 0; i < len(tool); i++ {
			ch := tool[i]
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			buf[i] = ch
		}
		return roleTable{native: nativeRoles[string(buf[:len(tool)])]}
	}
	t := strings.ToLower(tool)
	rt := roleTable{mcp: true, runs: runsText(t)}
	if !rt.runs {
		rt.schema = schemaRoles(schema)
	}
	return rt
}

// roleOf is the role of the string at argument name (as Facts record it:
// "edits[0].new_string"; key is its last field name), before the
// classifier's own reading of targets and commands. Keys of objects
// ("key:…") have no role.
func (f *Facts) roleOf(name, key string) role {
	return f.roleWithin(name, key, func() role { return enclosingRole(name) })
}

// roleWithin is roleOf with the enclosing fields' role given: the walk
// knows it as it descends (classifier.encl); a reason looks it up.
func (f *Facts) roleWithin(name, key string, encl func() role) role {
	rt := &f.roles
	if name == "" || (rt.native == nil && (!rt.mcp || rt.runs)) || strings.HasPrefix(name, "key:") {
		// a terminal's send_text, a REPL's eval, a browser's type: the
		// words are what runs or what is typed; read conservatively
		return roleUnknown
	}
	if rt.native != nil {
		return rt.native[argShape(name)]
	}
	lk := strings.ToLower(key)
	r := mcpNameRole(lk)
	top := !strings.ContainsAny(name, ".[")
	if r == roleUnknown && !top {
		// inside a prose field: Confluence's body.storage.value, a
		// message's blocks[].text.text; never a field named as a place
		// (message.attachment_path is a path wherever it sits)
		if r = encl(); r != roleUnknown && placeKey(lk) {
			r = roleUnknown
		}
	}
	if top && rt.schema != nil && r != roleContent {
		// the pinned schema's word about its own argument: a place stays
		// a place whatever its name; prose by description is prose
		if sr, ok := rt.schema[name]; ok {
			return sr
		}
	}
	return r
}

func (c *classifier) roleOf(name, key string) role {
	return c.f.roleWithin(name, key, c.enclosing)
}

func (c *classifier) enclosing() role { return c.encl }

// runVerbs in an MCP tool's name (server and tool) say its strings may be
// run or typed into something that runs them: a terminal's send_text, a
// REPL's eval, a notebook kernel, a browser's type.
var runVerbs = []string{"shell", "command", "cmd", "exec", "run", "terminal", "tmux", "iterm", "ssh", "console", "repl",
	"jupyter", "kernel", "eval", "script", "keys", "keystroke", "type", "input", "interpret", "python", "sql", "code"}

func runsText(tool string) bool {
	for _, v := range runVerbs {
		if strings.Contains(tool, v) {
			return true
		}
	}
	return false
}

// placeKey reports whether an argument's name says it names a place.
func placeKey(k string) bool {
	if pathKeys[k] || urlKeys[k] || shellKeys[k] {
		return true
	}
	for _, w := range placeWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// enclosingRole is the text-only role of the nearest enclosing field of
// name that has one by its name, or RoleUnknown.
func enclosingRole(name string) role {
	for {
		i := strings.LastIndexAny(name, ".[")
		if i <= 0 {
			return roleUnknown
		}
		name = name[:i]
		if r := mcpNameRole(strings.ToLower(lastKey(name))); r != roleUnknown {
			return r
		}
	}
}

// mcpNameRole is the role an MCP argument has by its name alone.
func mcpNameRole(k string) role {
	switch {
	case mcpContent(k):
		return roleContent
	case mcpData(k):
		return roleData
	case mcpProse(k):
		return roleProse
	}
	if i := strings.LastIndexByte(k, '_'); i > 0 && mcpProse(k[i+1:]) && k[i+1:] != "text" {
		// initial_comment, pr_body; not search_text, which is data
		// anyway, nor file_text, which a write puts in a file
		return roleProse
	}
	return roleUnknown
}

// argShape writes list indexes as "[]" and folds case: edits[3].new_string
// → edits[].new_string.
func argShape(name string) string {
	if !strings.ContainsAny(name, "[ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if ch == '[' {
			b.WriteString("[]")
			for i < len(name) && name[i] != ']' {
				i++
			}
			continue
		}
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// schemaRoles reads the roles a pinned MCP input schema gives its
// top-level properties. A string property whose description says it is
// prose (a title, a body, a message …) is prose; one whose description or
// format says it is a place (a path, a file, a URL, a command) is unknown
// even when its name sounds like prose: the server's own word about its
// argument comes first. Properties the schema says nothing about keep
// their name's role. The schema comes from pins.json (what the user
// approved), never from the call.
func schemaRoles(schema []byte) map[string]role {
	if len(schema) == 0 {
		return nil
	}
	props := gjson.GetBytes(schema, "properties")
	if !props.IsObject() {
		return nil
	}
	var out map[string]role
	props.ForEach(func(k, v gjson.Result) bool {
		if !v.IsObject() {
			return true
		}
		r, ok := describedRole(v)
		if !ok {
			return true
		}
		if out == nil {
			out = map[string]role{}
		}
		out[k.String()] = r
		return true
	})
	return out
}

// placeWords in a property's description say its value names a place or
// a program.
var placeWords = []string{"path", "file", "directory", "folder", "url", "uri", "link", "command", "script", "executable", "location"}

// proseWords in a property's description say its value is words.
var proseWords = []string{"title", "body", "description", "message", "comment", "text", "markdown", "summary", "note", "prose", "caption", "subject"}

// describedRole is the role a schema property's declaration gives it.
func describedRole(prop gjson.Result) (role, bool) {
	if f := strings.ToLower(prop.Get("format").String()); strings.HasPrefix(f, "uri") || f == "iri" || f == "hostname" {
		return roleUnknown, true
	}
	desc := strings.ToLower(prop.Get("description").String() + " " + prop.Get("title").String())
	if strings.TrimSpace(desc) == "" {
		return roleUnknown, false
	}
	for _, w := range placeWords {
		if hasWord(desc, w) {
			return roleUnknown, true
		}
	}
	if typ := prop.Get("type"); typ.String() != "string" {
		return roleUnknown, false
	}
	for _, w := range proseWords {
		if hasWord(desc, w) {
			return roleProse, true
		}
	}
	return roleUnknown, false
}

// hasWord reports whether w occurs in s as a word (or its plural, or the
// head of a compound like "filename" or "filepath").
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(s[j-1])
		if before {
			return true
		}
		i = j + len(w)
	}
}

func isWordByte(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9'
}

// pendingContent is a content string held until the walk has seen the
// write's target (JSON key order is the agent's).
type pendingContent struct {
	name, s string
}

// writeContent judges what a write puts into a file. The text fact was
// taken when the string was read; content names paths without opening
// them. target is the write's target as written ("" when the call names
// none).
//
// Every content string of every write (native or MCP) comes here once,
// with its target: the place to read content into a target that runs by
// itself (a shell start-up file, a git hook, a task definition) as the
// code it is.
func (c *classifier) writeContent(target, name, s string) {
	if strings.EqualFold(c.f.Tool, "NotebookEdit") && !strings.EqualFold(c.cellType, "markdown") {
		// a code cell is code the notebook's kernel runs: kept as the
		// conservative reading until cells are judged by what they run
		c.generic(name, "new_source", s)
	}
}

// mention records what a brief (a sub-agent's prompt) names: its paths go
// to Facts.Mentioned, which the forbids meet with an ask; its URLs stay
// destinations (a collector named in a prompt is blocked as before).
func (c *classifier) mention(name, s string) {
	if c.f.Mentioned == nil {
		c.f.Mentioned = &Facts{Tool: c.f.Tool}
	}
	m := c.f.Mentioned
	add := func(p string) {
		m.Paths = append(m.Paths, PathFact{Raw: p, Access: accessAny, Arg: name})
	}
	whole := len(s) < 4096 && !strings.ContainsAny(s, "\n\r")
	if whole && looksLikePath(s) {
		add(s)
		return
	}
	for _, u := range ExtractURLs(s) {
		if len(u) > 7 && strings.EqualFold(u[:7], "file://") {
			add(u)
			continue
		}
		c.url(name, u)
	}
	for _, p := range ExtractPaths(s) {
		add(p)
	}
	for _, p := range dotWords(s) {
		add(p)
	}
}

// dotWords are the words of prose that name a dot-file of the working
// directory (".env", ".netrc", ".aws/credentials"): a prompt says "read
// .env" without "./".
func dotWords(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '.' || i > 0 && !pathDelim[s[i-1]] || i+1 >= len(s) || !isASCIILetter(s[i+1]) {
			continue
		}
		j := i + 1
		for j < len(s) && !pathDelim[s[j]] {
			j++
		}
		w := strings.TrimRight(s[i:j], ".!?")
		out = append(out, w)
		i = j
	}
	return out
}

// writeTarget keeps the first target a write names, for writeContent.
func (c *classifier) writeTarget(s string) {
	if c.target == "" {
		c.target = s
	}
}
