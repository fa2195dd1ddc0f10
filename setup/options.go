package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Options say where init (and Status) look and what they write.
type Options struct {
	// Home is the user's home directory; Workspace the project (the
	// directory init runs in); GOOS the OS whose paths to use (default:
	// this one).
	Home, Workspace, GOOS string
	// Env looks up the variables that move stores (Locate lists them).
	// nil reads none.
	Env func(string) string
	// AirlockHome is $AIRLOCK_HOME: the manifest, the backups and
	// policy.yaml go there.
	AirlockHome string
	// HookPath and MCPPath are the absolute paths of airlock-hook and
	// airlock-mcp, written into the agents' configs.
	HookPath, MCPPath string
	// ExtraConfigs are more mcpServers files to wrap (--mcp-config), as
	// AIRLOCK_MCP_CONFIGS names them.
	ExtraConfigs []string
	// DryRun: report what would change; write nothing at all.
	DryRun bool
	// Now is the clock for backup names and the manifest (default
	// time.Now).
	Now func() time.Time
	// Profile and Policy are the bundled profile to write to
	// $AIRLOCK_HOME/policy.yaml when there is none yet, by name and
	// content; a nil Policy leaves policy.yaml alone. ProfileOf names the
	// bundled profile a policy file is byte for byte ("" when it was
	// edited), so init can say which one it kept.
	Profile   string
	Policy    []byte
	ProfileOf func([]byte) string

	// Services are files init writes whole when they are missing (the
	// forwarder's systemd user unit or launchd agent, when the managed
	// policy names export targets): recorded in the manifest like every
	// edit, so uninstall removes them; one that exists is left alone.
	Services []ServiceFile

	// System: wire the agents' managed channels (SystemStores) instead
	// of the user's files: init --system, as root. AirlockHome is then
	// the managed directory, where the manifest and the backups go; no
	// policy is written and no server wrapped. The binaries must be
	// root's and writable by nobody else, nor any directory above them.
	System bool
	// Root prefixes every managed path (tests: a directory standing for
	// /); "" is the real root. With it, the binaries' owner may be the
	// user running the test instead of root.
	Root string

	// beforeCommit runs just before each config file is replaced (tests
	// use it to play a concurrent writer).
	beforeCommit func(path string)
}

func (o *Options) defaults() {
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// check refuses to start without the binaries the configs will name: an
// agent told to launch a missing airlock-mcp loses its servers.
func (o *Options) check() error {
	if o.AirlockHome == "" || !filepath.IsAbs(o.AirlockHome) {
		return fmt.Errorf("AIRLOCK_HOME %q is not an absolute path", o.AirlockHome)
	}
	for _, b := range []struct{ name, path string }{{"airlock-hook", o.HookPath}, {"airlock-mcp", o.MCPPath}} {
		if b.path == "" || !filepath.IsAbs(b.path) {
			return fmt.Errorf("%s not found: install Airlock with install.sh, which puts airlock, airlock-hook and airlock-mcp side by side", b.name)
		}
		fi, err := os.Stat(b.path)
		if err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("%s not found at %s: install Airlock with install.sh, which puts airlock, airlock-hook and airlock-mcp side by side", b.name, b.path)
		}
		if o.System {
			owner := 0
			if o.Root != "" {
				owner = os.Getuid()
			}
			if err := rootOwned(b.path, owner); err != nil {
				return fmt.Errorf("%s: %w: a managed hook must run a binary only root can replace; install the package (/usr/bin) or PREFIX=/usr/local ./install.sh as root", b.name, err)
			}
		}
	}
	return nil
}

// stores lists every candidate config file: Locate's, the files in
// LocateDirs' directories, and ExtraConfigs.
func (o *Options) stores() []Store {
	stores := Locate(o.Home, o.Workspace, o.GOOS, o.Env)
	for _, d := range LocateDirs(o.Home, o.Workspace, o.GOOS, o.Env) {
		ents, err := os.ReadDir(d.Path)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			if st, ok := Recognize(filepath.Join(d.Path, e.Name())); ok && st.ID == d.ID {
				stores = append(stores, st)
			}
		}
	}
	n := 0
	for _, st := range stores {
		if strings.HasPrefix(st.ID, "generic.") {
			n++
		}
	}
	for _, p := range o.ExtraConfigs {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		n++
		stores = append(stores, newStore(fmt.Sprintf("generic.%d", n), p))
	}
	return stores
}

// ServiceFile is a file init writes whole: Path, its bytes, and what to
// run once it is there (Next, for the report).
type ServiceFile struct {
	Path string
	Data []byte
	Next string
}
