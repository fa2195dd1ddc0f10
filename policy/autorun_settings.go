package policy

import "strings"

// Settings whose command equivalent the shell reader judges. A key of an
// autorun entry written "PATTERN>COMMAND" names a setting (the last key of
// its path, '*' a wildcard) whose value, split into words, is what
// `COMMAND VALUE…` would set or run ("node-options>node": the options of
// every node npm starts):
// "registry>npm config set registry" makes a written `registry=URL` the
// command `npm config set registry URL`, so a file moves a package
// source exactly when the command that sets the same value does
// (policy/shell/pkgsource.go), and every other setting moves nothing.

// splitSettingKeys separates the "PATTERN>COMMAND" keys from the key
// paths the format's extractor reads.
func splitSettingKeys(keys []string) (plain, settings []string) {
	n := 0
	for _, k := range keys {
		if strings.IndexByte(k, '>') >= 0 {
			n++
		}
	}
	if n == 0 {
		return keys, nil
	}
	plain = make([]string, 0, len(keys)-n)
	for _, k := range keys {
		if strings.IndexByte(k, '>') >= 0 {
			settings = append(settings, k)
		} else {
			plain = append(plain, k)
		}
	}
	return plain, settings
}

// settingCommands finds each setting of settings in text, in any of the
// spellings the formats share — ini `key = value` and `key value` lines,
// YAML `key: value` at any depth, JSON or flow-style `"key": "value"` —
// and adds its command with the value.
func settingCommands(l *cmdList, text string, settings []string) {
	if len(settings) == 0 {
		return
	}
	for _, line := range lines(text) {
		if l.full() {
			return
		}
		for _, kv := range settingPairs(line) {
			lk := strings.ToLower(kv[0])
			for _, s := range settings {
				pat, cmd, _ := strings.Cut(s, ">")
				if wildMatch(pat, lk) {
					l.add(cmd+" "+shJoin(strings.Fields(kv[1])), false)
					break
				}
			}
		}
	}
}

// settingPairs reads the key/value pairs of one line: a key (quoted or
// bare) followed by '=' or by ':' and a space or a quote (a colon inside a
// bare key, as in @scope:registry, is part of it), and its value up to a
// space, quote, comma or brace.
func settingPairs(line string) [][2]string {
	var out [][2]string
	i := 0
	for i < len(line) && len(out) < 16 {
		for i < len(line) && strings.IndexByte(" \t{,[-", line[i]) >= 0 {
			i++
		}
		if i >= len(line) || line[i] == '#' || line[i] == ';' {
			return out
		}
		key, j := settingKey(line, i)
		if j <= i {
			return out
		}
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		sep := j < len(line) && line[j] == '='
		if !sep && j < len(line) && line[j] == ':' {
			sep = j+1 == len(line) || strings.IndexByte(" \t\"'", line[j+1]) >= 0
		}
		if !sep {
			// .yarnrc v1: `key "value"` or `key value`, the line's only pair
			if v, _ := settingValue(line, j, false); len(out) == 0 && key != "" && v != "" {
				out = append(out, [2]string{key, v})
			}
			return out
		}
		v, k := settingValue(line, j+1, strings.IndexByte(line[:i], '{') >= 0)
		if key != "" && v != "" {
			out = append(out, [2]string{key, v})
		}
		if k <= j {
			return out
		}
		i = k
	}
	return out
}

// settingKey reads a quoted key, or a bare one up to '=', space, or a
// ':' that ends it (followed by a space, a quote or the line's end).
func settingKey(line string, i int) (string, int) {
	if line[i] == '"' || line[i] == '\'' {
		q := line[i]
		j := strings.IndexByte(line[i+1:], q)
		if j < 0 {
			return "", i
		}
		return line[i+1 : i+1+j], i + 2 + j
	}
	j := i
	for j < len(line) {
		c := line[j]
		if c == '=' || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ',' || c == '}' {
			break
		}
		if c == ':' && (j+1 == len(line) || strings.IndexByte(" \t\"'", line[j+1]) >= 0) {
			break
		}
		j++
	}
	return line[i:j], j
}

// settingValue reads the value that starts at or after i: quoted, or bare
// to the line's end (an ini or YAML value: node-options=--require x.js),
// up to a comma or brace in a flow mapping.
func settingValue(line string, i int, flow bool) (string, int) {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return "", i
	}
	if line[i] == '"' || line[i] == '\'' {
		q := line[i]
		j := strings.IndexByte(line[i+1:], q)
		if j < 0 {
			return line[i+1:], len(line)
		}
		return line[i+1 : i+1+j], i + 2 + j
	}
	if !flow {
		v := line[i:]
		if c := strings.Index(v, " #"); c >= 0 {
			v = v[:c]
		}
		return strings.TrimSpace(v), len(line)
	}
	j := i
	for j < len(line) && strings.IndexByte(",}]", line[j]) < 0 {
		j++
	}
	return strings.TrimSpace(line[i:j]), j
}
