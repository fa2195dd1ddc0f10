package files

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/setup"
)

// Options tune a Walk.
type Options struct {
	// Admission tells a stdio server's pins state by name ("pinned",
	// "held", "never seen"); nil leaves it "unknown".
	Admission func(server string) string
	// Stores are agent config files to read besides the paths walked
	// (the user's own, from setup.Locate); missing ones are passed over.
	Stores []setup.Store
}

// report is the result of a scan.
type report struct {
	Files   []File    // files with findings or servers, riskiest first
	Servers []server  // every MCP server definition found, in the order found
	Skipped []Skipped // what was met but not read, and why
	Scanned int       // files read
	Bytes   int64     // bytes read
}

// Skipped is a file the walk did not read.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// skipDirs are trees no agent reads as instructions and that are someone
// else's code: version control, dependencies, virtualenvs, caches.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, "node_modules": true, "bower_components": true,
	"vendor": true, "third_party": true, "third-party": true, ".venv": true, "venv": true, "__pycache__": true,
	".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true, ".terraform": true,
	"Pods": true, ".gradle": true, ".next": true, ".nuxt": true, ".yarn": true, ".pnpm-store": true,
}

// skipFiles are generated files full of hashes that say nothing to an agent.
var skipFiles = map[string]bool{
	"go.sum": true, "package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "Cargo.lock": true,
	"poetry.lock": true, "Gemfile.lock": true, "composer.lock": true, "uv.lock": true, "bun.lockb": true,
}

// sniff is how much of a file decides whether it is text.
const sniff = 8 << 10

type job struct {
	path    string
	inSkill bool
	store   *setup.Store
	root    string // the walk's root, resolved ("" for a file named by itself)
	outside string // a link with an instruction name whose target is outside the root: not read
}

// agentDirs hold what agents load; dependency-tree names below them
// (a skill called "vendor") are still read.
var agentDirs = map[string]bool{
	".claude": true, ".cursor": true, ".github": true, ".gemini": true, ".codex": true, ".windsurf": true,
	".roo": true, ".kiro": true, ".opencode": true, ".continue": true, ".amazonq": true, ".clinerules": true,
	"skills": true,
}

// Walk scans every path: a folder is walked (skipping version control,
// dependency and vendored trees outside agents' own folders, and never
// following a symlink out of the tree), a file is scanned as itself.
// Errors reading one file are reported in Skipped; Walk fails only when a
// path given cannot be read at all.
func Walk(paths []string, opt Options) (*report, error) {
	var jobs []job
	var skipped []Skipped
	seen := map[string]bool{}
	add := func(j job) {
		abs, err := filepath.Abs(j.path)
		if err != nil {
			abs = j.path
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		jobs = append(jobs, j)
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", root, err)
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				skipped = append(skipped, Skipped{Path: root, Reason: "not a regular file"})
				continue
			}
			add(job{path: root, inSkill: hasSkillFile(filepath.Dir(root))})
			continue
		}
		walkRoot := root
		if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			// a folder the user named through a link is walked; links
			// met inside are not
			walkRoot = root + string(filepath.Separator)
		}
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", root, err)
		}
		if realRoot, err = filepath.Abs(realRoot); err != nil {
			return nil, fmt.Errorf("scan %s: %w", root, err)
		}
		skills := map[string]bool{}
		err = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				skipped = append(skipped, Skipped{Path: p, Reason: unwrapPathError(err)})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			switch {
			case d.IsDir():
				isSkill := hasSkillFile(p)
				if p != walkRoot && skipDirs[d.Name()] && !isSkill && !underAgentDir(p, walkRoot) {
					return fs.SkipDir
				}
				if isSkill {
					skills[filepath.Clean(p)] = true
				}
			case d.Type()&fs.ModeSymlink != 0:
				if j, ok := linkJob(p, realRoot, underSkill(p, skills)); ok {
					j.root = realRoot
					add(j)
				} else {
					skipped = append(skipped, Skipped{Path: p, Reason: "symlink, not followed"})
				}
			case !d.Type().IsRegular():
				skipped = append(skipped, Skipped{Path: p, Reason: "not a regular file"})
			case skipFiles[d.Name()]:
			default:
				add(job{path: p, inSkill: underSkill(p, skills), root: realRoot})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", root, err)
		}
	}
	for i := range opt.Stores {
		st := opt.Stores[i]
		if info, err := os.Stat(st.Path); err == nil && info.Mode().IsRegular() {
			add(job{path: st.Path, store: &st})
		}
	}

	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = scanJob(jobs[i], opt)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()

	r := &report{Skipped: skipped}
	for _, res := range results {
		if res.skip != "" {
			r.Skipped = append(r.Skipped, Skipped{Path: res.file.Path, Reason: res.skip})
			continue
		}
		r.Scanned++
		r.Bytes += res.bytes
		r.Servers = append(r.Servers, res.file.Servers...)
		if len(res.file.Findings) > 0 || len(res.file.Servers) > 0 {
			r.Files = append(r.Files, res.file)
		}
	}
	slices.SortStableFunc(r.Files, func(a, b File) int {
		return cmp.Or(cmp.Compare(b.Risk, a.Risk), cmp.Compare(a.Path, b.Path))
	})
	return r, nil
}

