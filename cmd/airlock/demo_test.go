package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/demo"
)

// A step that comes out wrong is named, with what was wanted and what
// happened, and the verdict says regression, in plain text.
func TestDemoPrinterNamesAFailedStep(t *testing.T) {
	var b bytes.Buffer
	p := demoPrinter{w: &b}
	ok := demo.Step{ID: demo.StepKeyRead, Title: "Read ~/.ssh/id_rsa", Want: demo.Blocked, Got: demo.Blocked, Rule: "secrets.ssh", Reason: "SSH keys"}
	bad := demo.Step{ID: demo.StepExfil, Title: "Bash curl", Want: demo.Blocked, Got: demo.Allowed, Detail: "the hook exited 0"}
	p.step(ok)
	p.step(bad)
	p.outro(&demo.Result{Steps: []demo.Step{ok, bad}}, false)
	out := b.String()
	for _, want := range []string{
		"  ✗ blocked  Read ~/.ssh/id_rsa — secrets.ssh: SSH keys\n",
		"!! FAILED  Bash curl — wanted blocked, got allowed: the hook exited 0\n",
		"REGRESSION: 1 of 2 steps",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("plain output has escape codes:\n%q", out)
	}
}

func TestDemoColourOnlyOnATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if colorOK(w) {
		t.Error("colour on a pipe")
	}
	if colorOK(&bytes.Buffer{}) {
		t.Error("colour on a buffer")
	}
	var b bytes.Buffer
	demoPrinter{w: &b, color: true}.step(demo.Step{ID: demo.StepVerify, Title: "airlock verify", Want: demo.Intact, Got: demo.Intact})
	if !strings.Contains(b.String(), "\x1b[") {
		t.Errorf("no colour when asked for: %q", b.String())
	}
}
