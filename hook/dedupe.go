package hook

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentairlock/airlock/ask/question"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// Cursor runs both its own hooks.json and the hooks of Claude Code's
// settings (third-party hooks), so one call can reach airlock-hook twice.
// The first process to claim the call (a file named by the call's key,
// created exclusively in the Airlock home) decides, records and asks as
// always, then writes its answer there; the second decides again (a few
// microseconds; it trusts no file to allow what it refuses) without a
// record, and an ask it meets is answered with the first one's answer,
// waited for, never asked again. Claims older than dedupeTTL are stale.

const (
	dedupeDir  = "hook-calls"
	dedupeTTL  = 10 * time.Minute
	dedupePoll = 10 * time.Millisecond
)

// duplicate is a claim on a call.
type duplicate struct {
	path  string
	first bool
}

// claimCall claims the call keyed key (hex). When the state cannot be
// used, the process is the first: two records are better than none.
func claimCall(airlockHome, key string) (*duplicate, bool) {
	dir := filepath.Join(airlockHome, dedupeDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, true
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, true
	}
	d := &duplicate{path: filepath.Join(dir, key)}
	for try := 0; try < 2; try++ {
		f, err := os.OpenFile(d.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|noFollow, 0o600)
		if err == nil {
			f.Close()
			d.first = true
			prune(dir)
			return d, true
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, true
		}
		fi, err := os.Lstat(d.path)
		if err != nil || time.Since(fi.ModTime()) < dedupeTTL {
			return d, false
		}
		_ = os.Remove(d.path) // stale: claim it anew
	}
	return d, false
}

// settle writes the first process's answer for the second to read.
func (d *duplicate) settle(a policy.Action) {
	tmp := d.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|noFollow, 0o600)
	if err != nil {
		return
	}
	_, werr := f.WriteString(a.String() + "\n")
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(tmp)
		return
	}
	_ = os.Rename(tmp, d.path)
}

// asker answers the second process's ask with the first one's answer.
func (d *duplicate) asker(by time.Time) *replayAsker { return &replayAsker{path: d.path, by: by} }

type replayAsker struct {
	path string
	by   time.Time
}

func (r *replayAsker) Ask(ctx context.Context, _ question.Request) question.Outcome {
	for {
		b, err := readClaim(r.path)
		if err == nil {
			switch strings.TrimSpace(string(b)) {
			case "allow":
				return question.Outcome{Answer: question.Allow, Asked: audit.AskedRemembered, Detail: "the same call, settled by Airlock's other hook of this agent"}
			case "block":
				return question.Outcome{Answer: question.Deny, Asked: audit.AskedRemembered, Detail: "the same call, refused by Airlock's other hook of this agent"}
			}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) || !time.Now().Add(dedupePoll).Before(r.by) {
			return question.Outcome{Answer: question.Deny, Asked: audit.AskedTimeout, Detail: "Airlock's other hook of this agent did not settle the same call in time"}
		}
		select {
		case <-ctx.Done():
			return question.Outcome{Answer: question.Deny, Asked: audit.AskedTimeout, Detail: "cancelled while waiting for Airlock's other hook"}
		case <-time.After(dedupePoll):
		}
	}
}

// readClaim reads a claim without following a link (the home's state is
// never opened through one).
func readClaim(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 16)
	n, err := f.Read(b)
	if err != nil && n == 0 && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

// prune removes stale claims.
func prune(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) < 64 {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > dedupeTTL {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
