package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// signSetup is one signing mode as an appender and a verifier see it.
type signSetup struct {
	mode   string
	append func(string) string // getenv for OpenWith
	verify func(string) string // getenv for VerifyWith: public key only for ed25519
}

// signSetups returns the signing modes, each with fresh keys. "" is off.
func signSetups(t testing.TB, modes ...string) []signSetup {
	t.Helper()
	var out []signSetup
	for _, m := range modes {
		switch m {
		case "":
			out = append(out, signSetup{mode: "off", append: signEnv(), verify: signEnv()})
		case signModeHMAC:
			env := signEnv(SignEnv, signModeHMAC)
			out = append(out, signSetup{mode: m, append: env, verify: env})
		case signModeEd25519:
			priv, pub := ed25519Files(t)
			out = append(out, signSetup{mode: m,
				append: signEnv(SignEnv, m, signKeyEnv, priv),
				verify: signEnv(SignEnv, m, verifyKeyEnv, pub)})
		}
	}
	return out
}

func ed25519Files(t testing.TB, dir ...string) (string, string) {
	d := ""
	if len(dir) > 0 {
		d = dir[0]
	} else {
		var err error
		if d, err = os.MkdirTemp("", "airlock-key"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	priv, pub, err := GenerateEd25519(d)
	if err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

func appendWith(t testing.TB, home string, getenv func(string) string, anchorDir string, from, n int) {
	t.Helper()
	l, err := OpenWith(home, Options{Getenv: getenv, AnchorDir: anchorDir})
	if err != nil {
		t.Fatalf("OpenWith: %v", err)
	}
	defer l.Close()
	rs := make([]Record, 0, n)
	for i := from; i < from+n; i++ {
		rs = append(rs, testRecord(i))
	}
	if _, err := l.AppendAll(rs); err != nil {
		t.Fatalf("AppendAll: %v", err)
	}
}

func verifyWith(t testing.TB, home string, getenv func(string) string, anchorDir string) *Report {
	t.Helper()
	rep, err := VerifyWith(home, VerifyOptions{Getenv: getenv, AnchorDir: anchorDir})
	if err != nil {
		t.Fatalf("VerifyWith: %v", err)
	}
	return rep
}

// hasProblem reports whether rep has a finding of kind at line of file.
func hasProblem(rep *Report, file string, line int, kind string) bool {
	return slices.ContainsFunc(rep.Problems, func(p Problem) bool {
		return p.File == file && p.Line == line && p.Kind == kind
	})
}

func mutateLine(t testing.TB, line []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	m, err := decodeObject(line)
	if err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := appendCanonical(nil, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stripSig(m map[string]any) { delete(m, "alg"); delete(m, "sig") }

// rechain rewrites every line's prev and h from genesis, as an attacker
// without the key can, and writes an unsigned checkpoint for the result.
func rechain(t testing.TB, home string, lines [][]byte, edit func(i int, m map[string]any)) {
	t.Helper()
	prev := Genesis
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = mutateLine(t, l, func(m map[string]any) {
			if edit != nil {
				edit(i, m)
			}
			m["prev"] = prev
			h, err := hashObject(m)
			if err != nil {
				t.Fatal(err)
			}
			m["h"] = h
			prev = h
		})
	}
	writeLines(t, home, out)
	head, _ := json.Marshal(Head{Count: len(out), Last: prev, At: "2026-11-29T10:43:49.123Z"})
	writeFile(t, filepath.Join(home, headFile), head)
}

func TestSignedLogVerifiesIntactAndEveryLineIsSigned(t *testing.T) {
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			appendWith(t, home, s.append, "", 0, 5)
			appendWith(t, home, s.append, "", 5, 5)
			rep := verifyWith(t, home, s.verify, "")
			requireIntact(t, rep, 12) // audit_start, sign_start, 10 records
			if rep.Signing == "" || !strings.HasPrefix(rep.Strength, "signed ("+s.mode) {
				t.Errorf("signing %q, strength %q", rep.Signing, rep.Strength)
			}
			lines := readLines(t, home)
			if !bytes.Contains(lines[1], []byte(`"event":"sign_start"`)) || !bytes.Contains(lines[1], []byte(`"detail":"sign=`+s.mode)) {
				t.Errorf("line 2 is not the sign_start: %s", lines[1])
			}
			for i, l := range lines {
				if alg, sig, _ := lineSig(l); alg == "" || sig == "" {
					t.Errorf("line %d unsigned: %s", i+1, l)
				}
			}
			head, _ := readHead(home)
			if head.Sig == "" {
				t.Errorf("checkpoint unsigned: %+v", head)
			}
			// Unsigned verify (no AIRLOCK_SIGN) still verifies the chain.
			rep = verifyWith(t, home, signEnv(), "")
			requireIntact(t, rep, 12)
			if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "not checked") {
				t.Errorf("want a note that signatures were not checked, got %q", rep.Notes)
			}
		})
	}
}