type result struct {
	file  File
	bytes int64
	skip  string
}

func scanJob(j job, opt Options) result {
	p := filepath.ToSlash(j.path)
	var st setup.Store
	isConfig := false
	if j.store != nil {
		st, isConfig = *j.store, true
	} else {
		st, isConfig = setup.Recognize(j.path)
	}
	if j.outside != "" {
		kind := Classify(p, nil, j.inSkill, func(string) bool { return isConfig })
		f := File{Path: p, Kind: kind, Findings: []scan.Finding{{
			ID: "scan.link-outside", Category: scan.Stealth, Severity: scan.Med, Line: 1, Col: 1,
			Explain: "an agent loads this " + string(kind) + " file, but it is " + j.outside + ", so what it loads was not read",
		}}}
		f.Risk, f.Severity = scan.Score(f.Findings)
		return result{file: f}
	}
	data, err := regular.ReadPrefix(j.path, scan.MaxText+1)
	if err != nil {
		return result{file: File{Path: p}, skip: unwrapPathError(err)}
	}
	kind := Classify(p, data, j.inSkill, func(string) bool { return isConfig })
	head := data[:min(len(data), sniff)]
	if bytes.IndexByte(head, 0) >= 0 && (kind == kindCode || kind == kindProse) {
		// an agent reads its own files as text whatever bytes they hold
		return result{file: File{Path: p}, skip: "binary"}
	}
	var cfg *setup.Config
	var cfgErr error
	if kind == kindConfig {
		st.Path = j.path
		cfg, cfgErr = setup.Parse(st, data)
	}
	f := scanFile(p, data, kind, cfg)
	if cfgErr != nil {
		f.Findings = append(f.Findings, scan.Finding{
			ID: "scan.config-unreadable", Category: scan.Stealth, Severity: scan.Low, Line: 1, Col: 1,
			Explain: fmt.Sprintf("%s config could not be read, so its servers are not listed: %v", st.Agent, cfgErr),
		})
		f.Risk, f.Severity = scan.Score(f.Findings)
	}
	if cfg != nil {
		f.Servers = servers(p, st, cfg, opt.Admission, j.root)
	}
	return result{file: f, bytes: int64(len(data))}
}

