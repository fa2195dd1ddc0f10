package shell

import (
	"encoding/base64"
	"strings"
	"sync"
)

// TranslatePowerShell rewrites PowerShell text as bash text with the same
// effects (pwsh_lex.go). Commands it does not recognise keep their name
// and arguments, so the bash walker's tables still judge the program
// (reg, schtasks, cmd, vaultcmd …). home is the user's home: $HOME,
// $env:USERPROFILE, $env:APPDATA and ~ expand to it.
func TranslatePowerShell(src, home string) string {
	out, _ := translatePS(src, home)
	return out
}

// translatePS also reports whether every command of src was recognised:
// a cmdlet, a .NET call or a program the bash reader judges by name.
func translatePS(src, home string) (string, bool) {
	t := psTranslator{home: home, lower: strings.ToLower(src)}
	t.stmts(psParse(src, home), 0)
	return t.out.String(), !t.partial
}

// psInertCmdlets shape, show or test values and open nothing by name.
var psInertCmdlets = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"select-object": true, "where-object": true, "foreach-object": true, "measure-object": true, "sort-object": true,
		"group-object": true, "format-table": true, "format-list": true, "convertfrom-json": true, "convertto-json": true,
		"get-date": true, "out-host": true, "out-null": true, "out-string": true, "get-location": true, "test-path": true,
		"get-command": true, "get-help": true, "write-error": true, "write-verbose": true, "write-warning": true,
		"get-scheduledtask": true, "get-itemproperty": true, "get-process": true, "select": true, "where": true, "%": true,
		"?": true, "sort": true, "ft": true, "fl": true, "measure": true, "foreach": true, "set-clipboard": true,
		"get-member": true, "gm": true, "new-scheduledtasktrigger": true, "new-object": true, "start-sleep": true,
	}
})

type psTranslator struct {
	home  string
	vars  map[string]psVar // $name = … assignments seen so far, by ${PS_NAME}
	lower string           // the whole text, lower-cased (a TCP client with a stream is a shell)
	out   strings.Builder
	lines int
	// partial: a command was dropped or a cmdlet is not one the reader
	// knows; the embedded text then keeps its conservative reading
	partial bool
}

const psMaxLines = 512

func (t *psTranslator) emit(line string) {
	if line == "" || t.lines >= psMaxLines {
		return
	}
	t.lines++
	if t.lines == psMaxLines {
		t.partial = true
	}
	t.out.WriteString(line)
	t.out.WriteByte('\n')
}

func (t *psTranslator) stmts(ss []psStmt, depth int) {
	if depth > psMaxDepth {
		return
	}
	for _, st := range ss {
		var parts []string
		for i, cmd := range st.cmds {
			b, _ := t.command(cmd, depth, i > 0)
			if b == "" && !psHarmlessEmpty(cmd) {
				t.partial = true
			}
			if b == "" {
				b = "cat"
				if i == 0 {
					b = "true"
				}
			}
			parts = append(parts, b)
		}
		t.emit(strings.Join(parts, " | "))
	}
}

// psAliases maps aliases and short names to the cmdlets they run.
var psAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"gc": "get-content", "cat": "get-content", "type": "get-content",
		"sc": "set-content", "ac": "add-content",
		"iwr": "invoke-webrequest", "curl": "invoke-webrequest", "wget": "invoke-webrequest", "irm": "invoke-restmethod",
		"iex": "invoke-expression", "saps": "start-process", "start": "start-process",
		"rm": "remove-item", "del": "remove-item", "rd": "remove-item", "ri": "remove-item", "rmdir": "remove-item", "erase": "remove-item",
		"cp": "copy-item", "copy": "copy-item", "cpi": "copy-item", "mv": "move-item", "move": "move-item", "mi": "move-item",
		"ni": "new-item", "sls": "select-string", "gci": "get-childitem", "dir": "get-childitem", "ls": "get-childitem",
		"sp": "set-itemproperty", "gi": "get-item", "icm": "invoke-command", "ipcsv": "import-csv",
		"echo": "write-output", "write-host": "write-output", "oh": "out-host", "iwmi": "invoke-wmimethod",
		"cd": "set-location", "sl": "set-location", "chdir": "set-location", "pushd": "set-location", "push-location": "set-location",
	}
})

// psSpec is what a cmdlet's parameters are: those that take a value (the
// rest are switches) and the positional order.
type psSpec struct {
	vals []string
	pos  []string
}

