package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// What Verify detects, by configuration.
//
// The attacker below can write the audit home (the agent's OS user can).
// "Detected" means Verify does not say intact.
//
// Hash chain and checkpoint only (no AIRLOCK_SIGN, no anchors): any edit,
// deletion, insertion, reordering or truncation by someone who does not
// recompute the chain. Someone who recomputes every h after the change and
// rewrites audit.head (and the ledger) is NOT detected: the chain is only
// as strong as the directory's permissions.
//
// Signed (AIRLOCK_SIGN=hmac or ed25519), verified with the key:
//   - Every record from the first sign_start on, every ledger line written
//     after it and the checkpoint carry a signature over their h (the
//     checkpoint's over all its members). Without the key, an edited
//     record whose h was recomputed has a signature that no longer
//     verifies (bad-signature); a stripped signature is unsigned; records
//     or ledger lines copied from another home signed with another key are
//     bad-signature; a recomputed chain changes the last h, so the signed
//     checkpoint no longer verifies (its signature covers count and last).
//   - Downgrade: stripping every signature leaves an unsigned sign_start
//     (broken). Deleting the sign_start as well forces recomputing the
//     chain from there, and then the checkpoint is either unsigned or does
//     not verify. A log with no signed record and an unsigned checkpoint
//     while signing is configured is never intact: it is tail-unprovable,
//     since that is also what a log looks like between turning signing on
//     and its first signed append.
//   - Records before the first sign_start (written before signing was
//     turned on) need no signature: they are covered by the chain up to
//     the signed checkpoint, not by their own signatures (Report.Unsigned).
//   - NOT detected: anything done by someone who can read the key (hmac:
//     the same OS user; ed25519: whoever can read AIRLOCK_SIGN_KEY), and a
//     rollback: cutting the newest records and putting back an older,
//     validly signed audit.head.
//   - Without the key (AIRLOCK_SIGN set but audit.key / the public key
//     missing) nothing about signatures can be checked: key-absent, once.
//
// Anchored (AIRLOCK_ANCHOR_DIR, written where the agent cannot rewrite it):
// at every anchored count the log must still have the anchored h. That
// detects, up to the newest anchor, a chain recomputed (and re-signed with
// the key) and a rollback or truncation below an anchored count. Records
// after the newest anchor have only the protection above. Anchors are
// looked up by HomeID, which includes install.id: if it is deleted or
// replaced, Verify finds no anchors for the home and says so in a note
// rather than a problem (a new home looks the same).

// VerifyOptions configure VerifyWith.
type VerifyOptions struct {
	// Getenv reads AIRLOCK_SIGN, AIRLOCK_VERIFY_KEY, AIRLOCK_SIGN_KEY and
	// AIRLOCK_ANCHOR_DIR; nil means os.Getenv.
	Getenv func(string) string
	// AnchorDir overrides AIRLOCK_ANCHOR_DIR when not empty.
	AnchorDir string
	// Sign, when not empty, is the signing mode the log is checked for
	// whatever AIRLOCK_SIGN says (a managed policy's requirement).
	Sign string
}

// withSign is getenv (os.Getenv when nil) with AIRLOCK_SIGN read as sign
// when sign is not empty.
func withSign(getenv func(string) string, sign string) func(string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if sign == "" {
		return getenv
	}
	return func(k string) string {
		if k == SignEnv {
			return sign
		}
		return getenv(k)
	}
}

// sigCheck is the signing state of one Verify walk.
type sigCheck struct {
	cfg       signConfig
	on        bool   // signatures are checked: signing configured and its key loaded
	started   bool   // the first sign_start was seen
	startFile string // where
	startLine int
	before    int    // unsigned records before the first sign_start
	seen      bool   // some record carries a signature
	absent    string // signing is configured but no key to check with: why
	stripped  int    // records after sign_start that carry no signature (checked even without a key)
	firstBare int    // the first of them
	bareFile  string
}

func (v *verifier) initSig(cfg signConfig) {
	v.sig.cfg = cfg
	v.sig.on = cfg.Mode != "" && cfg.Verifier != nil
	if v.sig.on {
		v.rep.Signing, v.rep.SignKey = cfg.Alg(), cfg.KeyFile
	}
	if cfg.Mode != "" && cfg.Verifier == nil {
		// Reported once, at the end, when it is known whether anything
		// was ever signed.
		v.sig.absent = cfg.absent
		if v.sig.absent == "" {
			v.sig.absent = "no verification key was loaded"
		}
	}
}

