package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// ErrUnsupported is returned on systems without the kernel sandbox.
var ErrUnsupported = errors.New("the kernel sandbox runs on Linux and macOS only (Landlock and seccomp; Seatbelt): nothing was started")

// ErrKernelTooOld is wrapped by Prepare when the caller required a
// Landlock ABI the kernel does not offer.
var ErrKernelTooOld = errors.New("the kernel does not offer the Landlock ABI required")

// defaultWalkBudget is how many entries one allowed root may hold before
// the rest of it is not granted.
const defaultWalkBudget = 20000

// Options describe one sandboxed launch.
type Options struct {
	Argv   []string // the command and its arguments; required
	Dir    string   // working directory; default the current one
	Env    []string // the child's environment; nil: this process's
	Policy *policy.Policy

	// EgressPort is the loopback port of the egress proxy; with Landlock
	// network rules (ABI 4+) it is the only TCP port the child may connect
	// to. 0: no proxy, no TCP connect at all.
	EgressPort int
	// AllowNetwork leaves TCP unrestricted (no proxy and the user asked
	// for it); the banner says so.
	AllowNetwork bool
	// RequireABI refuses to prepare (ErrKernelTooOld) when the kernel
	// offers a lower Landlock ABI. 0: degrade, loudly.
	RequireABI int
	// MaxABI pretends the kernel offers at most this ABI (tests, and a
	// user checking what an older kernel would leave open). 0: no cap.
	MaxABI int
	// NoSeccomp leaves the seccomp filter off (tests of Landlock alone).
	NoSeccomp bool
	// RefuseMetadata has seccomp refuse chmod, chown, utimes and the
	// extended-attribute syscalls for the whole run, wherever they point
	// (Landlock does not mediate metadata, and seccomp cannot see
	// paths). The paranoid profile sets it whatever this says.
	RefuseMetadata bool
	// NoMountNS keeps the command out of a user and mount namespace of
	// its own (the denied entries' metadata is then a gap).
	NoMountNS bool
	// ReExec launches through a re-executed launcher child (MaybeChild)
	// instead of a restricted thread of this process.
	ReExec bool
	// WalkBudget is the per-root entry budget; 0: DefaultWalkBudget.
	WalkBudget int
	// Roots, when not nil, replace the default allowed trees (the
	// workspace and the temp dir read-write, the home read-only): a
	// per-server profile (airlock-mcp --sandbox). Each is walked with the
	// policy's forbids carved out, as the defaults are; /etc (walked,
	// read-only), the system trees, /proc, /sys and the harmless devices
	// are granted either way.
	Roots []Root

	Stdin  io.Reader // default os.Stdin
	Stdout io.Writer // default os.Stdout
	Stderr io.Writer // default os.Stderr

	handoff *termHandoff // set by OpenSession: its Asker takes the terminal from Run's relay

	// Stopped, when set, is called by Run at the first stop signal it
	// passes on to the command (SIGTERM, SIGHUP, or a SIGINT not from a
	// terminal), right after passing it: whoever sent the signal may kill
	// this process a moment later (Codex sends SIGKILL about 12 ms after
	// SIGTERM), so the caller writes its last records there. Run returns
	// only once Stopped has returned.
	Stopped func(sig os.Signal)
}

// Root is one allowed tree of a per-server profile (Options.Roots).
type Root struct {
	Path  string
	Write bool // read-write; false: read and execute
}

// Report is what a prepared sandbox enforces on this kernel and what it
// does not: the banner, the audit record of the session start and doctor
// all show it.
type Report struct {
	KernelABI  int      // the Landlock ABI the kernel offers (0: none)
	ABI        int      // the ABI in force (0: Landlock off)
	Rights     []string // the file-system rights Landlock handles
	Network    string   // what TCP may do
	Scoped     bool     // signals and abstract UNIX sockets scoped to the sandbox (ABI 6)
	Seccomp    bool
	SeccompWhy string // why seccomp is off, when it is
	// MetadataRefused: seccomp refuses the metadata syscalls for the
	// whole run (Options.RefuseMetadata, the paranoid profile).
	MetadataRefused bool
	Capabilities    string // what the command holds of the capabilities
	// ReadOnlyMounts is how many denied entries are read-only mounts in
	// the command's own mount namespace (0: none, or no namespace).
	ReadOnlyMounts int
	// Terminal is how the command gets a terminal: its own session on a
	// pty airlock run relays, or "" (stdin is not a terminal: nothing
	// to say).
	Terminal    string
	Egress      bool
	Rules       int    // path rules in the ruleset
	RulesDigest string // sha256 over the rules, for the audit record
	Roots       []string
	Gaps        []string
	// Seatbelt is the macOS backend (sandbox-exec and a generated
	// profile): the Landlock ABI, its scopes and seccomp do not apply.
	Seatbelt bool
}