var psSpecs = sync.OnceValue(func() map[string]psSpec {
	return map[string]psSpec{
		"get-content":             {vals: []string{"path", "literalpath", "encoding", "totalcount", "tail", "head", "first", "last", "delimiter", "readcount", "stream", "filter", "include", "exclude"}, pos: []string{"path"}},
		"import-csv":              {vals: []string{"path", "literalpath", "delimiter", "encoding", "header"}, pos: []string{"path"}},
		"import-clixml":           {vals: []string{"path", "literalpath"}, pos: []string{"path"}},
		"get-filehash":            {vals: []string{"path", "literalpath", "algorithm"}, pos: []string{"path"}},
		"test-path":               {vals: []string{"path", "literalpath", "pathtype", "filter", "include", "exclude", "olderthan", "newerthan"}, pos: []string{"path"}},
		"select-string":           {vals: []string{"pattern", "path", "literalpath", "include", "exclude", "encoding", "context"}, pos: []string{"pattern", "path"}},
		"set-content":             {vals: []string{"path", "literalpath", "value", "encoding", "stream"}, pos: []string{"path", "value"}},
		"add-content":             {vals: []string{"path", "literalpath", "value", "encoding", "stream"}, pos: []string{"path", "value"}},
		"out-file":                {vals: []string{"filepath", "literalpath", "encoding", "width", "inputobject"}, pos: []string{"filepath"}},
		"new-item":                {vals: []string{"path", "name", "itemtype", "type", "value"}, pos: []string{"path"}},
		"copy-item":               {vals: []string{"path", "literalpath", "destination", "filter", "include", "exclude"}, pos: []string{"path", "destination"}},
		"move-item":               {vals: []string{"path", "literalpath", "destination", "filter", "include", "exclude"}, pos: []string{"path", "destination"}},
		"remove-item":             {vals: []string{"path", "literalpath", "filter", "include", "exclude", "stream"}, pos: []string{"path"}},
		"invoke-webrequest":       {vals: psWebVals, pos: []string{"uri"}},
		"invoke-restmethod":       {vals: psWebVals, pos: []string{"uri"}},
		"start-bitstransfer":      {vals: []string{"source", "destination", "displayname", "description", "priority", "transfertype"}, pos: []string{"source", "destination"}},
		"start-process":           {vals: []string{"filepath", "argumentlist", "workingdirectory", "verb", "windowstyle", "redirectstandardoutput", "redirectstandardinput", "redirectstandarderror", "credential"}, pos: []string{"filepath", "argumentlist"}},
		"invoke-expression":       {vals: []string{"command"}, pos: []string{"command"}},
		"invoke-command":          {vals: []string{"scriptblock", "computername", "filepath", "argumentlist", "session", "credential"}, pos: []string{"scriptblock"}},
		"set-itemproperty":        {vals: []string{"path", "literalpath", "name", "value", "propertytype", "type"}, pos: []string{"path", "name", "value"}},
		"new-itemproperty":        {vals: []string{"path", "literalpath", "name", "value", "propertytype", "type"}, pos: []string{"path", "name", "value"}},
		"get-childitem":           {vals: []string{"path", "literalpath", "filter", "include", "exclude", "depth"}, pos: []string{"path"}},
		"get-item":                {vals: []string{"path", "literalpath", "filter", "include", "exclude"}, pos: []string{"path"}},
		"register-scheduledtask":  {vals: []string{"taskname", "action", "trigger", "settings", "user", "principal", "taskpath", "description", "inputobject", "runlevel", "password", "xml"}, pos: []string{"taskname", "action", "trigger"}},
		"new-scheduledtaskaction": {vals: []string{"execute", "argument", "workingdirectory", "id"}, pos: []string{"execute", "argument"}},
		"write-output":            {vals: []string{"inputobject"}, pos: []string{"inputobject"}},
		"join-path":               {vals: []string{"path", "childpath", "additionalchildpath"}, pos: []string{"path", "childpath", "additionalchildpath"}},
		"set-location":            {vals: []string{"path", "literalpath", "stackname"}, pos: []string{"path"}},
		"import-certificate":      {vals: psCertVals, pos: []string{"filepath"}},
		"import-pfxcertificate":   {vals: psCertVals, pos: []string{"filepath"}},
		"compress-archive":        {vals: []string{"path", "literalpath", "destinationpath", "compressionlevel"}, pos: []string{"path", "destinationpath"}},
		"send-mailmessage":        {vals: []string{"attachments", "smtpserver", "to", "from", "subject", "body", "port", "credential", "cc", "bcc"}, pos: []string{"to", "subject", "body"}},
	}
})

var psWebVals = []string{"uri", "outfile", "method", "body", "infile", "headers", "contenttype", "useragent", "proxy", "credential",
	"sessionvariable", "websession", "timeoutsec", "maximumredirection", "form", "transferencoding", "customMethod", "certificate"}

// psCall is one command's parameters as bound.
type psCall struct {
	named map[string][]psTok
	pos   []psTok
	sw    map[string]bool
}

func (c *psCall) get(name string) (psTok, bool) {
	if v := c.named[name]; len(v) > 0 {
		return v[0], true
	}
	return psTok{}, false
}

func psBind(spec psSpec, toks []psTok) psCall {
	c := psCall{named: map[string][]psTok{}, sw: map[string]bool{}}
	var posv []psTok
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if tk.kind == psOp && tk.s == "," {
			continue
		}
		if tk.kind == psWord && len(tk.s) > 1 && tk.s[0] == '-' && !isDigitByte(tk.s[1]) && !strings.HasPrefix(tk.s, "-${") {
			name, glued, hasGlued := strings.Cut(strings.ToLower(tk.s[1:]), ":")
			full := ""
			for _, v := range spec.vals {
				if v == name || len(name) >= 2 && strings.HasPrefix(v, name) {
					full = v
					break
				}
			}
			if full == "" {
				c.sw[name] = true
				continue
			}
			if hasGlued {
				c.named[full] = append(c.named[full], psTok{kind: psWord, s: tk.s[len(tk.s)-len(glued):]})
				continue
			}
			for i+1 < len(toks) {
				i++
				c.named[full] = append(c.named[full], toks[i])
				if i+1 < len(toks) && toks[i+1].kind == psOp && toks[i+1].s == "," {
					i++
					continue
				}
				break
			}
			continue
		}
		posv = append(posv, tk)
	}
	for i, tk := range posv {
		if i < len(spec.pos) {
			if _, ok := c.named[spec.pos[i]]; !ok {
				c.named[spec.pos[i]] = []psTok{tk}
				continue
			}
		}
		c.pos = append(c.pos, tk)
	}
	return c
}

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }

// command translates one pipeline element; piped says it reads the
// previous element's output. dl: its output is downloaded text.
func (t *psTranslator) command(cmd []psTok, depth int, piped bool) (string, bool) {
	if len(cmd) == 0 || depth > psMaxDepth {
		return "", false
	}
	// $x = <command>
	if len(cmd) >= 2 && cmd[1].kind == psOp && cmd[1].s == "=" {
		if len(cmd) == 2 {
			return "", false
		}
		if len(cmd) == 3 && cmd[2].kind == psWord && !psIsCommandWord(cmd[2].s) {
			t.setVar(cmd[0].s, psVar{s: t.val(cmd[2], depth)})
			return "", false
		}
		if cmd[2].kind == psWord && strings.EqualFold(cmd[2].s, "join-path") {
			c := psBind(psSpecs()["join-path"], cmd[3:])
			if _, ok := c.get("path"); ok {
				t.setVar(cmd[0].s, psVar{s: t.joinPath(&c, depth)})
			}
			return "", false
		}
		b, dl := t.command(cmd[2:], depth, piped)
		if dl {
			t.setVar(cmd[0].s, psVar{dl: true, bash: b})
		}
		return b, dl
	}
	if b, dl, ok := t.members(cmd, depth); ok {
		return b, dl
	}
	head := cmd[0]
	if head.kind == psOp && (head.s == "&" || head.s == ".") && len(cmd) > 1 {
		return t.invoke(cmd[1], cmd[2:], depth)
	}
	if head.kind == psSub {
		// (iwr …) or a script block run as a value: its commands run
		b, dl := t.subCommand(head, depth)
		return b, dl
	}
	if head.kind != psWord {
		return "", false
	}
	name := strings.ToLower(head.s)
	if i := strings.LastIndexByte(name, '\\'); i >= 0 && !strings.Contains(name, "/") && !strings.HasSuffix(name, ".exe") {
		name = name[i+1:] // Microsoft.PowerShell.Management\Get-Content
	}
	if a, ok := psAliases()[name]; ok {
		name = a
	}
	spec, known := psSpecs()[name]
	if !known {
		if strings.Contains(name, "-") && !psInertCmdlets()[name] || name == "" {
			t.partial = true
		}
		return t.external(head.s, cmd[1:], depth), false
	}
	c := psBind(spec, cmd[1:])
	t.subsOf(cmd[1:], depth)
	redirect := t.redirects(cmd[1:])
	p := func(n string) string {
		if v, ok := c.get(n); ok {
			return t.pathWord(t.val(v, depth))
		}
		return ""
	}
	var b string
	dl := false
	switch name {
	case "get-content", "import-csv", "import-clixml", "get-filehash":
		src := p("path")
		if src == "" {
			src = p("literalpath")
		}
		if src == "" {
			return "", false
		}
		if l := strings.ToLower(strings.Trim(src, "'")); strings.HasPrefix(l, "env:") {
			return "printenv " + strings.ToUpper(strings.Trim(l[4:], `\/`)), false
		}
		b = "cat " + src
	case "test-path":
		// whether the path exists: test -e, which opens nothing
		src := p("path")
		if src == "" {
			src = p("literalpath")
		}
		return strings.TrimSpace("test -e " + src), false
	case "set-location":
		dst := p("path")
		if dst == "" {
			dst = p("literalpath")
		}
		if dst == "" {
			return "cd", false
		}
		return "cd " + dst, false
	case "compress-archive":
		dst := p("destinationpath")
		var srcs []string
		for _, v := range append(c.named["path"], c.named["literalpath"]...) {
			srcs = append(srcs, t.pathWord(t.val(v, depth)))
		}
		if dst == "" || len(srcs) == 0 {
			return "", false
		}
		return "zip -r " + dst + " " + strings.Join(srcs, " "), false
	case "send-mailmessage":
		srv := "smtp://localhost"
		if v, ok := c.get("smtpserver"); ok {
			srv = "smtp://" + t.val(v, depth)
		}
		var att []string
		for _, v := range c.named["attachments"] {
			att = append(att, "-T "+t.pathWord(t.val(v, depth)))
		}
		if len(att) == 0 {
			return "curl -s " + psBashWord(srv), false
		}
		return "curl -s " + strings.Join(att, " ") + " " + psBashWord(srv), false
	case "select-string":
		src := p("path")
		if src == "" {
			src = p("literalpath")
		}
		pat := "x"
		if v, ok := c.get("pattern"); ok {
			pat = psBashWord(t.val(v, depth))
		}
		if src == "" {
			b = "grep -e " + pat
		} else {
			b = "grep -e " + pat + " " + src
		}
	case "set-content", "add-content", "out-file":
		dst := p("path")
		if name == "out-file" {
			dst = p("filepath")
		}
		if dst == "" {
			dst = p("literalpath")
		}
		if dst == "" {
			return "", false
		}
		op := " > "
		if name == "add-content" || c.sw["append"] {
			op = " >> "
		}
		if v, ok := c.get("value"); ok && !piped {
			b = "printf %s " + psBashWord(t.val(v, depth)) + op + dst
		} else {
			b = "cat" + op + dst
		}
	case "new-item":
		dst := p("path")
		if v, ok := c.get("name"); ok {
			n := t.val(v, depth)
			if dst == "" {
				dst = t.pathWord(n)
			} else {
				dst = t.pathWord(t.val(c.named["path"][0], depth) + "/" + n)
			}
		}
		if dst == "" {
			return "", false
		}
		if psRegistry(dst) {
			return "reg add " + psRegKey(dst) + " /f", false
		}
		if v, ok := c.get("value"); ok {
			b = "printf %s " + psBashWord(t.val(v, depth)) + " > " + dst
		} else if it, ok := c.get("itemtype"); ok && strings.HasPrefix(strings.ToLower(it.s), "d") {
			b = "mkdir -p " + dst
		} else {
			b = "touch " + dst
		}
	case "copy-item", "move-item":
		src, dst := p("path"), p("destination")
		if src == "" {
			src = p("literalpath")
		}
		if src == "" || dst == "" {
			return "", false
		}
		prog := "cp -r "
		if name == "move-item" {
			prog = "mv "
		}
		b = prog + src + " " + dst
	case "remove-item":
		var targets []string
		for _, v := range append(c.named["path"], c.named["literalpath"]...) {
			targets = append(targets, t.pathWord(t.val(v, depth)))
		}
		for _, v := range c.pos {
			targets = append(targets, t.pathWord(t.val(v, depth)))
		}
		if len(targets) == 0 {
			return "", false
		}
		flags := "rm "
		if c.sw["recurse"] || c.sw["r"] || c.sw["rec"] {
			flags += "-r "
		}
		if c.sw["force"] || c.sw["fo"] || c.sw["f"] {
			flags += "-f "
		}
		b = flags + "-- " + strings.Join(targets, " ")
	case "invoke-webrequest", "invoke-restmethod":
		b, dl = t.web(&c, depth)
		if b == "" {
			return "", false
		}
	case "start-bitstransfer":
		src, dst := "", p("destination")
		if v, ok := c.get("source"); ok {
			src = psBashWord(t.val(v, depth))
		}
		if src == "" {
			return "", false
		}
		if dst == "" {
			dst = "."
		}
		if c.sw["uploa"] || strings.EqualFold(strings.Join(psVals(c.named["transfertype"]), ""), "upload") {
			d, _ := c.get("destination")
			b = "curl -T " + p("source") + " " + psBashWord(t.val(d, depth))
		} else {
			b = "curl -o " + dst + " " + src
		}
	case "start-process":
		v, ok := c.get("filepath")
		if !ok {
			return "", false
		}
		b = t.external(t.val(v, depth), c.named["argumentlist"], depth)
	case "invoke-expression":
		v, ok := c.get("command")
		if !ok {
			if piped {
				return "sh", false
			}
			return "", false
		}
		return t.runText(v, depth), false
	case "invoke-command":
		v, ok := c.get("scriptblock")
		if !ok {
			if f, ok := c.get("filepath"); ok {
				return ". " + t.pathWord(t.val(f, depth)), false
			}
			return "", false
		}
		return t.runText(v, depth), false
	case "set-itemproperty", "new-itemproperty":
		key := p("path")
		if key == "" {
			key = p("literalpath")
		}
		nm, val := "", ""
		if v, ok := c.get("name"); ok {
			nm = t.val(v, depth)
		}
		if v, ok := c.get("value"); ok {
			val = t.val(v, depth)
		}
		if key == "" {
			return "", false
		}
		if psRegistry(key) {
			return "reg add " + psRegKey(key) + " /v " + psBashWord(nm) + " /d " + psBashWord(val) + " /f", false
		}
		return "", false
	case "get-childitem", "get-item":
		src := p("path")
		if src == "" {
			src = p("literalpath")
		}
		lp := strings.ToLower(strings.Trim(src, "'"))
		if strings.HasPrefix(lp, "env:") {
			if rest := strings.Trim(lp[4:], `\/`); rest != "" && !strings.ContainsAny(rest, "*?") {
				return "printenv " + strings.ToUpper(rest), false
			}
			return "env", false
		}
		if src == "" {
			b = "ls"
		} else if c.sw["recurse"] || c.sw["r"] || c.sw["rec"] {
			b = "ls -R " + src
		} else {
			b = "ls " + src
		}
	case "register-scheduledtask", "new-scheduledtaskaction":
		run := t.taskAction(cmd, depth)
		if run == "" {
			return "", false
		}
		return "schtasks /create /tn x /tr " + psBashWord(run), false
	case "write-output":
		if v, ok := c.get("inputobject"); ok {
			return "echo " + psBashWord(t.val(v, depth)), false
		}
		return "echo", false
	case "join-path":
		return "echo " + psBashWord(t.joinPath(&c, depth)), false
	case "import-certificate", "import-pfxcertificate":
		store := ""
		if v, ok := c.get("certstorelocation"); ok {
			store = t.val(v, depth)
		}
		return psImportCert(p("filepath"), store), false
	}
	if redirect != "" {
		b += redirect
	}
	return b, dl
}

