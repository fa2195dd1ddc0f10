package setup

import "fmt"

// wrapServer puts one server of a file behind airlock-mcp at mcp and
// checks the result reads as meant (checkEdit). cfg is Parse's reading of
// data, which must have had no error.
func wrapServer(st Store, data []byte, cfg *Config, name, mcp string) ([]byte, wrapRecord, error) {
	if st.ID == "claude-code.user-mcp" {
		// Claude Code rewrites this file itself, and airlock-hook already
		// sees every call its servers get.
		return nil, wrapRecord{}, refuse("Claude Code's own servers are gated by airlock-hook, not wrapped")
	}
	s := serverByName(cfg, name)
	if s == nil {
		return nil, wrapRecord{}, refuse("no single server named %q", name)
	}
	var out []byte
	var rec wrapRecord
	var err error
	switch st.Format {
	case formatJSON, formatJSONC:
		out, rec, err = wrapJSON(st, data, s, mcp)
	case formatTOML:
		out, rec, err = wrapTOML(data, s, mcp)
	case formatYAML:
		out, rec, err = wrapYAML(st, data, s, mcp)
	default:
		err = refuse("unknown format %q", st.Format)
	}
	if err != nil {
		return nil, rec, err
	}
	if err := checkEdit(st, cfg, out, map[string][]string{name: argvOf(s)}, nil); err != nil {
		return nil, rec, err
	}
	return out, rec, nil
}

// unwrapServer gives server rec.Name its own command line back, when it
// is still behind airlock-mcp under that name; ok is false (and data
// unchanged) when it is not.
func unwrapServer(st Store, data []byte, cfg *Config, rec wrapRecord) (out []byte, ok bool, err error) {
	if rec.Remote != "" {
		return unwrapRemote(st, data, cfg, rec)
	}
	s := serverByName(cfg, rec.Name)
	if s == nil || !s.Wrapped || s.WrapName != rec.Name {
		return data, false, nil
	}
	if len(s.Inner) == 0 {
		return nil, false, refuse("server %q: no command after -- to restore", rec.Name)
	}
	switch st.Format {
	case formatJSON, formatJSONC:
		out, err = unwrapJSON(st, data, s, rec)
	case formatTOML:
		out, err = unwrapTOML(data, s, rec)
	case formatYAML:
		out, err = unwrapYAML(st, data, s, rec)
	default:
		err = fmt.Errorf("unknown format %q", st.Format)
	}
	if err != nil {
		return nil, false, err
	}
	if err := checkEdit(st, cfg, out, nil, map[string][]string{rec.Name: s.Inner}); err != nil {
		return nil, false, err
	}
	return out, true, nil
}
