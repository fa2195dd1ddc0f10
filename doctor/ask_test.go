package doctor

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/ask"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

func TestCheckAsk(t *testing.T) {
	home, err := os.MkdirTemp("", "dr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	env := map[string]string{"AIRLOCK_ASK_BACKEND": "socket,fallback"}
	o := Options{Env: airlockhome.Env{Home: home, AirlockHome: home, Getenv: func(k string) string { return env[k] }},
		Workspace: home, Getenv: func(k string) string { return env[k] }}

	c := checkAsk(o)
	if c.Status != info || !strings.Contains(c.Detail, "reach nobody now") || !strings.Contains(strings.Join(c.Items, "\n"), "socket: not ready — airlock askd is not running") {
		t.Fatalf("no askd: %+v", c)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&ask.Daemon{Home: home, In: pr, Out: io.Discard}).Serve(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c = checkAsk(o)
		if strings.Contains(strings.Join(c.Items, "\n"), "socket: ready — airlock askd is answering") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("askd running: %+v", c)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(c.Detail, "reach a person") {
		t.Fatalf("askd running: %+v", c)
	}

	env["AIRLOCK_ASK_TIMEOUT"] = "forever"
	if c = checkAsk(o); c.Status != fail || !strings.Contains(c.Detail, "AIRLOCK_ASK_TIMEOUT") {
		t.Fatalf("bad timeout: %+v", c)
	}
}
