package scan

// The indicator feed: indicators rot like antivirus signatures, so a
// signed, versioned feed can add to them between releases. The bundled
// indicators are a floor: a feed can add indicators, add patterns under a
// bundled id and raise a bundled severity, and there is no way to write
// "delete" or "lower" in one. A poisoned feed can make Airlock noisy; it
// cannot make it blind.
//
// Patterns are Go regular expressions (RE2): matching is linear in the
// text, with no catastrophic backtracking, whatever the pattern. Size and
// count are capped all the same, so a feed cannot make every scan slow.
//
// This file is the one place scan reads a file (the installed feed,
// LoadFeed) and writes one (InstallFeed); fetching is the caller's job.

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Feed files, keys and caps.
const (
	FeedFile   = "feed.json"        // the active feed, in $AIRLOCK_HOME
	FeedKeyEnv = "AIRLOCK_FEED_KEY" // trusted publisher keys, or a file of them
	Unsigned   = "unsigned"         // Feed.Signer of a feed installed with --allow-unsigned

	MaxFeedBytes      = 1 << 20 // a feed, signed envelope included
	maxFeedIndicators = 256
	maxFeedPattern    = 1024 // bytes of one pattern
	maxFeedExplain    = 200  // bytes of one explanation
	// maxFeedProgram and MaxFeedPrograms bound the compiled size of one
	// pattern and of all of them, in instructions. RE2 matching is linear
	// in the text, but the factor is the program's size: counted repeats
	// multiply it ([a-z]{900} is nine hundred), and a feed at this cap
	// whose patterns almost match everywhere costs some 25 µs per byte
	// scanned. The bundled indicators come to about 7,000, the largest to
	// under 800; a feed of 256 domain-sized patterns to about 5,500.
	maxFeedProgram  = 1000
	maxFeedPrograms = 8000
)

// feedSigDomain starts every signed message, so a signature made with a
// feed key can never be replayed as one over anything else (the audit
// log signs with the same construction and its own tags).
const feedSigDomain = "airlock-feed-v1\n"

// Refusals a caller may want to tell apart.
var (
	errFeedUnsigned     = errors.New("feed is not signed")
	errFeedUntrusted    = errors.New("feed signer is not trusted")
	errFeedBadSignature = errors.New("feed signature does not verify")
	errFeedFloor        = errors.New("a feed can raise a bundled severity, never lower it")
	errFeedRollback     = errors.New("feed would roll back the active feed")
)

// feedIndicator is one entry of a feed, as written in its JSON.
type feedIndicator struct {
	// ID is "feed.<name>" for an indicator of the feed's own, or the id
	// of a bundled indicator whose severity it raises or to which it adds
	// a pattern.
	ID       string   `json:"id"`
	Category Category `json:"category,omitempty"` // required for a feed.* id; must agree for a bundled one
	Severity string   `json:"severity"`           // "low", "med" or "high", in Instructions
	// Pattern is RE2 matched against the folded text (see fold): lower
	// case, NFKC, invisible characters removed, tag characters decoded,
	// look-alike letters mapped to ASCII, every space an ASCII space.
	Pattern string `json:"pattern,omitempty"`
	Explain string `json:"explain,omitempty"` // one line for a person; required for a feed.* id
}

// feedDoc is the feed's JSON.
type feedDoc struct {
	Version    int             `json:"version"`
	Created    string          `json:"created"`
	Indicators []feedIndicator `json:"indicators"`
}

// feedEnvelope is a signed feed: the payload is the feed's JSON, byte for
// byte, so what was signed is what is parsed.
type feedEnvelope struct {
	Payload string `json:"payload"` // base64 of the feed JSON
	Key     string `json:"key"`     // FeedKeyID of the signing key
	Sig     string `json:"sig"`     // base64 ed25519 signature of feedSigDomain + payload
}

// Feed is a verified, compiled feed. It never changes once parsed, so one
// Feed can serve any number of concurrent scans.
type Feed struct {
	Version    int
	Created    time.Time
	Indicators []feedIndicator
	Signer     string    // FeedKeyID of the key that signed it, or Unsigned
	SHA256     string    // hex SHA-256 of the payload
	Source     string    // where it was installed from (set by the installer)
	Installed  time.Time // when (set by the installer)

	payload []byte
	rules   []feedRule
	raise   map[string]Severity // bundled id -> raised severity
	size    int                 // compiled instructions of all patterns
	stats   feedStats
}