func psVals(ts []psTok) []string {
	out := make([]string, 0, len(ts))
	for _, tk := range ts {
		out = append(out, tk.s)
	}
	return out
}

// web translates Invoke-WebRequest and Invoke-RestMethod to curl.
func (t *psTranslator) web(c *psCall, depth int) (string, bool) {
	v, ok := c.get("uri")
	if !ok {
		return "", false
	}
	u := psBashWord(t.val(v, depth))
	var b strings.Builder
	b.WriteString("curl -s")
	if of, ok := c.get("outfile"); ok {
		b.WriteString(" -o " + t.pathWord(t.val(of, depth)))
	}
	if m, ok := c.get("method"); ok {
		b.WriteString(" -X " + psBashWord(strings.ToUpper(m.s)))
	}
	for _, h := range c.named["headers"] {
		if h.kind == psSub {
			for _, kv := range psHashPairs(h) {
				b.WriteString(" -H " + psBashWord(kv))
			}
		}
	}
	pre := ""
	if in, ok := c.get("infile"); ok {
		b.WriteString(" --data-binary @" + t.pathWord(t.val(in, depth)))
	}
	if body, ok := c.get("body"); ok {
		if body.kind == psSub {
			if inner, _ := t.subCommand(body, depth); inner != "" {
				pre = inner + " | "
				b.WriteString(" --data-binary @-")
			} else {
				for _, kv := range psHashPairs(body) {
					b.WriteString(" -d " + psBashWord(kv))
				}
			}
		} else {
			b.WriteString(" --data-binary " + psBashWord(t.val(body, depth)))
		}
	}
	b.WriteString(" " + u)
	_, out := c.get("outfile")
	return pre + b.String(), !out
}

