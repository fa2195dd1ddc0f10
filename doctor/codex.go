package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// codexTimeout bounds asking Codex for its hooks: app-server answers in
// about a second on an idle machine.
const codexTimeout = 20 * time.Second

// codexHook is one hook as Codex lists it (app-server's hooks/list).
type codexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"` // "trusted", "untrusted", "modified", "managed"
}

// codexHooks asks the Codex at codex which hooks it would run for a
// session in cwd: it starts `codex app-server`, sends initialize and
// hooks/list over its stdio JSON-RPC (one message a line) and reads the
// listing. Codex needs no network and no login for this.
func codexHooks(codex, cwd string, env []string) ([]codexHook, error) {
	ctx, cancel := context.WithTimeout(context.Background(), codexTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir, cmd.Env = cwd, env
	cmd.WaitDelay = 2 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s app-server: %w", codex, err)
	}
	defer func() {
		in.Close()
		cancel()
		_ = cmd.Wait()
	}()
	for _, m := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"airlock-doctor","version":"0"}}}`,
		`{"method":"initialized"}`,
		fmt.Sprintf(`{"id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, cwd),
	} {
		if _, err := in.Write([]byte(m + "\n")); err != nil {
			return nil, fmt.Errorf("codex app-server: %w", err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int `json:"id"`
			Result *struct {
				Data []struct {
					Hooks []codexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server hooks/list: %s", msg.Error.Message)
		}
		if msg.Result == nil {
			return nil, errors.New("codex app-server hooks/list: no result")
		}
		var hooks []codexHook
		for _, d := range msg.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("codex app-server did not list its hooks within %v", codexTimeout)
	}
	return nil, errors.New("codex app-server ended without listing its hooks")
}