// feedStats counts what a feed does to the bundled indicators.
type feedStats struct {
	New    int // indicators of its own (feed.* ids)
	Raised int // bundled indicators whose severity it raises
	Extra  int // patterns it adds under bundled ids
	// Moot: entries of an installed feed that no longer apply, because
	// this version of Airlock ships the indicator at that severity or
	// above, or no longer ships it. The floor wins.
	Moot int
}

// Stats says what the feed adds to the bundled indicators.
func (f *Feed) Stats() feedStats { return f.stats }

type feedRule struct {
	id       string
	cat      Category
	sev      Severity
	explain  string
	quotable bool
	re       *regexp.Regexp
	// needles: every match contains one of these, so a text with none
	// of them is skipped without running the regexp (nil: always run).
	needles []string
	size    int // compiled instructions
}

// feedPattern is a compiled pattern with what the engine needs to run it.
type feedPattern struct {
	re      *regexp.Regexp
	needles []string
	size    int
}

type bundledIndicator struct {
	cat      Category
	sev      Severity
	explain  string
	quotable bool
}

// detectors are the bundled indicators that are code rather than a
// pattern, at the severity each reports by default (stealth.go): a
// table, not a map, so that linking scan costs no initialisation.
var detectors = [...]struct {
	id string
	bundledIndicator
}{
	{"stealth.tag-chars", bundledIndicator{Stealth, High, "invisible Unicode tag characters spell out text only the model reads", false}},
	{"stealth.bidi", bundledIndicator{Stealth, High, "bidirectional control characters reorder what a reader sees", false}},
	{"stealth.zero-width", bundledIndicator{Stealth, Med, "zero-width or blank characters inside the text", false}},
	{"stealth.html-comment", bundledIndicator{Stealth, Med, "an HTML comment, which rendered markdown does not show, carries instructions", false}},
	{"stealth.details", bundledIndicator{Stealth, Med, "a collapsed <details> block carries instructions", false}},
	{"stealth.base64", bundledIndicator{Stealth, Med, "a long base64 blob no reader can check", false}},
	{"stealth.ansi", bundledIndicator{Stealth, High, "terminal control sequences hide, erase or overwrite what a person sees", false}},
}

// bundled returns the indicator a feed entry may name, if id is one.
func bundled(id string) (bundledIndicator, bool) {
	for _, r := range rules {
		if r.id == id {
			return bundledIndicator{r.cat, r.sev, r.explain, r.quotable}, true
		}
	}
	for _, d := range detectors {
		if d.id == id {
			return d.bundledIndicator, true
		}
	}
	return bundledIndicator{}, false
}

// BundledIndicators is how many indicators a feed sits on.
func BundledIndicators() int { return len(rules) + len(detectors) }

var activeFeed atomic.Pointer[Feed]

// activateFeed makes f the feed every later scan in this process runs
// with, on top of the bundled indicators; nil runs the bundled ones alone.
func activateFeed(f *Feed) { activeFeed.Store(f) }

// ActiveFeed returns the feed in use, or nil.
func ActiveFeed() *Feed { return activeFeed.Load() }

// FeedKeyID names a public key: the first 16 hex digits of its SHA-256.
func FeedKeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// ParseFeedKeys reads trusted publisher keys: each the standard base64 of
// a 32-byte ed25519 public key, separated by commas or white space; lines
// starting with # are comments.
func ParseFeedKeys(text string) ([]ed25519.PublicKey, error) {
	var keys []ed25519.PublicKey
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, field := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			raw, err := base64.StdEncoding.DecodeString(field)
			if err != nil || len(raw) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("%q is not an ed25519 public key (base64 of 32 bytes, as `airlock update keygen` prints)", clip(field, 60))
			}
			keys = append(keys, ed25519.PublicKey(raw))
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no ed25519 public key in it")
	}
	return keys, nil
}

// ParseFeed verifies and compiles a feed: a signed envelope whose key is
// one of trusted, or, only with allowUnsigned, a bare feed. A signature
// that does not verify, or a key that is not trusted, is refused even
// with allowUnsigned: that is tampering, not a feed without a signature.
func ParseFeed(raw []byte, trusted []ed25519.PublicKey, allowUnsigned bool) (*Feed, error) {
	signed, err := isEnvelope(raw)
	if err != nil {
		return nil, err
	}
	payload, signer := raw, Unsigned
	if signed {
		if payload, signer, err = openEnvelope(raw, trusted); err != nil {
			return nil, err
		}
	} else if !allowUnsigned {
		return nil, fmt.Errorf("%w: refused; sign it (`airlock update sign`) and trust the key in %s, or, for a feed you host yourself, pass --allow-unsigned", errFeedUnsigned, FeedKeyEnv)
	}
	f, err := compileFeed(payload, false)
	if err != nil {
		return nil, err
	}
	f.Signer = signer
	return f, nil
}