// psHashPairs reads @{A="b"; C='d'} as "A: b" pairs.
func psHashPairs(h psTok) []string {
	var out []string
	for _, st := range h.sub {
		for _, cmd := range st.cmds {
			if len(cmd) >= 3 && cmd[1].kind == psOp && cmd[1].s == "=" {
				out = append(out, cmd[0].s+": "+cmd[2].s)
			}
		}
	}
	return out
}

// runText is Invoke-Expression of a value: a string is PowerShell read
// again, a downloaded value is download-exec.
func (t *psTranslator) runText(v psTok, depth int) string {
	if v.kind == psSub && v.blk {
		// a script block's commands run; it is not a value
		inner, _ := t.subCommand(v, depth)
		return inner
	}
	if v.kind == psSub {
		if sv := psValueOfDepth(v.sub, t.home, depth+1); sv != "" && !psIsCommandWord(sv) {
			// iex ('gc ~/.ss'+'h/id_rsa'): a known string is code
			return "pwsh -Command " + psBashWord(sv)
		}
		inner, dl := t.subCommand(v, depth)
		if dl && inner != "" {
			return inner + " | sh"
		}
		if len(v.sub) > 0 && inner == "" {
			return ""
		}
		if inner != "" && !dl {
			// a script block or a value: its commands were walked; the
			// value it makes is run as well
			return inner + " | sh"
		}
		return ""
	}
	if pv, ok := t.varOf(v.s); ok && pv.dl {
		return pv.bash + " | sh" // $r = iwr …; iex $r
	}
	if strings.Contains(v.s, "${") {
		return "sh -c " + psBashWord(t.val(v, depth))
	}
	return "pwsh -Command " + psBashWord(v.s)
}

// subCommand translates a sub-expression's statements: the last pipeline
// is returned (its output is the value), the others are emitted.
func (t *psTranslator) subCommand(s psTok, depth int) (string, bool) {
	if len(s.sub) == 0 {
		return "", false
	}
	t.stmts(s.sub[:len(s.sub)-1], depth+1)
	last := s.sub[len(s.sub)-1]
	var parts []string
	dl := false
	for i, cmd := range last.cmds {
		b, d := t.command(cmd, depth+1, i > 0)
		if b == "" {
			continue
		}
		dl = d || dl && i > 0
		parts = append(parts, b)
	}
	return strings.Join(parts, " | "), dl
}

// subsOf walks the sub-expressions among a command's arguments as
// commands of their own (their output is an argument).
func (t *psTranslator) subsOf(toks []psTok, depth int) {
	for _, tk := range toks {
		if tk.kind == psSub && len(tk.sub) > 0 && !psIsHash(tk) {
			t.stmts(tk.sub, depth+1)
		}
	}
}

func psIsHash(tk psTok) bool {
	for _, st := range tk.sub {
		for _, cmd := range st.cmds {
			if len(cmd) < 2 || cmd[1].kind != psOp || cmd[1].s != "=" {
				return false
			}
		}
	}
	return len(tk.sub) > 0
}

// redirects reads > FILE and >> FILE among a command's tokens.
func (t *psTranslator) redirects(toks []psTok) string {
	var b strings.Builder
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind == psOp && strings.HasSuffix(toks[i].s, ">") && toks[i+1].kind == psWord {
			op := " > "
			if strings.HasSuffix(toks[i].s, ">>") {
				op = " >> "
			}
			if strings.HasSuffix(toks[i+1].s, "null") {
				continue
			}
			b.WriteString(op + t.pathWord(toks[i+1].s))
		}
	}
	return b.String()
}

