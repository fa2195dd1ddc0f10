package setup

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// manifest is what init changed, kept in $AIRLOCK_HOME/setup/manifest.json
// so uninstall can undo exactly that and nothing else.
type manifest struct {
	Version int          `json:"version"`
	Files   []fileRecord `json:"files"`
}

// fileRecord is one config file init edited (or created).
type fileRecord struct {
	Path  string `json:"path"` // as found: a symlink's own path
	Real  string `json:"real"` // symlinks resolved: the file edited
	Store Store  `json:"store"`
	// Changes holds one entry per init that changed the file, oldest first.
	Changes []change `json:"changes"`
}

// change is one init's edit of one file.
type change struct {
	Time    time.Time `json:"time"`
	Existed bool      `json:"existed"` // false: this init created the file
	Backup  string    `json:"backup,omitempty"`
	// Before and Mode describe the file as init found it; After and
	// AfterMode, as init left it. Uninstall restores the backup byte for
	// byte only when the file still hashes to After.
	Before    string       `json:"before_sha256,omitempty"`
	Mode      string       `json:"mode,omitempty"`
	After     string       `json:"sha256"`
	AfterMode string       `json:"after_mode"`
	Servers   []wrapRecord `json:"servers,omitempty"`
	Hooks     []hookRecord `json:"hooks,omitempty"`
	// Trust is the hooks.state entries init recorded in Codex's
	// config.toml so that Codex runs the hooks it wired.
	Trust []trustRecord `json:"trust,omitempty"`
	// Made is the directories init made to create the file, deepest
	// first: uninstall removes them again when they are empty.
	Made []string `json:"made_dirs,omitempty"`
}

const manifestVersion = 1

// manifestPath is where init keeps its manifest under an Airlock home.
func manifestPath(airlockHome string) string {
	return filepath.Join(airlockHome, "setup", "manifest.json")
}

// ReadManifest reads an Airlock home's manifest; one that does not exist
// is empty, not an error.
func ReadManifest(airlockHome string) (*manifest, error) {
	p := manifestPath(airlockHome)
	// Airlock's own files: never through a link, never another user's.
	err := home.CheckDir(airlockHome, filepath.Dir(p))
	var data []byte
	if err == nil {
		data, err = regular.ReadState(p, MaxFileSize)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest{Version: manifestVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w (it lists what airlock init changed; restore it from a copy or remove it if you restored the files yourself)", p, err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: version %d, this airlock reads version %d", p, m.Version, manifestVersion)
	}
	return &m, nil
}

func (m *manifest) write(airlockHome string) error {
	p := manifestPath(airlockHome)
	if len(m.Files) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(airlockHome, p, append(data, '\n'))
}

// lockSetup takes the cross-process lock that serialises every
// read-modify-write of an Airlock home's manifest ($AIRLOCK_HOME/setup/lock).
// create: make the setup directory when missing; otherwise, with no setup
// directory, there is no manifest to guard and no lock is taken. The
// returned function releases the lock. Where the platform has no file
// lock, none is taken: each update still re-reads the manifest first.
func lockSetup(airlockHome string, create bool) (func(), error) {
	dir := filepath.Join(airlockHome, "setup")
	if create {
		if err := home.MakeDir(airlockHome, dir); err != nil {
			return nil, err
		}
	} else if err := home.CheckDir(airlockHome, dir); errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	} else if err != nil {
		return nil, err
	}
	lf, err := regular.OpenState(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock.Lock(lf); err != nil {
		lf.Close()
		return func() {}, nil //nolint:nilerr // no file locks here: best effort
	}
	return func() {
		_ = flock.Unlock(lf)
		lf.Close()
	}, nil
}

// updateManifest re-reads the manifest under the lock, applies change and
// writes it back, so records another run added meanwhile are kept.
func updateManifest(airlockHome string, change func(*manifest)) error {
	unlock, err := lockSetup(airlockHome, true)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := ReadManifest(airlockHome)
	if err != nil {
		return err
	}
	change(m)
	return m.write(airlockHome)
}

// record is the file's record, created when missing.
func (m *manifest) record(f *fileState, st Store) *fileRecord {
	for i := range m.Files {
		if m.Files[i].Real == f.real || m.Files[i].Path == f.path {
			m.Files[i].Real = f.real
			return &m.Files[i]
		}
	}
	m.Files = append(m.Files, fileRecord{Path: f.path, Real: f.real, Store: st})
	return &m.Files[len(m.Files)-1]
}

func (m *manifest) drop(path string) {
	for i := range m.Files {
		if m.Files[i].Path == path {
			m.Files = append(m.Files[:i], m.Files[i+1:]...)
			return
		}
	}
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func modeString(m fs.FileMode) string { return fmt.Sprintf("%04o", uint32(m&keptMode)) }

func parseMode(s string) (fs.FileMode, bool) {
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, false
	}
	return fs.FileMode(n) & keptMode, true
}

// backups hands out one init's backup directory,
// $AIRLOCK_HOME/backups/<UTC time>-<random>, made on first use.
type backups struct {
	home string
	dir  string
}

func newBackups(airlockHome string, now time.Time) *backups {
	var r [4]byte
	_, _ = rand.Read(r[:]) // crypto/rand does not fail on supported systems
	name := now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(r[:])
	return &backups{home: airlockHome, dir: filepath.Join(airlockHome, "backups", name)}
}

// path is where the copy of file goes: the file's absolute path, mirrored
// under the run's directory (a drive letter becomes a directory), so two
// files never share a name and a person can find each one by eye.
func (b *backups) path(file string) string {
	p, err := filepath.Abs(file)
	if err != nil {
		p = filepath.Clean(file)
	}
	if v := filepath.VolumeName(p); v != "" {
		p = strings.NewReplacer(":", "", `\`, "_", "/", "_").Replace(v) + p[len(v):]
	}
	return filepath.Join(b.dir, strings.TrimLeft(p, `/\`))
}

// save writes a backup of data for file, never over another one.
func (b *backups) save(file string, data []byte) (string, error) {
	p := b.path(file)
	if err := home.MakeDir(b.home, filepath.Dir(p)); err != nil {
		return "", fmt.Errorf("back up %s: %w", file, err)
	}
	if err := writeNew(p, data); err != nil {
		return "", fmt.Errorf("back up %s: %w", file, err)
	}
	return p, nil
}