// isEnvelope reports whether raw is a signed envelope rather than a bare
// feed, after the checks every feed must pass first.
func isEnvelope(raw []byte) (bool, error) {
	if len(raw) > MaxFeedBytes {
		return false, fmt.Errorf("feed is %d bytes, over the %d-byte cap", len(raw), MaxFeedBytes)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return false, fmt.Errorf("feed is not a JSON object: %w", err)
	} else if probe == nil {
		return false, errors.New("feed is not a JSON object")
	}
	_, signed := probe["payload"]
	return signed, nil
}

func openEnvelope(raw []byte, trusted []ed25519.PublicKey) ([]byte, string, error) {
	var env feedEnvelope
	if err := decodeStrict(raw, &env); err != nil {
		return nil, "", fmt.Errorf("signed feed: %w", err)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, "", fmt.Errorf("signed feed: payload is not base64: %w", err)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, "", fmt.Errorf("%w: sig is not a base64 ed25519 signature", errFeedBadSignature)
	}
	var ids []string
	for _, k := range trusted {
		id := FeedKeyID(k)
		if id != env.Key {
			ids = append(ids, id)
			continue
		}
		if !ed25519.Verify(k, append([]byte(feedSigDomain), payload...), sig) {
			return nil, "", fmt.Errorf("%w with key %s: the feed was altered after it was signed; refused", errFeedBadSignature, id)
		}
		return payload, id, nil
	}
	if len(ids) == 0 {
		return nil, "", fmt.Errorf("%w: it is signed by key %q, and %s trusts no key; add the publisher's public key to it", errFeedUntrusted, clip(env.Key, 32), FeedKeyEnv)
	}
	return nil, "", fmt.Errorf("%w: it is signed by key %q; %s trusts %s", errFeedUntrusted, clip(env.Key, 32), FeedKeyEnv, strings.Join(ids, ", "))
}

// SignFeed checks payload as a feed and returns the signed envelope.
func SignFeed(payload []byte, priv ed25519.PrivateKey) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("not an ed25519 private key")
	}
	if signed, err := isEnvelope(payload); err != nil {
		return nil, err
	} else if signed {
		return nil, errors.New("it is signed already: sign the feed itself, not its envelope")
	}
	if _, err := compileFeed(payload, false); err != nil {
		return nil, err
	}
	env := feedEnvelope{
		Payload: base64.StdEncoding.EncodeToString(payload),
		Key:     FeedKeyID(priv.Public().(ed25519.PublicKey)),
		Sig:     base64.StdEncoding.EncodeToString(ed25519.Sign(priv, append([]byte(feedSigDomain), payload...))),
	}
	if len(env.Payload) > MaxFeedBytes-256 {
		return nil, fmt.Errorf("signed feed would be over the %d-byte cap; make the feed smaller", MaxFeedBytes)
	}
	out, err := json.MarshalIndent(env, "", "  ")
	return append(out, '\n'), err
}

// validFeedID: [a-z0-9]+(\.[a-z0-9-]+)+, at most 64 bytes. (Checked by
// hand: a package-level regexp would be compiled by every process that
// imports scan, the hook included.)
func validFeedID(id string) bool {
	segs := strings.Split(id, ".")
	if len(id) > 64 || len(segs) < 2 {
		return false
	}
	for i, seg := range segs {
		if seg == "" {
			return false
		}
		for _, c := range []byte(seg) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' && i > 0) {
				return false
			}
		}
	}
	return true
}

func validKeyID(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 16 && err == nil && strings.ToLower(s) == s
}