// invoke is & X args or . X: a script block's commands, or a program.
func (t *psTranslator) invoke(x psTok, rest []psTok, depth int) (string, bool) {
	if x.kind == psSub && !x.blk {
		// & ('Get-'+'Content') path: the value names the command
		if v := psValueOfDepth(x.sub, t.home, depth+1); v != "" && !strings.ContainsAny(v, " \t") {
			x = psTok{kind: psWord, s: v}
		}
	}
	if x.kind == psSub {
		return t.subCommand(x, depth)
	}
	if psIsCommandWord(x.s) {
		// & 'Get-Content' path is the cmdlet, not a program of that name
		return t.command(append([]psTok{x}, rest...), depth+1, false)
	}
	if strings.HasSuffix(strings.ToLower(x.s), ".ps1") {
		return ". " + t.pathWord(x.s), false
	}
	return t.external(x.s, rest, depth), false
}

// external is a program PowerShell starts: its name and arguments as
// words, each one bash word.
func (t *psTranslator) external(prog string, args []psTok, depth int) string {
	lp := strings.ToLower(prog)
	if lp == "" || strings.HasPrefix(lp, "${") {
		return ""
	}
	t.subsOf(args, depth)
	var b strings.Builder
	b.WriteString(psBashWord(prog))
	for _, a := range args {
		switch a.kind {
		case psWord:
			b.WriteByte(' ')
			b.WriteString(psBashWord(a.s))
		case psSub:
			if v := psValueOf(a.sub); v != "" {
				b.WriteByte(' ')
				b.WriteString(psBashWord(v))
			}
		case psOp:
			if strings.HasSuffix(a.s, ">") {
				b.WriteString(" " + a.s)
			}
		}
	}
	return b.String()
}

// taskAction finds what a scheduled task's action runs: -Execute and
// -Argument anywhere in the command, its sub-expressions included.
func (t *psTranslator) taskAction(cmd []psTok, depth int) string {
	var exe, arg string
	var find func(ts []psTok, d int)
	find = func(ts []psTok, d int) {
		if d > psMaxDepth {
			return
		}
		for i, tk := range ts {
			if tk.kind == psSub {
				for _, st := range tk.sub {
					for _, c := range st.cmds {
						find(c, d+1)
					}
				}
				continue
			}
			if tk.kind != psWord || i+1 >= len(ts) {
				continue
			}
			switch l := strings.ToLower(tk.s); {
			case l == "-execute" || l == "-exe" || l == "-e":
				exe = ts[i+1].s
			case l == "-argument" || l == "-arg" || l == "-a":
				arg = ts[i+1].s
			}
		}
	}
	find(cmd, depth)
	if exe == "" {
		return ""
	}
	return strings.TrimSpace(exe + " " + arg)
}

func (t *psTranslator) joinPath(c *psCall, depth int) string {
	var parts []string
	for _, n := range []string{"path", "childpath", "additionalchildpath"} {
		for _, v := range c.named[n] {
			parts = append(parts, strings.Trim(t.val(v, depth), `\/`))
		}
	}
	for _, v := range c.pos {
		parts = append(parts, strings.Trim(t.val(v, depth), `\/`))
	}
	if ps := c.named["path"]; len(parts) > 0 && len(ps) > 0 && strings.HasPrefix(t.val(ps[0], depth), "/") {
		parts[0] = "/" + parts[0]
	}
	return strings.Join(parts, "/")
}

// val is a token's string value; a sub-expression's when it is known.
func (t *psTranslator) val(v psTok, depth int) string {
	if v.kind == psSub {
		return psValueOfDepth(v.sub, t.home, depth+1)
	}
	if len(t.vars) == 0 || !strings.Contains(v.s, "${PS_") {
		return v.s
	}
	s := v.s
	for name, pv := range t.vars {
		if !pv.dl && strings.Contains(s, name) {
			s = strings.ReplaceAll(s, name, pv.s)
		}
	}
	return s
}

// psVar is what the reader knows of a variable: a string value, or the
// output of a download (and the bash that fetched it).
type psVar struct {
	s    string
	dl   bool
	bash string
}

const psMaxVars = 64

func (t *psTranslator) setVar(lhs string, v psVar) {
	if !strings.HasPrefix(lhs, "${PS_") || !strings.HasSuffix(lhs, "}") || len(v.s) > 4096 {
		return
	}
	if t.vars == nil {
		t.vars = map[string]psVar{}
	}
	if len(t.vars) < psMaxVars || t.vars[lhs] != (psVar{}) {
		t.vars[lhs] = v
	}
}

// varOf finds the variable a word starts with ($r, $r.Content).
func (t *psTranslator) varOf(s string) (psVar, bool) {
	if !strings.HasPrefix(s, "${PS_") {
		return psVar{}, false
	}
	i := strings.IndexByte(s, '}')
	if i < 0 {
		return psVar{}, false
	}
	v, ok := t.vars[s[:i+1]]
	return v, ok
}