// finishKeyAbsent reports a missing verification key. A log with signed
// records is broken without it: none of them can be checked. A log where
// nothing was ever signed (signing just configured, no append since, so
// no key made yet) cannot be told from one whose signatures and
// sign_start were all stripped and the chain recomputed, so it is never
// intact: the tail is unprovable.
func (v *verifier) finishKeyAbsent() {
	s := &v.sig
	if s.absent == "" {
		return
	}
	if s.seen || s.started {
		v.addIn(LogFile, 0, kindKeyAbsent, Broken, "key absent: signatures cannot be checked: %s", textsafe.Escape(s.absent))
		return
	}
	v.addIn(LogFile, 0, kindKeyAbsent, TailUnprovable, "%s=%s is set but no record is signed yet and there is no key to check with (%s): nothing proves the signatures were not stripped; the next append starts signing", SignEnv, s.cfg.Mode, textsafe.Escape(s.absent))
}

// recordSig checks the signature of line n (claimed h). Records before the
// first sign_start may be unsigned; a signature they do carry is checked.
func (v *verifier) recordSig(n int, h, event, alg, sig []byte) {
	if string(event) == eventSignStart && !v.sig.started {
		v.sig.started, v.sig.startFile, v.sig.startLine = true, v.file, n
	}
	signed := len(alg) > 0 || len(sig) > 0
	v.sig.seen = v.sig.seen || signed
	if !v.sig.on {
		// Without a key nothing can be checked, but the chain itself
		// says signing began: a record after that without a signature
		// had it stripped.
		if v.sig.started && !signed {
			if v.sig.stripped == 0 {
				v.sig.firstBare, v.sig.bareFile = n, v.file
			}
			v.sig.stripped++
		}
		return
	}
	if !v.sig.started && !signed {
		v.sig.before++
		return
	}
	kind, msg := checkRecordSig(v.sig.cfg, string(h), stringValue(alg), stringValue(sig))
	if kind != sigOK {
		v.add(n, kind, Broken, "%s: %s", v.loc(n), msg)
	}
}

// checkLedgerSig checks the signature of a ledger line, once the walk has
// passed its segment: a line must be signed if signing had started by the
// end of that segment (the rotating appender was signing).
func (v *verifier) checkLedgerSig(e *ledgerEntry) {
	if !v.sig.on || (!v.sig.started && e.Alg == "" && e.Sig == "") {
		return
	}
	if kind, msg := checkLedgerSig(v.sig.cfg, e.H, e.Alg, e.Sig); kind != sigOK {
		n := v.ledgerLine[e.Seq]
		v.addIn(LedgerFile, n, kind, Broken, "line %d of %s (entry %d): %s", n, LedgerFile, e.Seq, msg)
	}
}

// checkHeadSig checks the checkpoint's signature.
func (v *verifier) checkHeadSig(head *Head) {
	if !v.sig.on || head == nil {
		return
	}
	if v.sig.started || head.Alg != "" || head.Sig != "" {
		if kind, msg := checkHeadSig(v.sig.cfg, *head, head.Alg, head.Sig); kind != sigOK {
			v.addIn(headFile, 0, kind, Broken, "%s: %s", headFile, msg)
		}
		return
	}
	if v.rep.Records > 0 {
		v.addIn(headFile, 0, kindUnsigned, TailUnprovable, "%s=%s but no record and not the checkpoint is signed: either nothing was appended since signing was turned on (the next append starts signing with a sign_start record), or every signature and the sign_start record were removed and the chain recomputed", SignEnv, v.sig.cfg.Mode)
	}
}

// anchorSet is what Verify read from the anchor directory.
type anchorSet struct {
	dir      string
	anchors  []Anchor
	problems []anchorProblem
}

// loadAnchors reads the anchors of home (never creating install.id) and
// tells the walk which positions to remember.
func (v *verifier) loadAnchors(home, dir string) (*anchorSet, error) {
	if dir == "" {
		return nil, nil
	}
	as := &anchorSet{dir: dir}
	id, err := existingHomeID(home)
	if errors.Is(err, fs.ErrNotExist) {
		v.note("%s has no %s: this home was never anchored (or %s was deleted, which hides its anchors)", textsafe.Escape(home), installIDFile, installIDFile)
		id = ""
	} else if err != nil {
		return nil, err
	}
	abs, _, err := homePaths(home)
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = "\x00none"
	}
	var foreign []Anchor
	if as.anchors, foreign, as.problems, err = readAnchorsAt(dir, id, abs); err != nil {
		return nil, err
	}
	if len(foreign) > 0 {
		v.addIn(installIDFile, 0, kindAnchorForeign, Broken, "%s holds %d anchors for this home (%s) taken under another install id: %s was deleted or replaced, which would hide them (restore it; to start afresh on purpose, move the anchor file aside)", textsafe.Escape(dir), len(foreign), textsafe.Escape(abs), installIDFile)
	}
	v.wantH, v.gotH = AnchoredCounts(as.anchors), map[int64]string{}
	return as, nil
}

