package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/regular"
)

// reviewsFile is the sign-off chain in $AIRLOCK_HOME.
const reviewsFile = "reviews.jsonl"

// Verdicts of a review.
const (
	VerdictClean     = "clean"
	VerdictAnomalous = "anomalous"
)

// ByAutomatic is Review.By when nobody confirmed (--yes). A review is only
// ever recorded as a person's when a person answered at a terminal.
const (
	ByAutomatic = "automatic"
	ByHuman     = "human"
)

// Review is one sign-off: someone (or something) read the report for a
// scope of the log and gave a verdict. It binds the report's digest and
// the position in the audit chain it covered, and is itself chained like
// the audit log: H is the SHA-256 of the record's JSON with H empty (the
// struct's fixed field order makes the encoding canonical), Prev the H of
// the review before it.
type Review struct {
	Time         string `json:"ts"`
	Since        string `json:"since,omitempty"` // start of the scope; empty: the start of the log
	Until        string `json:"until"`           // end of the scope (exclusive)
	Records      int    `json:"records"`         // entries in the scope
	LastH        string `json:"last_h"`          // h of the last record in scope: where in the chain the review stands
	ReportDigest string `json:"report_digest"`   // "sha256:" + SHA-256 of the plain-text report for the scope
	Verdict      string `json:"verdict"`
	Note         string `json:"note,omitempty"`
	By           string `json:"by"`             // ByHuman or ByAutomatic
	User         string `json:"user,omitempty"` // $USER when By is human
	Prev         string `json:"prev"`
	H            string `json:"h,omitempty"`
}

// hash is the review's H.
func (r Review) hash() (string, error) {
	r.H = ""
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ReportDigest is the digest a review binds: of the plain-text report.
func ReportDigest(text []byte) string {
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ReadReviews reads the sign-off chain and checks it: every H, and every
// Prev against the review before it. A missing file is an empty chain.
func ReadReviews(home string) ([]Review, error) {
	f, err := regular.OpenState(filepath.Join(home, reviewsFile), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", reviewsFile, err)
	}
	defer f.Close()
	var out []Review
	prev := audit.Genesis
	br := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		if err != nil {
			return out, fmt.Errorf("%s line %d: partial line", reviewsFile, n)
		}
		var r Review
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return out, fmt.Errorf("%s line %d: not a review: %v", reviewsFile, n, err)
		}
		h, err := r.hash()
		if err != nil || h != r.H {
			return out, fmt.Errorf("%s line %d: the review was altered (hash mismatch)", reviewsFile, n)
		}
		if r.Prev != prev {
			return out, fmt.Errorf("%s line %d: the chain is broken (a review before it was removed, inserted or reordered)", reviewsFile, n)
		}
		prev = r.H
		out = append(out, r)
	}
	return out, nil
}

// AppendReview chains r after the last review in home and writes it. The
// existing chain must verify: a sign-off is never appended to a chain that
// was altered.
func AppendReview(home string, r Review) (Review, error) {
	prior, err := ReadReviews(home)
	if err != nil {
		return Review{}, err
	}
	r.Prev = audit.Genesis
	if len(prior) > 0 {
		r.Prev = prior[len(prior)-1].H
	}
	if r.H, err = r.hash(); err != nil {
		return Review{}, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return Review{}, err
	}
	f, err := regular.OpenState(filepath.Join(home, reviewsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return Review{}, fmt.Errorf("open %s: %w", reviewsFile, err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return Review{}, fmt.Errorf("write %s: %w", reviewsFile, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return Review{}, fmt.Errorf("sync %s: %w", reviewsFile, err)
	}
	return r, f.Close()
}