// psIsCommandWord reports a word that, alone on an assignment's right
// side, is a command rather than a value (gci, Get-Date).
func psIsCommandWord(s string) bool {
	l := strings.ToLower(s)
	if _, ok := psAliases()[l]; ok {
		return true
	}
	if _, ok := psSpecs()[l]; ok {
		return true
	}
	return strings.Contains(l, "-") && !strings.ContainsAny(l, "/\\:.$ ")
}

// psValueOf is the value of a sub-expression when the reader knows it: a
// string, or a Join-Path of known parts.
func psValueOf(sub []psStmt) string { return psValueOfDepth(sub, "", 0) }

func psValueOfDepth(sub []psStmt, home string, depth int) string {
	if len(sub) != 1 || len(sub[0].cmds) != 1 || depth > psMaxDepth {
		return ""
	}
	cmd := sub[0].cmds[0]
	if len(cmd) == 1 && cmd[0].kind == psWord {
		return cmd[0].s
	}
	if len(cmd) == 1 && cmd[0].kind == psSub {
		return psValueOfDepth(cmd[0].sub, home, depth+1)
	}
	if v, ok := psDecoded(cmd, home, depth); ok {
		return v
	}
	if len(cmd) > 1 && cmd[0].kind == psWord && strings.EqualFold(cmd[0].s, "join-path") {
		t := psTranslator{home: home}
		c := psBind(psSpecs()["join-path"], cmd[1:])
		if _, ok := c.get("path"); !ok {
			return ""
		}
		return t.joinPath(&c, depth)
	}
	return ""
}

