package policy

import "strings"

// sqlStatement reports whether s reads as a SQL statement: its first word,
// after white space, comments and opening parentheses, is a statement
// keyword. An MCP argument named query is a search string for a search
// tool and a statement for a database server (postgres, duckdb, …); a
// statement's functions open files (pg_read_file, read_text, readfile,
// LOAD_FILE) and run programs (COPY … TO PROGRAM), so it is read
// conservatively, never as data.
//
// A search string may start with "select" too ("select a laptop under
// …"): a statement also has what every file function and PROGRAM clause
// needs, a parenthesis or a quoted string.
func sqlStatement(s string) bool {
	if !strings.ContainsAny(s, "('") {
		return false
	}
	w := strings.ToLower(sqlFirstWord(s))
	switch w {
	case "select", "with", "insert", "update", "delete", "copy", "attach", "create", "drop", "alter", "call",
		"exec", "execute", "pragma", "load", "install", "merge", "explain", "values", "table", "do", "prepare",
		"truncate", "vacuum", "replace", "upsert", "show", "describe", "import", "export", "unload", "put", "get":
		return true
	}
	return false
}

// sqlFirstWord is the first word of s after white space, "--" and "/* */"
// comments and "(".
func sqlFirstWord(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n(;")
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
			continue
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s, "*/")
			if i < 0 {
				return ""
			}
			s = s[i+2:]
			continue
		}
		break
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
		i++
	}
	return s[:i]
}

// sqlPrograms are the shell commands a SQL statement hands to a shell:
// PostgreSQL's COPY … TO/FROM PROGRAM 'command'. The string's quotes are
// SQL's (” is one quote).
func sqlPrograms(s string) []string {
	var out []string
	low := strings.ToLower(s)
	for off := 0; ; {
		i := strings.Index(low[off:], "program")
		if i < 0 {
			return out
		}
		i += off + len("program")
		off = i
		if i-len("program") > 0 && sqlWordByte(low[i-len("program")-1]) || i < len(low) && sqlWordByte(low[i]) {
			continue
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			j++
		}
		if j >= len(s) || s[j] != '\'' && !(s[j] == 'E' || s[j] == 'e') {
			continue
		}
		if s[j] != '\'' {
			if j+1 >= len(s) || s[j+1] != '\'' {
				continue
			}
			j++
		}
		var b strings.Builder
		k := j + 1
		for k < len(s) {
			if s[k] == '\'' {
				if k+1 < len(s) && s[k+1] == '\'' {
					b.WriteByte('\'')
					k += 2
					continue
				}
				break
			}
			b.WriteByte(s[k])
			k++
		}
		out = append(out, b.String())
		off = k
	}
}

func sqlWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_'
}
