package notify

import (
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// reapAfter bounds how long a notification program may live: a hung
// notification daemon must not leave children piling up in a long-lived
// airlock-mcp.
const reapAfter = 5 * time.Second

// defaultSender picks notify-send or osascript for n.goos, or nil when
// there is none: on other systems, or when the program is not on PATH.
func (n *Notifier) defaultSender() func(title, body string) error {
	var name string
	var argv func(title, body string) []string
	switch n.goos {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		name, argv = "notify-send", notifySendArgs
	case "darwin":
		name, argv = "osascript", osascriptArgs
	default:
		return nil
	}
	path, err := n.lookPath(name)
	if err != nil || path == "" {
		return nil
	}
	return func(title, body string) error {
		return n.start(path, argv(title, body))
	}
}

// notifySendArgs ends options with "--" so a body that starts with "-"
// stays text, and escapes the body for the notification server's markup,
// which would otherwise let agent text restyle, hide or link what is shown.
// The summary (title) is plain text by the specification.
func notifySendArgs(title, body string) []string {
	return []string{"--", title, markupEscaper.Replace(body)}
}

var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// osascriptScript reads the title and body from the run handler's argv,
// so agent text is data to AppleScript and never source: there is nothing
// to quote, and nothing a `" & do shell script "…` can break out of.
var osascriptScript = []string{
	"-e", "on run argv",
	"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
	"-e", "end run",
}

// osascriptArgs passes title and body as arguments after the script. The
// title always starts with "Airlock", so osascript's option parsing has
// stopped before it and neither argument can be read as a flag.
func osascriptArgs(title, body string) []string {
	args := append([]string(nil), osascriptScript...)
	return append(args, title, body)
}

// start runs path with args, argv only, and does not wait for it. stdin,
// stdout and stderr are the null device: the hook's stdout is the agent's
// answer pipe, and a child holding it open would stall the agent.
func (n *Notifier) start(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	n.running.Add(1)
	go func() {
		defer n.running.Done()
		kill := time.AfterFunc(reapAfter, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		kill.Stop()
	}()
	return nil
}