// psDecoded is the value of [Text.Encoding]::ENC.GetString([Convert]::
// FromBase64String('…')) with a known string: the decoded text, which an
// Invoke-Expression around it runs (Unicode is UTF-16LE, the others are
// read as bytes).
func psDecoded(cmd []psTok, home string, depth int) (string, bool) {
	if len(cmd) != 4 || cmd[0].kind != psWord || !strings.Contains(strings.ToLower(cmd[0].s), "encoding]") ||
		cmd[1].kind != psMember || cmd[2].kind != psMember || !strings.EqualFold(cmd[2].s, "getstring") || cmd[3].kind != psSub ||
		len(cmd[3].sub) != 1 || len(cmd[3].sub[0].cmds) != 1 {
		return "", false
	}
	in := cmd[3].sub[0].cmds[0]
	if len(in) != 3 || in[0].kind != psWord || !strings.Contains(strings.ToLower(in[0].s), "convert]") ||
		in[1].kind != psMember || !strings.EqualFold(in[1].s, "frombase64string") || in[2].kind != psSub {
		return "", false
	}
	b64 := psValueOfDepth(in[2].sub, home, depth+1)
	if b64 == "" {
		return "", false
	}
	if strings.EqualFold(cmd[1].s, "unicode") {
		return decodePSBase64(b64)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// members reads the .NET calls of a command: WebClient downloads and
// uploads, [IO.File] reads and writes, [Environment] dumps, TCP clients.
func (t *psTranslator) members(cmd []psTok, depth int) (string, bool, bool) {
	for i, tk := range cmd {
		if tk.kind == psWord && strings.Contains(strings.ToLower(tk.s), "net.sockets.tcpclient") {
			args := t.callArgs(cmd, i+1, depth)
			if len(args) >= 2 {
				h, p := args[0], args[1]
				if strings.Contains(t.lower, "getstream") {
					return "sh -i >& /dev/tcp/" + h + "/" + p + " 0>&1", false, true
				}
				return "nc " + psBashWord(h) + " " + psBashWord(p), false, true
			}
		}
		if tk.kind != psMember {
			continue
		}
		m := strings.ToLower(tk.s)
		args := t.callArgs(cmd, i+1, depth)
		recv := ""
		if i > 0 {
			recv = strings.ToLower(cmd[i-1].s)
		}
		arg := func(n int) string {
			if n < len(args) {
				return args[n]
			}
			return ""
		}
		last := func() string {
			if len(args) > 0 {
				return args[len(args)-1]
			}
			return ""
		}
		switch m {
		case "downloadstring", "downloaddata", "opendownload", "downloadstringtaskasync", "downloaddatataskasync", "openread":
			return "curl -s " + psBashWord(arg(0)), true, true
		case "downloadfile", "downloadfiletaskasync":
			return "curl -s -o " + t.pathWord(arg(1)) + " " + psBashWord(arg(0)), false, true
		case "uploadstring", "uploaddata", "uploadvalues", "uploadstringtaskasync":
			return "curl -s --data-binary " + psBashWord(last()) + " " + psBashWord(arg(0)), false, true
		case "uploadfile", "uploadfiletaskasync":
			return "curl -s -T " + t.pathWord(last()) + " " + psBashWord(arg(0)), false, true
		case "readalltext", "readallbytes", "readalllines", "opentext", "readlines":
			if strings.Contains(recv, "file") {
				return "cat " + t.pathWord(arg(0)), false, true
			}
		case "writealltext", "writeallbytes", "writealllines", "appendalltext", "appendalllines":
			if strings.Contains(recv, "file") {
				op := " > "
				if strings.HasPrefix(m, "append") {
					op = " >> "
				}
				return "printf %s " + psBashWord(arg(1)) + op + t.pathWord(arg(0)), false, true
			}
		case "delete":
			if strings.Contains(recv, "file") || strings.Contains(recv, "directory") {
				return "rm -r -f -- " + t.pathWord(arg(0)), false, true
			}
		case "copy", "move":
			if strings.Contains(recv, "file") {
				p := "cp "
				if m == "move" {
					p = "mv "
				}
				return p + t.pathWord(arg(0)) + " " + t.pathWord(arg(1)), false, true
			}
		case "create":
			if strings.Contains(recv, "scriptblock") && i+1 < len(cmd) && cmd[i+1].kind == psSub && len(cmd[i+1].sub) > 0 {
				// [scriptblock]::Create(TEXT): TEXT is code
				if r := t.runText(psTok{kind: psSub, sub: cmd[i+1].sub}, depth); r != "" {
					return r, false, true
				}
			}
		case "getenvironmentvariables":
			return "env", false, true
		case "getenvironmentvariable":
			return "printenv " + psBashWord(arg(0)), false, true
		case "start":
			if strings.Contains(recv, "process") {
				return t.external(arg(0), psWords(args[min(1, len(args)):]), depth), false, true
			}
		}
	}
	return "", false, false
}

func psWords(ss []string) []psTok {
	out := make([]psTok, len(ss))
	for i, s := range ss {
		out[i] = psTok{kind: psWord, s: s}
	}
	return out
}

// callArgs reads the argument list of a method call at cmd[i] (a
// sub-expression of comma-separated values).
func (t *psTranslator) callArgs(cmd []psTok, i, depth int) []string {
	if i >= len(cmd) || cmd[i].kind != psSub || len(cmd[i].sub) == 0 {
		return nil
	}
	var out []string
	for _, c := range cmd[i].sub[0].cmds {
		for _, tk := range c {
			switch tk.kind {
			case psWord:
				out = append(out, tk.s)
			case psSub:
				out = append(out, t.val(tk, depth))
			}
		}
	}
	return out
}

// pathWord is a PowerShell path as one bash word: ~ is the home,
// backslashes are separators, provider prefixes go.
func (t *psTranslator) pathWord(s string) string {
	if i := strings.Index(strings.ToLower(s), "filesystem::"); i >= 0 {
		s = s[i+len("filesystem::"):]
	}
	if !strings.Contains(s, "://") {
		s = strings.ReplaceAll(s, `\`, "/")
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		s = t.home + s[1:]
	}
	return psBashWord(s)
}

// psBashWord quotes a value as one bash word; ${NAME} in it stays a
// variable reference.
func psBashWord(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(shQuoteWord(s))
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(shQuoteWord(s))
			break
		}
		if i > 0 {
			b.WriteString(shQuoteWord(s[:i]))
		}
		b.WriteString(`"` + s[i:i+j+1] + `"`)
		s = s[i+j+1:]
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

func shQuoteWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func psRegistry(w string) bool {
	l := strings.ToLower(strings.Trim(w, "'"))
	return strings.HasPrefix(l, "hkcu:") || strings.HasPrefix(l, "hklm:") || strings.HasPrefix(l, "registry::")
}

// psRegKey is a registry drive path as reg.exe writes it (HKCU\…).
func psRegKey(w string) string {
	s := strings.Trim(w, "'")
	s = strings.ReplaceAll(s, "/", `\`)
	l := strings.ToLower(s)
	switch {
	case strings.HasPrefix(l, "registry::"):
		s = s[len("registry::"):]
	case strings.HasPrefix(l, "hkcu:"), strings.HasPrefix(l, "hklm:"):
		s = s[:4] + strings.TrimPrefix(s[5:], `\`)
		s = s[:4] + `\` + s[4:]
	}
	return shQuoteWord(s)
}

// pwshCode is PowerShell code a command hands to powershell or pwsh: kept
// as embedded code, and walked as its bash translation. whole reports that every command of the code was translated and
// walked, so the words of the command that hands it over are modelled (a
// path in a string Write-Output prints is data).
func (w *walker) pwshCode(code argVal, sc *scope) (bits flowBits, whole bool) {
	tr, complete := translatePS(code.s, w.home)
	whole = complete && !code.dyn && !code.dl
	bits = w.embeddedCode(code, sc, !whole)
	if tr != "" {
		bits |= w.evalProgram(tr, sc).bits
	}
	if whole {
		// every command was read: its facts are the translation's, and
		// a path in the text is not opened by any other (a public key
		// read by Get-Content is a read, not any access)
		w.res.Inert = append(w.res.Inert, code.s)
	}
	return bits, whole
}

// psHarmlessEmpty: statements that translate to nothing and do nothing a
// forbid judges (a bare variable, a value, an assignment of a value).
func psHarmlessEmpty(cmd []psTok) bool {
	if len(cmd) == 0 {
		return true
	}
	if len(cmd) >= 2 && cmd[1].kind == psOp && cmd[1].s == "=" {
		return len(cmd) == 3 && cmd[2].kind == psWord
	}
	h := cmd[0]
	return h.kind == psWord && (strings.HasPrefix(h.s, "${") || strings.HasPrefix(h.s, "'") || h.s == "" || psIsValue(h.s))
}

func psIsValue(s string) bool {
	return s != "" && (isDigitByte(s[0]) || s[0] == '"' || s[0] == '[' || s[0] == '-' || s[0] == '$')
}