// checkAnchors reports the anchor file's own problems and every anchor the
// log contradicts.
func (v *verifier) checkAnchors(as *anchorSet) {
	if as == nil {
		return
	}
	for _, p := range as.problems {
		v.addIn(anchorFile, p.Line, kindAnchorFile, Broken, "%s", p.Message)
	}
	hAt := func(c int64) (string, bool) {
		if c > v.pos {
			return "", false
		}
		return v.gotH[c], true
	}
	var maxCount int64
	for _, a := range as.anchors {
		v.rep.Anchors++
		if a.Count < maxCount {
			v.addIn(anchorFile, a.Line, kindAnchorMismatch, Broken, "line %d of %s counts %d records, fewer than an earlier anchor's %d: the log was rolled back or restarted between them", a.Line, anchorFile, a.Count, maxCount)
		}
		maxCount = max(maxCount, a.Count)
		kind := kindAnchorMismatch
		if a.Count > v.pos {
			kind = kindAnchorBeyond
		}
		for _, msg := range checkAgainstAnchors([]Anchor{a}, hAt) {
			v.addIn(anchorFile, a.Line, kind, Broken, "%s", msg)
		}
	}
	if len(as.anchors) == 0 && v.rep.Records > 0 {
		v.note("%s holds no anchor for this home yet (one is taken every %d records, at every rotation, and by `airlock verify --anchor`)", textsafe.Escape(filepath.Join(as.dir, anchorFile)), anchorEvery)
	}
}

func (v *verifier) note(format string, args ...any) {
	v.rep.Notes = append(v.rep.Notes, fmt.Sprintf(format, args...))
}

// finishNotes adds what the signing walk found that is not a problem.
func (v *verifier) finishNotes() {
	v.finishKeyAbsent()
	s := &v.sig
	if !s.on && s.stripped > 0 {
		v.addIn(s.bareFile, s.firstBare, kindUnsigned, Broken, "%d records after sign_start (line %d of %s) carry no signature: signatures were stripped (set %s and the key to check the rest)", s.stripped, s.startLine, textsafe.Escape(s.startFile), SignEnv)
	}
	switch {
	case s.on && s.started && s.before > 0:
		v.rep.Unsigned = s.before
		where := ""
		if s.startFile != LogFile {
			where = " of " + textsafe.Escape(s.startFile)
		}
		v.note("%d records before signing was enabled (sign_start at line %d%s) are unsigned: they are protected by the chain up to the signed checkpoint, not by signatures of their own", s.before, s.startLine, where)
	case s.cfg.Mode == "" && s.seen:
		v.note("records are signed but %s is not set, so their signatures were not checked: set %s (and the key) to check them", SignEnv, SignEnv)
	}
}

// strength is the one-sentence account of what the verdict is worth.
func strength(rep *Report, cfg signConfig, as *anchorSet) string {
	var parts []string
	switch {
	case rep.Signing == algHMAC:
		parts = append(parts, fmt.Sprintf("signed (hmac, local key %s): protects against edits by anyone who cannot read the key; not against the same OS user, who can read it and re-sign a rewritten log", textsafe.Escape(cfg.KeyFile)))
	case rep.Signing == algEd25519:
		parts = append(parts, fmt.Sprintf("signed (ed25519, public key %s): protects against anyone without the private key; not against whoever can read %s", textsafe.Escape(cfg.KeyFile), signKeyEnv))
	case cfg.Mode != "":
		parts = append(parts, fmt.Sprintf("%s=%s but the key is absent: signatures were not checked", SignEnv, cfg.Mode))
	}
	switch {
	case as != nil && rep.Anchors > 0:
		parts = append(parts, fmt.Sprintf("anchored in %s (%d anchors): a rewrite, re-signing or rollback of what they cover is detected", textsafe.Escape(as.dir), rep.Anchors))
	case as != nil:
		parts = append(parts, fmt.Sprintf("anchor directory %s holds no anchor for this home yet", textsafe.Escape(as.dir)))
	case rep.Signing != "":
		parts = append(parts, "not anchored: a rollback to an older signed checkpoint is not detected")
	}
	if rep.Signing == "" && rep.Anchors == 0 {
		parts = append(parts, "only as strong as the directory's permissions: anyone who can write it can recompute the chain")
	}
	return strings.Join(parts, "; ")
}