// Enforced names what the sandbox enforces, for one line:
// "Landlock ABI 7, seccomp, egress proxy". What is off is named too
// ("seccomp OFF"), so the line never reads as more than it is.
func (r Report) Enforced() string {
	if r.Seatbelt {
		return r.seatbeltEnforced()
	}
	landlock := fmt.Sprintf("Landlock ABI %d", r.ABI)
	switch {
	case r.ABI == 0:
		landlock = "Landlock OFF"
	case r.KernelABI > r.ABI:
		landlock = fmt.Sprintf("Landlock ABI %d of the kernel's %d", r.ABI, r.KernelABI)
	}
	return landlock + ", " + r.rest()
}

// rest is Enforced after Landlock: seccomp and the network.
func (r Report) rest() string {
	seccomp := "seccomp"
	if !r.Seccomp {
		seccomp = "seccomp OFF"
	}
	network := "no egress proxy"
	switch {
	case r.Egress && r.proxyBypassable():
		// the proxy runs, but without Landlock network rules a program
		// that ignores HTTPS_PROXY connects anywhere: not "enforced"
		network = "egress proxy but TCP open"
	case r.Egress:
		network = "egress proxy"
	case r.Network == networkRefused:
		network = "no TCP connect"
	}
	return seccomp + ", " + network
}

// proxyBypassable: Landlock is on but has no network rules (ABI < 4),
// so the egress proxy is only where a program chooses to connect. (With
// Landlock off the summary already says the network is open.)
func (r Report) proxyBypassable() bool { return r.ABI > 0 && r.ABI < 4 }

// Summary is the report on one line, without a prefix: what is enforced
// and how many protections are not, e.g.
// "sandboxed (Landlock ABI 7, seccomp, egress proxy) — 8 not enforced".
// The gaps themselves are in Details, the audit record and doctor.
func (r Report) Summary() string {
	head := "sandboxed (" + r.Enforced() + ")"
	if r.ABI == 0 && !r.Seatbelt {
		head = "NOT sandboxed by Landlock: files and network are open (" + r.rest() + ")"
	}
	if len(r.Gaps) == 0 {
		return head
	}
	return fmt.Sprintf("%s — %d not enforced", head, len(r.Gaps))
}

// Banner is the report as one screen for stderr: a header and Details
// (airlock-mcp --sandbox prints it; airlock run prints Summary, and
// Details with -v).
func (r Report) Banner() string {
	var b strings.Builder
	if r.Seatbelt {
		b.WriteString("airlock run: sandbox on — Seatbelt (sandbox-exec)\n")
	} else if r.ABI == 0 {
		b.WriteString("airlock run: WARNING — Landlock is OFF on this kernel: files and network are NOT kernel-enforced\n")
	} else {
		fmt.Fprintf(&b, "airlock run: sandbox on — Landlock ABI %d", r.ABI)
		if r.KernelABI != r.ABI {
			fmt.Fprintf(&b, " (kernel offers %d)", r.KernelABI)
		}
		b.WriteString("\n")
	}
	b.WriteString(r.Details())
	return b.String()
}

// Details are the report's lines below its header, indented: the file
// rules, the network, seccomp, the egress proxy, and every gap by name.
func (r Report) Details() string {
	if r.Seatbelt {
		return r.seatbeltDetails()
	}
	var b strings.Builder
	if r.ABI == 0 {
		b.WriteString("  files:    NOT restricted: Landlock is off on this kernel\n")
	} else {
		fmt.Fprintf(&b, "  files:    %d rules over %s\n", r.Rules, textsafe.Escape(strings.Join(r.Roots, ", ")))
		fmt.Fprintf(&b, "  rights:   %s\n", strings.Join(r.Rights, " "))
	}
	fmt.Fprintf(&b, "  network:  %s\n", r.Network)
	if r.Seccomp {
		b.WriteString("  seccomp:  on (" + SeccompRefuses + ")\n")
	} else {
		fmt.Fprintf(&b, "  seccomp:  OFF (%s)\n", r.SeccompWhy)
	}
	switch {
	case r.MetadataRefused:
		b.WriteString("  metadata: " + metadataRefused + "\n")
	case r.ReadOnlyMounts > 0:
		b.WriteString("  metadata: " + metadataMounts + "\n")
	}
	if r.Capabilities != "" {
		b.WriteString("  caps:     " + r.Capabilities + "\n")
	}
	if r.Terminal != "" {
		b.WriteString("  terminal: " + r.Terminal + "\n")
	}
	if r.Egress && r.proxyBypassable() {
		b.WriteString("  egress:   proxy on for the clients that use it (HTTP_PROXY, HTTPS_PROXY): TCP is open to any other\n")
	} else if r.Egress {
		b.WriteString("  egress:   proxy on: HTTP(S) goes through the policy\n")
	} else {
		b.WriteString("  egress:   proxy off\n")
	}
	if r.Scoped {
		b.WriteString("  scoped:   signals and abstract UNIX sockets stay inside the sandbox\n")
	}
	if len(r.Gaps) > 0 {
		fmt.Fprintf(&b, "  not enforced (%d):\n", len(r.Gaps))
		for _, g := range r.Gaps {
			// a gap names directories of the workspace, whose names
			// the repository chose: shown escaped, never as terminal
			// control sequences
			fmt.Fprintf(&b, "    - %s\n", textsafe.Escape(g))
		}
	}
	return b.String()
}