func TestSignedLogDetectsForgery(t *testing.T) {
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			appendWith(t, home, s.append, "", 0, 10)
			good := readLines(t, home)
			goodHead, _ := os.ReadFile(filepath.Join(home, headFile))
			restore := func() {
				writeLines(t, home, good)
				writeFile(t, filepath.Join(home, headFile), goodHead)
			}

			t.Run("strip one signature", func(t *testing.T) {
				restore()
				lines := slices.Clone(good)
				lines[4] = mutateLine(t, lines[4], stripSig)
				writeLines(t, home, lines)
				requireProblems(t, verifyWith(t, home, s.verify, ""), Broken,
					problem{5, kindUnsigned, []string{"line 5", "unsigned"}})
			})
			t.Run("edit and recompute h without the key", func(t *testing.T) {
				restore()
				lines := slices.Clone(good)
				lines[4] = rehash(t, bytes.Replace(lines[4], []byte("reason number 2"), []byte("reason number X"), 1))
				writeLines(t, home, lines)
				rep := verifyWith(t, home, s.verify, "")
				if rep.Status != Broken || !hasProblem(rep, LogFile, 5, kindBadSignature) {
					t.Fatalf("want bad-signature at line 5, got %s", describe(rep))
				}
			})
			t.Run("records from another home", func(t *testing.T) {
				other := signSetups(t, s.mode)[0]
				ohome := filepath.Join(t.TempDir(), "other")
				appendWith(t, ohome, other.append, "", 0, 10)
				for _, f := range []string{LogFile, headFile} {
					b, _ := os.ReadFile(filepath.Join(ohome, f))
					writeFile(t, filepath.Join(home, f), b)
				}
				rep := verifyWith(t, home, s.verify, "")
				if rep.Status != Broken || !hasProblem(rep, LogFile, 3, kindBadSignature) || !hasProblem(rep, headFile, 0, kindBadSignature) {
					t.Fatalf("want bad signatures, got %s", describe(rep))
				}
			})
			t.Run("strip every signature", func(t *testing.T) {
				restore()
				lines := slices.Clone(good)
				for i := range lines {
					lines[i] = mutateLine(t, lines[i], stripSig)
				}
				writeLines(t, home, lines)
				rep := verifyWith(t, home, s.verify, "")
				if rep.Status != Broken || !hasProblem(rep, LogFile, 2, kindUnsigned) {
					t.Fatalf("want the unsigned sign_start found, got %s", describe(rep))
				}
			})
			t.Run("strip every signature, drop sign_start, recompute", func(t *testing.T) {
				restore()
				lines := slices.Delete(slices.Clone(good), 1, 2)
				for i := range lines {
					lines[i] = mutateLine(t, lines[i], stripSig)
				}
				rechain(t, home, lines, nil)
				rep := verifyWith(t, home, s.verify, "")
				if rep.Status == Intact || !hasProblem(rep, headFile, 0, kindUnsigned) {
					t.Fatalf("a downgraded log must not verify intact, got %s", describe(rep))
				}
			})
			t.Run("recompute with a signed checkpoint kept", func(t *testing.T) {
				restore()
				rechain(t, home, good, func(i int, m map[string]any) {
					if i == 5 {
						m["reason"] = "forged"
					}
				})
				writeFile(t, filepath.Join(home, headFile), goodHead)
				rep := verifyWith(t, home, s.verify, "")
				if rep.Status != Broken {
					t.Fatalf("want broken, got %s", describe(rep))
				}
			})
		})
	}
}

