package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
)

// UninstallOptions say whose init to undo.
type UninstallOptions struct {
	AirlockHome string
	// Home is the user's home directory: Purge never removes it, or a
	// directory above it, whatever AIRLOCK_HOME says.
	Home string
	// Purge also deletes AirlockHome, once every file is restored.
	Purge bool

	beforeCommit func(path string)
}

// Uninstall undoes what the manifest says init did. A file that still
// hashes to what init left is restored from its backup byte for byte,
// with its mode. A file edited since keeps the edits: only Airlock's own
// entries come out (servers still behind airlock-mcp under the name init
// gave them get their command line back; airlock-hook leaves the events
// init wired). A file that cannot be restored safely is left as it is,
// reported, and kept in the manifest with its backups.
func Uninstall(opt UninstallOptions) (*Report, error) {
	// Airlock's own marks, looked at before the manifest is emptied: only
	// a directory holding them may be purged.
	ours := airlockMade(opt.AirlockHome)
	unlock, err := lockSetup(opt.AirlockHome, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	man, err := ReadManifest(opt.AirlockHome)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	if len(man.Files) == 0 {
		r.file(manifestPath(opt.AirlockHome), "", "nothing to restore", "no airlock init is recorded")
	}
	failed := 0
	var made []string
	for _, rec := range append([]fileRecord(nil), man.Files...) {
		if restoreFile(r, rec, opt.beforeCommit) {
			man.drop(rec.Path)
			if len(rec.Changes) > 0 {
				made = append(made, rec.Changes[0].Made...)
			}
		} else {
			failed++
		}
	}
	// the directories init made for files it created, deepest first, and
	// only while empty: anything put there since stays
	sort.Slice(made, func(i, j int) bool { return len(made[i]) > len(made[j]) })
	for _, d := range made {
		_ = os.Remove(d)
	}
	if err := man.write(opt.AirlockHome); err != nil {
		return r, fmt.Errorf("update %s: %w", manifestPath(opt.AirlockHome), err)
	}
	if opt.Purge {
		err := purgeable(opt.AirlockHome, opt.Home)
		if err == nil && !ours {
			err = fmt.Errorf("%s holds neither an airlock init manifest (setup/manifest.json) nor an audit log (audit.jsonl): it does not look like a directory Airlock made, so it was not deleted; check AIRLOCK_HOME, or delete it by hand", opt.AirlockHome)
		}
		switch {
		case failed > 0:
			r.file(opt.AirlockHome, "", actNotPurged, fmt.Sprintf("%d %s not restored; the backups stay in %s", failed, plural(failed, "file"), filepath.Join(opt.AirlockHome, "backups")))
		case err != nil:
			r.file(opt.AirlockHome, "", actNotPurged, err.Error())
			r.Refused++
		default:
			if err := os.RemoveAll(opt.AirlockHome); err != nil {
				return r, fmt.Errorf("purge %s: %w", opt.AirlockHome, err)
			}
			r.file(opt.AirlockHome, "", actPurged, "")
		}
	}
	return r, nil
}

// purgeable refuses to delete a directory that is not plainly an Airlock
// home: the root, the user's home or a directory above it, or one that
// holds none of Airlock's files (an AIRLOCK_HOME set by mistake).
func purgeable(dir, home string) error {
	d := filepath.Clean(dir)
	if !filepath.IsAbs(d) || filepath.Dir(d) == d {
		return fmt.Errorf("%s is not a directory airlock will delete", dir)
	}
	if home != "" {
		if rel, err := filepath.Rel(d, filepath.Clean(home)); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return fmt.Errorf("%s holds your home directory: delete what you want of it by hand", dir)
		}
	}
	for _, n := range []string{"policy.yaml", "setup", "backups", "audit.jsonl", "pins.json"} {
		if _, err := os.Lstat(filepath.Join(d, n)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s does not look like an Airlock home (no policy.yaml, audit.jsonl or backups): not deleted", dir)
}

// airlockMade says dir holds what only Airlock writes: the manifest of an
// airlock init, or an audit log whose first record is Airlock's.
func airlockMade(dir string) bool {
	if fi, err := os.Lstat(manifestPath(dir)); err == nil && fi.Mode().IsRegular() {
		return true
	}
	// read as the log's readers read it: a link (to a log elsewhere) does
	// not vouch for this directory, and a FIFO does not hang uninstall
	fh, err := regular.OpenState(filepath.Join(dir, "audit.jsonl"), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer fh.Close()
	buf := make([]byte, 4096)
	n, _ := fh.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	var rec map[string]json.RawMessage
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	for _, k := range []string{"h", "prev", "event", "source"} {
		if _, ok := rec[k]; !ok {
			return false
		}
	}
	return true
}

// restoreFile undoes init's changes to one file; false when it could not.
func restoreFile(r *Report, rec fileRecord, hook func(string)) bool {
	st := rec.Store
	st.Path = rec.Path
	f, err := readState(rec.Path)
	if err != nil {
		r.file(rec.Path, st.Agent, actRefused, err.Error())
		return false
	}
	if !f.exists {
		r.file(rec.Path, st.Agent, actGone, "")
		return true
	}
	if n := linkCount(f.info); n > 1 {
		r.file(rec.Path, st.Agent, actRefused, hardLinkRefusal(n)+"; its backups stay in the manifest")
		return false
	}
	// Walk back through init's changes, newest first, while the file is
	// exactly what the change left.
	cur, mode, exists := f.data, f.mode, true
	g := len(rec.Changes) - 1
	from, how := "", actUnwrapped
	for ; g >= 0; g-- {
		ch := rec.Changes[g]
		if sum(cur) != ch.After {
			break
		}
		if !ch.Existed {
			cur, exists, g = nil, false, -1
			break
		}
		b, err := os.ReadFile(ch.Backup)
		if err != nil || sum(b) != ch.Before {
			how = actNoBackup // what is left is undone entry by entry
			break
		}
		// The mode init found comes back only while the file still has
		// the mode init left: a chmod made since (say, to 0600) is kept.
		m, ok := parseMode(ch.Mode)
		if !ok || modeString(mode) != ch.AfterMode {
			m = mode
		}
		cur, mode, from = b, m, ch.Backup
	}
	if g < 0 {
		if !exists {
			if err := remove(f); err != nil {
				r.file(rec.Path, st.Agent, actRefused, err.Error())
				return false
			}

			r.Changed++
			r.file(rec.Path, st.Agent, actRemoved, "")
			return true
		}
		if err := commit(f, cur, mode, hook); err != nil {
			r.file(rec.Path, st.Agent, actRefused, err.Error())
			return false
		}
		r.Changed++
		r.file(rec.Path, st.Agent, actRestored, "from "+from)
		return true
	}
	// Edited since init: take out Airlock's entries, keep the rest.
	var servers []wrapRecord
	var hooks []hookRecord
	var trust []trustRecord
	for _, ch := range rec.Changes[:g+1] {
		servers = append(servers, ch.Servers...)
		hooks = append(hooks, ch.Hooks...)
		trust = append(trust, ch.Trust...)
	}
	out, names, nhooks, err := unwrapAll(st, cur, servers, hooks)
	if err == nil && len(trust) > 0 {
		out = untrustCodex(out, trust)
	}
	if err != nil {
		r.file(rec.Path, st.Agent, actRefused, err.Error()+"; its backups stay in the manifest")
		return false
	}
	if bytes.Equal(out, f.data) && mode == f.mode {
		r.file(rec.Path, st.Agent, actNothingLeft, "edited since init")
		return true
	}
	if err := commit(f, out, mode, hook); err != nil {
		r.file(rec.Path, st.Agent, actRefused, err.Error())
		return false
	}
	r.Changed++
	r.file(rec.Path, st.Agent, how, "")
	for _, n := range names {
		r.server(rec.Path, st.Agent, n, actServerUnwrap, "")
	}
	if nhooks > 0 {
		r.file(rec.Path, st.Agent, actRemovedHook, fmt.Sprintf("%d %s", nhooks, plural(nhooks, "hook")))
	}
	return true
}

// unwrapAll undoes, in data, each recorded wrap still in place and the
// recorded hooks.
func unwrapAll(st Store, data []byte, servers []wrapRecord, hooks []hookRecord) ([]byte, []string, int, error) {
	var names []string
	done := map[string]bool{}
	for _, w := range servers {
		if done[w.Name] {
			continue
		}
		done[w.Name] = true
		cfg, err := Parse(st, data)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("the file no longer reads cleanly (%v): fix it and run airlock uninstall again", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		out, ok, err := unwrapServer(st, data, cfg, w)
		if err != nil {
			return nil, nil, 0, err
		}
		if ok && w.Was != "" {
			// A repoint: the server goes back behind the airlock-mcp it
			// ran before, as the user had it.
			ucfg, err := Parse(st, out)
			if err != nil {
				return nil, nil, 0, err
			}
			if out, _, err = wrapServer(st, out, ucfg, w.Name, w.Was); err != nil {
				return nil, nil, 0, err
			}
		}
		if ok {
			data, names = out, append(names, w.Name)
		}
	}
	n := 0
	if st.ID == "codex.requirements" {
		out, n, err := uncodexRequirements(data, hooks)
		return out, names, n, err
	}
	if len(hooks) > 0 {
		if _, err := Parse(st, data); err != nil {
			return nil, nil, 0, fmt.Errorf("the file no longer reads cleanly (%v): fix it and run airlock uninstall again", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		var err error
		if data, n, err = unwireHooks(st, data, hooks); err != nil {
			return nil, nil, 0, err
		}
	}
	return data, names, n, nil
}