// compileFeed validates a feed's JSON and compiles its patterns. stored is
// for a feed installed by an earlier Airlock, whose bundled indicators may
// since have been raised or retired: there an entry at or below the
// bundled severity is moot instead of an error, because refusing it would
// stop the proxy from starting after an upgrade.
func compileFeed(payload []byte, stored bool) (*Feed, error) {
	if !utf8.Valid(payload) {
		// It is stored as a JSON string, which would not keep it byte for byte.
		return nil, errors.New("feed is not valid UTF-8")
	}
	var doc feedDoc
	if err := decodeStrict(payload, &doc); err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	f := &Feed{Version: doc.Version, Indicators: doc.Indicators, payload: payload, raise: map[string]Severity{}}
	sum := sha256.Sum256(payload)
	f.SHA256 = hex.EncodeToString(sum[:])
	var errs []error
	fail := func(format string, args ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	if doc.Version < 1 {
		fail("feed: version %d: want a whole number from 1 up, raised for every change", doc.Version)
	}
	var err error
	if f.Created, err = time.Parse(time.RFC3339, doc.Created); err != nil {
		fail("feed: created %q: want an RFC 3339 time like 2026-01-31T12:00:00Z", clip(doc.Created, 40))
	}
	if len(doc.Indicators) > maxFeedIndicators {
		fail("feed: %d indicators, over the cap of %d", len(doc.Indicators), maxFeedIndicators)
		doc.Indicators = doc.Indicators[:maxFeedIndicators]
	}
	seen := map[string]int{} // id → the indicator it first appears in, from 1
	for i, in := range doc.Indicators {
		where := fmt.Sprintf("feed: indicator %d (%s)", i+1, clip(in.ID, 64))
		if err := f.add(in, i+1, seen, stored); err != nil {
			fail("%s: %w", where, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// add validates one entry, the nth of the feed, and records what it adds.
func (f *Feed) add(in feedIndicator, n int, seen map[string]int, stored bool) error {
	if !validFeedID(in.ID) {
		return errors.New(`id: want "feed.<name>" in lower-case letters, digits, dots and dashes, or a bundled id`)
	}
	if first, dup := seen[in.ID]; dup {
		return fmt.Errorf("id repeated (first as indicator %d); remove one", first)
	}
	seen[in.ID] = n
	sev, err := feedSeverity(in.Severity)
	if err != nil {
		return err
	}
	if len(in.Explain) > maxFeedExplain {
		return fmt.Errorf("explain is %d bytes, over the cap of %d", len(in.Explain), maxFeedExplain)
	}
	if !utf8.ValidString(in.Explain) || strings.ContainsFunc(in.Explain, textsafe.Hidden) || strings.ContainsRune(in.Explain, utf8.RuneError) {
		return errors.New("explain must be one line of printable text")
	}
	var p *feedPattern
	if in.Pattern != "" {
		if p, err = compileFeedPattern(in.Pattern); err != nil {
			return err
		}
		if f.size += p.size; f.size > maxFeedPrograms {
			return fmt.Errorf("the feed's patterns come to over %d compiled instructions together", maxFeedPrograms)
		}
	}
	if !strings.HasPrefix(in.ID, "feed.") {
		return f.onBundled(in, sev, p, stored)
	}
	switch in.Category {
	case injection, Secret, Exfiltration, Execution, Stealth:
	default:
		return fmt.Errorf("category %q: want injection, secret, exfiltration, execution or stealth", clip(string(in.Category), 40))
	}
	if p == nil {
		return errors.New("a feed indicator needs a pattern")
	}
	if in.Explain == "" {
		return errors.New("a feed indicator needs an explain line")
	}
	f.rules = append(f.rules, feedRule{id: in.ID, cat: in.Category, sev: sev, explain: in.Explain, re: p.re, needles: p.needles, size: p.size})
	f.stats.New++
	return nil
}

// onBundled applies an entry naming a bundled indicator: it may raise the
// severity and add a pattern, never lower or remove anything.
func (f *Feed) onBundled(in feedIndicator, sev Severity, p *feedPattern, stored bool) error {
	b, ok := bundled(in.ID)
	switch {
	case !ok && stored:
		f.stats.Moot++
		return nil
	case !ok:
		return errors.New(`not a bundled indicator a feed can name; an indicator of the feed's own has an id starting "feed."`)
	case in.Category != "" && in.Category != b.cat && !stored:
		return fmt.Errorf("category %q: the bundled indicator is %s", clip(string(in.Category), 40), b.cat)
	case sev < b.sev && !stored:
		return fmt.Errorf("severity %s is below the bundled %s: %w", sev, b.sev, errFeedFloor)
	}
	switch {
	case sev > b.sev:
		f.raise[in.ID] = sev
		f.stats.Raised++
	case p == nil:
		f.stats.Moot++
	}
	if p != nil {
		explain := in.Explain
		if explain == "" {
			explain = b.explain
		}
		f.rules = append(f.rules, feedRule{id: in.ID, cat: b.cat, sev: max(sev, b.sev), explain: explain, quotable: b.quotable,
			re: p.re, needles: p.needles, size: p.size})
		f.stats.Extra++
	}
	return nil
}

func feedSeverity(s string) (Severity, error) {
	switch s {
	case "low":
		return Low, nil
	case "med":
		return Med, nil
	case "high":
		return High, nil
	}
	return None, fmt.Errorf("severity %q: want low, med or high", clip(s, 20))
}