func TestSignedVerifyKeyAbsentReportedOnce(t *testing.T) {
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			appendWith(t, home, s.append, "", 0, 10)
			env := signEnv(SignEnv, s.mode)
			if s.mode == signModeHMAC {
				if err := os.Remove(filepath.Join(home, signKeyFile)); err != nil {
					t.Fatal(err)
				}
			}
			requireProblems(t, verifyWith(t, home, env, ""), Broken,
				problem{0, kindKeyAbsent, []string{"key absent"}})
		})
	}
}

// Signing just configured, no append since, no key made yet: nothing was
// ever signed, so the missing key is not a break, but the log is not
// intact either.
func TestSigningConfiguredNothingSignedNoKey(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	appendWith(t, home, signEnv(), "", 0, 5)
	rep := verifyWith(t, home, signEnv(SignEnv, signModeHMAC), "")
	if rep.Status != TailUnprovable || !hasProblem(rep, LogFile, 0, kindKeyAbsent) {
		t.Fatalf("want tail-unprovable with key-absent, got %s", describe(rep))
	}
}

func TestSigningEnabledOnExistingLogStartsWithSignStart(t *testing.T) {
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			appendWith(t, home, signEnv(), "", 0, 5) // lines 1-6, unsigned
			// Signing on, nothing appended yet: not intact, not broken.
			signMustLoad(t, home, s.append) // an appender's first use makes audit.key
			rep := verifyWith(t, home, s.verify, "")
			if rep.Status != TailUnprovable || !hasProblem(rep, headFile, 0, kindUnsigned) {
				t.Fatalf("want tail-unprovable before the first signed append, got %s", describe(rep))
			}
			appendWith(t, home, s.append, "", 5, 3)
			lines := readLines(t, home)
			if !bytes.Contains(lines[6], []byte(`"event":"sign_start"`)) {
				t.Fatalf("line 7 is not sign_start: %s", lines[6])
			}
			rep = verifyWith(t, home, s.verify, "")
			requireIntact(t, rep, 10)
			if rep.Unsigned != 6 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "6 records before signing was enabled") {
				t.Fatalf("unsigned %d, notes %q", rep.Unsigned, rep.Notes)
			}
			// Signing once started cannot be dropped: a record after it unsigned.
			lines[8] = mutateLine(t, lines[8], stripSig)
			writeLines(t, home, lines)
			requireProblems(t, verifyWith(t, home, s.verify, ""), Broken, problem{9, kindUnsigned, nil})
		})
	}
}

// TestTamperingDetectedInEverySignMode runs the core tamper cases with
// signing off, hmac and ed25519: signing adds findings, never hides one.
func TestTamperingDetectedInEverySignMode(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, lines [][]byte, r int) [][]byte // r: line index of record 0
		want   func(r int) []problem
	}{
		{"edit", func(t *testing.T, lines [][]byte, r int) [][]byte {
			lines[r+4] = bytes.Replace(lines[r+4], []byte("reason number 4"), []byte("reason number X"), 1)
			return lines
		}, func(r int) []problem { return []problem{{r + 5, kindEdited, []string{"was edited"}}} }},
		{"delete", func(t *testing.T, lines [][]byte, r int) [][]byte {
			return slices.Delete(lines, r+4, r+5)
		}, func(r int) []problem { return []problem{{r + 5, kindDeleted, []string{"deleted"}}} }},
		{"insert", func(t *testing.T, lines [][]byte, r int) [][]byte {
			return slices.Insert(lines, r+4, lines[r+4])
		}, func(r int) []problem { return []problem{{r + 6, kindInserted, []string{"inserted"}}} }},
		{"reorder", func(t *testing.T, lines [][]byte, r int) [][]byte {
			lines[r+3], lines[r+4] = lines[r+4], lines[r+3]
			return lines
		}, func(r int) []problem { return []problem{{r + 4, kindReordered, nil}} }},
	}
	for _, s := range signSetups(t, "", signModeHMAC, signModeEd25519) {
		home := filepath.Join(t.TempDir(), s.mode)
		appendWith(t, home, s.append, "", 0, tamperRecords)
		good := readLines(t, home)
		r := 1 // audit_start
		if s.mode != "off" {
			r = 2 // and sign_start
		}
		for _, c := range cases {
			t.Run(s.mode+"/"+c.name, func(t *testing.T) {
				writeLines(t, home, c.tamper(t, slices.Clone(good), r))
				requireProblems(t, verifyWith(t, home, s.verify, ""), Broken, c.want(r)...)
			})
		}
		writeLines(t, home, good)
		requireIntact(t, verifyWith(t, home, s.verify, ""), tamperRecords+r)
	}
}

