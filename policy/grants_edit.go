package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentairlock/airlock/internal/yamldoc"
)

// Editing grants (airlock allow). The file is edited as a YAML node tree,
// never re-marshalled from structs, so the user's comments, order and other
// keys survive; every edit is checked by the loader before anyone writes it.

// GrantSpec is one grant to append.
type GrantSpec struct {
	Tool, Match, Reason, Added, Expires string
	Commands                            []string // a shell grant's command patterns, written after tool
}

// Expired reports whether the grant no longer applies at now: past its
// expiry, or with an unreadable expiry (which never grants).
func (g *Grant) Expired(now time.Time) bool {
	return g.invalid || (!g.expiry.IsZero() && !now.Before(g.expiry))
}

// CheckEdit loads data as the policy file path would load, so an edit is
// validated before it replaces the file.
func CheckEdit(data []byte, path string, vars Vars) (*Policy, error) {
	return parse(data, path, "policy", vars)
}

// AppendGrant returns data with g appended under grants: (created when
// absent).
func AppendGrant(data []byte, g GrantSpec) ([]byte, error) {
	doc, top, err := topMap(data)
	if err != nil {
		return nil, err
	}
	seq := mapValue(top, "grants")
	if seq == nil {
		top.Content = append(top.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "grants"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"})
		seq = top.Content[len(top.Content)-1]
	}
	if seq.Kind == yaml.ScalarNode && (seq.Tag == "!!null" || seq.Value == "") {
		*seq = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: seq.Line}
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("grants: is a %s, not a list: fix the policy file first", yamldoc.Kind(seq))
	}
	item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	for _, kv := range [][2]string{{"tool", g.Tool}, {"match", g.Match}, {"commands", ""}, {"reason", g.Reason}, {"added", g.Added}, {"expires", g.Expires}} {
		if kv[0] == "commands" && len(g.Commands) > 0 {
			list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for _, c := range g.Commands {
				list.Content = append(list.Content, str(c))
			}
			item.Content = append(item.Content, str("commands"), list)
		}
		if kv[1] == "" {
			continue
		}
		item.Content = append(item.Content, str(kv[0]), str(kv[1]))
	}
	seq.Style = 0 // a flow-style `grants: []` becomes a block list
	seq.Content = append(seq.Content, item)
	return encode(doc)
}

// RemoveGrant returns data without its n-th grant (1-based).
func RemoveGrant(data []byte, n int) ([]byte, error) {
	doc, top, err := topMap(data)
	if err != nil {
		return nil, err
	}
	seq := mapValue(top, "grants")
	k := 0
	if seq != nil && seq.Kind == yaml.SequenceNode {
		k = len(seq.Content)
	}
	if n < 1 || n > k {
		return nil, fmt.Errorf("no grant %d (there are %d)", n, k)
	}
	seq.Content = append(seq.Content[:n-1], seq.Content[n:]...)
	return encode(doc)
}

func topMap(data []byte) (*yaml.Node, *yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("read policy: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("the policy file is not a YAML mapping: fix it first (airlock policy check)")
	}
	return &doc, doc.Content[0], nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func encode(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write policy: %w", err)
	}
	return b.Bytes(), nil
}

// ForbidOn reports the built-in forbid (one the policy does not override)
// that a call of tool on target would meet, so that `airlock allow` can
// refuse a grant that would never apply. The target is classified the way
// the gate classifies a call, so the forbid matchers are the gate's own.
func (p *Policy) ForbidOn(tool, target string, env CallEnv) (id string, hit bool) {
	if d, ok := p.CheckForbids(Classify(tool, TargetInput(tool, target), env)); ok {
		return d.Rule, true
	}
	return "", false
}

// AllowsTarget decides a call of tool on target alone as the gate does
// (Decide, without the proxy's own stages) and says whether it would be
// allowed: a grant that leaves the call refused (an escalated indicator or
// a project overlay decides after grants) is one the user should not be
// told was written for it. `airlock allow` has refused a target that meets
// a forbid before it asks (ForbidOn).
func (p *Policy) AllowsTarget(tool, target string, env CallEnv, now time.Time) (Decision, bool) {
	v := p.Decide(Classify(tool, TargetInput(tool, target), env), now, Stages{})
	return v.Decision, v.Effective == Allow
}

// TargetInput is the arguments of a call of tool on target alone, as a
// record names it: the command, URL or path under the name the classifier
// reads it by.
func TargetInput(tool, target string) []byte {
	key := "text"
	switch {
	case toolKindOf(tool) == kindShell:
		key = "command"
	case strings.Contains(target, "://") || toolKindOf(tool) == kindFetch:
		key = "url"
	case strings.HasPrefix(target, "/") || strings.HasPrefix(target, "~"):
		key = "file_path"
	}
	input, _ := json.Marshal(map[string]string{key: target})
	return input
}

// LiteralPrefix is the part of a grant glob before its first wildcard,
// variables expanded: the concrete place a --match grant reaches.
func (v Vars) LiteralPrefix(glob string) (string, error) {
	e, _, err := v.expand(glob)
	if err != nil {
		return "", err
	}
	if i := strings.IndexAny(e, "*?{"); i >= 0 {
		e = e[:i]
	}
	if len(e) > 1 {
		e = strings.TrimSuffix(e, "/")
	}
	return e, nil
}

// FoldTargets is the tightest grant match covering every target: one file
// is itself; several files are their deepest common directory + "/**",
// never / or home or above; URLs and hosts must be one host, and become
// scheme://host/*. It refuses (with an error saying what to do) anything
// else.
func FoldTargets(targets []string, home string) (string, error) {
	if len(targets) == 0 {
		return "", errors.New("no target to grant")
	}
	if strings.HasPrefix(targets[0], "/") {
		return foldPaths(targets, home)
	}
	scheme, host := "", ""
	for _, t := range targets {
		s, h := "https", t
		if u, err := url.Parse(t); err == nil && u.Host != "" {
			s, h = u.Scheme, u.Hostname()
		}
		if strings.ContainsAny(h, "/ *?") || h == "" {
			return "", fmt.Errorf("%q is neither a file nor a host: grant it with airlock allow TOOL --match GLOB", t)
		}
		h = CanonicalHost(h)
		if host != "" && (h != host || s != scheme) {
			return "", fmt.Errorf("the calls went to more than one host (%s://%s, %s://%s): grant each with airlock allow TOOL --match", scheme, host, s, h)
		}
		scheme, host = s, h
	}
	return scheme + "://" + host + "/*", nil
}

func foldPaths(targets []string, home string) (string, error) {
	var common string
	seen := map[string]bool{}
	for _, t := range targets {
		if !strings.HasPrefix(t, "/") {
			return "", fmt.Errorf("%q mixes with file targets: grant it with airlock allow TOOL --match GLOB", t)
		}
		if strings.ContainsAny(t, "*?{}[") {
			return "", fmt.Errorf("%q holds glob characters: grant it with airlock allow TOOL --match GLOB", t)
		}
		t = filepath.Clean(t)
		seen[t] = true
		if common == "" {
			common = t
			continue
		}
		for common != "/" && t != common && !strings.HasPrefix(t, common+"/") {
			common = filepath.Dir(common)
		}
	}
	if len(seen) == 1 {
		return common, nil
	}
	home = filepath.Clean(home)
	if common == "/" || (home != "" && home != "." && (common == home || strings.HasPrefix(home, common+"/"))) {
		return "", fmt.Errorf("the files have no common directory below %s: a grant that wide is not made for you; use airlock allow TOOL --match GLOB", common)
	}
	return common + "/**", nil
}