// SeccompRefuses is what the seccomp filter refuses, for the banner and
// doctor.
const SeccompRefuses = "ptrace, io_uring, bpf, mount, namespaces, keyrings, raw and packet sockets, " +
	"TIOCSTI and TIOCLINUX, TIOCSETD and TIOCCONS, the hostname, the clock, reboot, kexec, modules, swap, acct, chroot, raw I/O ports, " +
	"block and character device nodes refused"

// terminalRelayed is the banner's line on the terminal when stdin is one.
const terminalRelayed = "a session of its own on a pty airlock run relays: nothing it does types into yours"

// terminalShared is the line when airlock run is in the terminal's
// background and the command shares it.
const terminalShared = "yours, shared (airlock run is in the background): TIOCSTI and TIOCLINUX are refused, its modes are not"

// terminalSharedGap is the gap of a shared terminal: the relay cannot
// read a terminal airlock run is in the background of.
const terminalSharedGap = "your terminal is shared (airlock run started in the background with it on stdin): a process the command leaves behind can read what you type after airlock run exits"

// metadataRefused is the banner's line when seccomp refuses the metadata
// syscalls.
const metadataRefused = "chmod, chown, utimes and extended attributes refused everywhere for the run (the paranoid profile)"

// metadataMounts is the banner's line when the denied entries are
// read-only mounts.
const metadataMounts = "the denied entries are read-only mounts in a mount namespace of the command's own: chmod, chown, utimes and extended attributes on them fail"

// hardLinkMetadataGap is what the read-only mounts leave.
const hardLinkMetadataGap = "a hard link to a denied file made before the run outside the denied entries is on a writable mount: its metadata (chmod, chown, utimes, xattrs) can be changed"

// renameGap is what a launch without the namespace leaves of the denied
// entries in a writable tree: Landlock's remove and make rights are the
// directory's, for every entry in it (the namespace's read-only mounts
// are mount points, which cannot be moved: EBUSY).
const renameGap = "a denied entry inside a writable tree can be renamed or removed, and a file of the command's put in its place (the command is not in a namespace of its own, where it would be a mount point)"

// metadataGap is the gap when it does not.
const metadataGap = "chmod, chown, utimes and extended attributes of a file the rules deny are not refused " +
	"(Landlock does not mediate metadata and seccomp cannot see paths; the paranoid profile refuses them for the whole run)"

// networkRefused is Report.Network when Landlock refuses every TCP
// connect and bind (no egress proxy).
const networkRefused = "TCP connect and bind refused"

// AuditDetail is the report on one line for the session-start record:
// what is enforced, and every gap by name (gaps, "; "-separated) with
// their number (not_enforced), as the banner counts them.
func (r Report) AuditDetail() string {
	if r.Seatbelt {
		return r.seatbeltAuditDetail()
	}
	return fmt.Sprintf("abi=%d kernel_abi=%d rules=%d rules_digest=%s seccomp=%t egress=%t scoped=%t network=%q caps=%q read_only_mounts=%d metadata_refused=%t terminal=%q enforced=%q not_enforced=%d gaps=%q",
		r.ABI, r.KernelABI, r.Rules, r.RulesDigest, r.Seccomp, r.Egress, r.Scoped, r.Network, r.Capabilities, r.ReadOnlyMounts, r.MetadataRefused, r.Terminal,
		r.Enforced(), len(r.Gaps), strings.Join(r.Gaps, "; "))
}

// settle fills the defaults and refuses options no launch can run:
// Prepare's first step on every OS.
func (o *Options) settle() error {
	o.defaults()
	if len(o.Argv) == 0 {
		return errors.New("sandbox: no command to run")
	}
	if o.Policy == nil {
		return errors.New("sandbox: no policy")
	}
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		o.Dir = wd
	}
	return nil
}

func (o *Options) defaults() {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.WalkBudget <= 0 {
		o.WalkBudget = defaultWalkBudget
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
}