func TestSignedRotationSignsLedgerAndAnchors(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002")
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			anchors := t.TempDir()
			for i := range 30 {
				appendWith(t, home, s.append, anchors, i, 1)
			}
			rep := verifyWith(t, home, s.verify, anchors)
			if rep.Status != Intact || rep.Segments == 0 || rep.Anchors == 0 {
				t.Fatalf("want intact across segments with anchors, got segments=%d anchors=%d %s", rep.Segments, rep.Anchors, describe(rep))
			}
			b, _ := os.ReadFile(filepath.Join(home, LedgerFile))
			led := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			if alg, _, _ := lineSig(led[0]); alg == "" {
				t.Fatalf("ledger line unsigned: %s", led[0])
			}
			led[0] = mutateLine(t, led[0], stripSig)
			writeFile(t, filepath.Join(home, LedgerFile), append(bytes.Join(led, []byte("\n")), '\n'))
			rep = verifyWith(t, home, s.verify, anchors)
			if rep.Status != Broken || !hasProblem(rep, LedgerFile, 1, kindUnsigned) {
				t.Fatalf("want the stripped ledger signature found, got %s", describe(rep))
			}
		})
	}
}

func TestAnchorDetectsRecomputedChainAndTruncation(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	anchors := t.TempDir()
	appendWith(t, home, signEnv(), anchors, 0, 1200) // crosses 1000: one anchor
	rep := verifyWith(t, home, signEnv(), anchors)
	if rep.Status != Intact || rep.Anchors != 1 || !strings.Contains(rep.Strength, "anchored in") {
		t.Fatalf("want intact with 1 anchor, got anchors=%d %s", rep.Anchors, describe(rep))
	}
	good := readLines(t, home)

	// Rewrite record 10 and recompute every h and the checkpoint.
	rechain(t, home, good, func(i int, m map[string]any) {
		if i == 10 {
			m["reason"] = "nothing to see"
		}
	})
	if rep := verifyWith(t, home, signEnv(), ""); rep.Status != Intact {
		t.Fatalf("a consistent rewrite is invisible without anchors, got %s", describe(rep))
	} else if !strings.Contains(rep.Strength, "directory's permissions") {
		t.Errorf("strength %q", rep.Strength)
	}
	requireProblems(t, verifyWith(t, home, signEnv(), anchors), Broken,
		problem{1, kindAnchorMismatch, []string{"rewritten"}})

	// Truncate below the anchored count, with a consistent checkpoint.
	rechain(t, home, good[:500], nil)
	requireIntact(t, verifyWith(t, home, signEnv(), ""), 500)
	requireProblems(t, verifyWith(t, home, signEnv(), anchors), Broken,
		problem{1, kindAnchorBeyond, []string{"fewer"}})
}

func TestAnchorNowAnchorsTheHead(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	anchors := t.TempDir()
	appendWith(t, home, signEnv(), "", 0, 10)
	if _, err := os.Stat(filepath.Join(home, installIDFile)); err == nil {
		t.Fatal("install.id created without anchoring")
	}
	rep := verifyWith(t, home, signEnv(), anchors)
	if _, err := os.Stat(filepath.Join(home, installIDFile)); err == nil {
		t.Fatal("Verify created install.id")
	}
	if rep.Status != Intact || rep.Anchors != 0 || len(rep.Notes) == 0 {
		t.Fatalf("want intact, no anchors, a note: %s %q", describe(rep), rep.Notes)
	}
	count, last, err := AnchorNow(home, anchors)
	if err != nil || count != 11 || last != rep.Last {
		t.Fatalf("AnchorNow = %d, %s, %v; want 11, %s", count, last, err, rep.Last)
	}
	requireIntact(t, verifyWith(t, home, signEnv(), anchors), 11)
}