// servers lists a config's server definitions with whether each sits
// behind airlock-mcp and what the pins say of it.
func servers(p string, st setup.Store, cfg *setup.Config, admission func(string) string, root string) []server {
	var out []server
	for _, s := range cfg.Servers {
		v := server{
			Name: s.Name, Agent: st.Agent, Store: st.ID, File: p, Line: s.Line,
			URL: s.URL, Remote: s.Remote, Disabled: s.Disabled, Gated: s.Wrapped,
		}
		if s.Command != "" {
			v.Command = append([]string{s.Command}, s.Args...)
		}
		name := s.Name
		if s.Wrapped && s.WrapName != "" {
			name = s.WrapName
		}
		if s.Wrapped {
			if why := notTheProxy(s.Command, root); why != "" {
				v.Gated = false
				v.Admission = "not gated"
				v.Note = why
				out = append(out, v)
				continue
			}
		}
		switch {
		case s.Remote:
			v.Admission = "not gated"
			v.Note = "remote server: airlock init puts it behind airlock-mcp --url where it can rewrite the agent's config, or write airlock-mcp --name NAME --url URL in its place"
		case !s.Wrapped:
			v.Admission = "not gated"
			if st.Agent == "Claude Code" {
				v.Note = "airlock-hook gates its calls when wired; its tool descriptions are only checked behind airlock-mcp"
			} else {
				v.Note = "not launched through airlock-mcp (airlock init wraps it)"
			}
		case admission != nil:
			v.Admission = admission(name)
		default:
			v.Admission = "unknown"
		}
		out = append(out, v)
	}
	return out
}

// notTheProxy says why a command named airlock-mcp is not the installed
// proxy: a relative path, or one inside the tree being scanned, is a copy
// the project ships and can make say anything.
func notTheProxy(command, root string) string {
	if !strings.ContainsAny(command, `/\`) {
		return "" // found on PATH, as install.sh puts it
	}
	if !filepath.IsAbs(command) {
		return "launched through " + command + ", a relative path: not the installed airlock-mcp"
	}
	if root != "" {
		if rel, err := filepath.Rel(root, command); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "launched through " + command + ", inside the scanned tree: a copy the project ships, not the installed airlock-mcp"
		}
	}
	return ""
}

func hasSkillFile(dir string) bool {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		if info, err := os.Lstat(filepath.Join(dir, n)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// underSkill reports whether p sits in a skill folder met on the way down.
func underSkill(p string, skills map[string]bool) bool {
	for d := filepath.Dir(filepath.Clean(p)); ; d = filepath.Dir(d) {
		if skills[d] {
			return true
		}
		if d == "." || d == filepath.Dir(d) {
			return false
		}
	}
}

// underAgentDir reports whether p sits below one of an agent's own
// folders, within the walk.
func underAgentDir(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if agentDirs[part] {
			return true
		}
	}
	return false
}

// linkJob decides about a symlink met while walking. A link whose name an
// agent loads (SKILL.md, CLAUDE.md, a rules or command file, an agent
// config) is followed when its target is a regular file inside the
// scanned tree, and scanned under the link's name and kind; pointing out
// of the tree, it is reported unread (a link to ~/.ssh/id_rsa must not end
// up in a CI log). Other links are not followed.
func linkJob(p, realRoot string, inSkill bool) (job, bool) {
	_, isConfig := setup.Recognize(p)
	k := Classify(filepath.ToSlash(p), nil, inSkill, func(string) bool { return isConfig })
	if k.Context() == scan.Prose || k.Context() == scan.Code {
		return job{}, false
	}
	target, err := filepath.EvalSymlinks(p)
	if err == nil {
		target, err = filepath.Abs(target)
	}
	if err != nil {
		return job{path: p, outside: "a link whose target cannot be resolved (" + unwrapPathError(err) + ")"}, true
	}
	if rel, err := filepath.Rel(realRoot, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return job{path: p, outside: "a link to a file outside the scanned tree"}, true
	}
	if info, err := os.Stat(target); err != nil || !info.Mode().IsRegular() {
		return job{path: p, outside: "a link to something that is not a regular file"}, true
	}
	return job{path: p, inSkill: inSkill}, true
}

func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
