package scan

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

// Report is the result of a scan.
type Report struct {
	Files   []File    // files with findings or servers, riskiest first
	Servers []Server  // every MCP server definition found, in the order found
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
}

// Walk scans every path: a folder is walked (skipping version control,
// dependency and vendored trees, and never following a symlink), a file
// is scanned as itself. Errors reading one file are reported in Skipped;
// Walk fails only when a path given cannot be read at all.
func Walk(paths []string, opt Options) (*Report, error) {
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
		skills := map[string]bool{}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				skipped = append(skipped, Skipped{Path: p, Reason: unwrapPathError(err)})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			switch {
			case d.IsDir():
				if p != root && skipDirs[d.Name()] {
					return fs.SkipDir
				}
				if hasSkillFile(p) {
					skills[p] = true
				}
			case d.Type()&fs.ModeSymlink != 0:
				skipped = append(skipped, Skipped{Path: p, Reason: "symlink, not followed"})
			case !d.Type().IsRegular():
				skipped = append(skipped, Skipped{Path: p, Reason: "not a regular file"})
			case skipFiles[d.Name()]:
			default:
				add(job{path: p, inSkill: underSkill(p, root, skills)})
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

	r := &Report{Skipped: skipped}
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
	data, err := regular.ReadPrefix(j.path, MaxText+1)
	if err != nil {
		return result{file: File{Path: p}, skip: unwrapPathError(err)}
	}
	head := data[:min(len(data), sniff)]
	if bytes.IndexByte(head, 0) >= 0 {
		return result{file: File{Path: p}, skip: "binary"}
	}
	var st setup.Store
	isConfig := false
	if j.store != nil {
		st, isConfig = *j.store, true
	} else {
		st, isConfig = setup.Recognize(j.path)
	}
	kind := Classify(p, data, j.inSkill, func(string) bool { return isConfig })
	var cfg *setup.Config
	var cfgErr error
	if kind == KindConfig {
		st.Path = j.path
		cfg, cfgErr = setup.Parse(st, data)
	}
	f := ScanFile(p, data, kind, cfg)
	if cfgErr != nil {
		f.Findings = append(f.Findings, Finding{
			ID: "scan.config-unreadable", Category: Stealth, Severity: Low, Line: 1, Col: 1,
			Explain: fmt.Sprintf("%s config could not be read, so its servers are not listed: %v", st.Agent, cfgErr),
		})
		f.Risk, f.Severity = Score(f.Findings)
	}
	if cfg != nil {
		f.Servers = servers(p, st, cfg, opt.Admission)
	}
	return result{file: f, bytes: int64(len(data))}
}

// servers lists a config's server definitions with whether each sits
// behind airlock-mcp and what the pins say of it.
func servers(p string, st setup.Store, cfg *setup.Config, admission func(string) string) []Server {
	var out []Server
	for _, s := range cfg.Servers {
		v := Server{
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
		switch {
		case s.Remote:
			v.Admission = "not gateable"
			v.Note = "remote server: a stdio proxy cannot wrap it"
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

func hasSkillFile(dir string) bool {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		if info, err := os.Lstat(filepath.Join(dir, n)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// underSkill reports whether p sits in a skill folder met on the way down.
func underSkill(p, root string, skills map[string]bool) bool {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if skills[d] {
			return true
		}
		if d == root || d == filepath.Dir(d) || !strings.HasPrefix(d, root) {
			return false
		}
	}
}

func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
