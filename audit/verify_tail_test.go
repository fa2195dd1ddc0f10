package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestVerifyTail pins what Verify says about lines after the checkpoint
// (issue 14): a well-formed tail chained from the checkpointed record is
// what a writer stopped between its two writes leaves, so it is intact
// with a warning naming the lines; anything else after the checkpoint is
// "appended", broken. Each case then appends once: the appender confirms
// a clean tail, and keeps every other finding.
func TestVerifyTail(t *testing.T) {
	stale := func(t *testing.T, home string, n int) {
		lines := readLines(t, home)
		writeHeadJSON(t, home, Head{Count: n, Last: hashOfLine(t, lines[n-1]), At: "x"})
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, home string)
		status Status
		want   []problem
		warn   []string
		after  Status // after one more append
	}{
		{
			name:   "well-formed tail after a stale checkpoint",
			tamper: func(t *testing.T, home string) { stale(t, home, 9) },
			status: Intact,
			warn:   []string{kindUnconfirmedTail},
			after:  Intact,
		},
		{
			name:   "garbage appended after the checkpoint",
			tamper: func(t *testing.T, home string) { appendRaw(t, home, []byte("not a record\n")) },
			status: Broken,
			want: []problem{
				{12, kindMalformed, nil},
				{12, kindAppended, []string{"lines appended after the checkpoint: line 12 of audit.jsonl"}},
			},
			after: Broken,
		},
		{
			name: "a copy of a record appended after the checkpoint",
			tamper: func(t *testing.T, home string) {
				appendRaw(t, home, append(bytes.Clone(readLines(t, home)[4]), '\n'))
			},
			status: Broken,
			want:   []problem{{12, kindInserted, nil}, {12, kindAppended, nil}},
			after:  Broken,
		},
		{
			name: "an edited record in the unconfirmed tail",
			tamper: func(t *testing.T, home string) {
				lines := readLines(t, home)
				lines[9] = bytes.Replace(lines[9], []byte(`"reason":"`), []byte(`"reason":"X`), 1)
				writeLines(t, home, lines)
				stale(t, home, 9)
			},
			status: Broken,
			want:   []problem{{10, kindEdited, nil}, {10, kindAppended, []string{"lines 10-11"}}},
			after:  Broken,
		},
		{
			name: "a torn line after an unconfirmed tail",
			tamper: func(t *testing.T, home string) {
				stale(t, home, 9)
				appendRaw(t, home, []byte(`{"event":"deci`))
			},
			status: Broken,
			want:   []problem{{12, KindTorn, nil}},
			warn:   []string{kindUnconfirmedTail},
			after:  Broken,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := newLog(t, tamperRecords)
			tc.tamper(t, home)
			rep := mustVerify(t, home)
			t.Log(describe(rep))
			requireProblems(t, rep, tc.status, tc.want...)
			requireWarnings(t, rep, tc.warn...)
			appendRecords(t, home, 100, 1)
			rep = mustVerify(t, home)
			if rep.Status != tc.after {
				t.Fatalf("after one more append: %s", describe(rep))
			}
			requireWarnings(t, rep)
		})
	}
}

// TestUnconfirmedTailAfterKilledWriter is the state the CI failure of
// issue 14 left: the record is in the log, the checkpoint still names the
// one before (a writer killed between the two writes).
func TestUnconfirmedTailAfterKilledWriter(t *testing.T) {
	home := newLog(t, 3)
	head, err := os.ReadFile(filepath.Join(home, headFile))
	if err != nil {
		t.Fatal(err)
	}
	appendRecords(t, home, 10, 2)
	writeFile(t, filepath.Join(home, headFile), head) // the checkpoint write never happened
	rep := mustVerify(t, home)
	requireProblems(t, rep, Intact)
	requireWarnings(t, rep, kindUnconfirmedTail)
	if w := rep.Warnings[0]; w.File != LogFile || w.Line != 5 || w.LastLine != 6 {
		t.Fatalf("warning %+v, want lines 5-6 of %s", w, LogFile)
	}
}
