package ask

import (
	"context"
	"runtime"
	"strings"
	"time"
)

// probe says whether one backend could reach a person now.
type probe struct {
	Backend string
	Ready   bool
	Why     string // what was found
}

// Probe checks each backend without asking anything (airlock doctor).
// The tty backend is judged for the calling process, which is rarely
// where an MCP proxy runs, so it is reported with that caveat.
func (c *Channel) Probe() []probe {
	var out []probe
	for _, b := range c.backends {
		switch b {
		case backendSocket:
			out = append(out, c.probeSocket())
		case backendTTY:
			p := probe{Backend: b, Why: "used only by a proxy in a terminal's foreground in line mode (not under a full-screen agent)"}
			if f, why := openTerminal(ttyPath(c.o.TTY)); f != nil {
				f.Close()
				p.Ready = true
			} else {
				p.Why = why + "; " + p.Why
			}
			out = append(out, p)
		case backendDesktop:
			p := probe{Backend: b}
			if c.o.Desktop != nil || desktopDialog(runtime.GOOS, c.getenv) != nil {
				p.Ready, p.Why = true, "a dialog program and a display were found"
			} else {
				p.Why = "no dialog program (zenity, kdialog, osascript) or no display"
			}
			out = append(out, p)
		}
	}
	if c.fallback {
		out = append(out, probe{Backend: BackendFallback, Ready: true, Why: "the policy's ask_fallback decides what nobody answers"})
	}
	return out
}

func (c *Channel) probeSocket() probe {
	p := probe{Backend: backendSocket}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l, why := c.dial(ctx)
	if l == nil {
		p.Why = why
		if strings.HasPrefix(why, "airlock askd is not running") {
			p.Why = "airlock askd is not running (start it in a terminal: airlock askd)"
		}
		return p
	}
	l.conn.Close()
	p.Ready, p.Why = true, "airlock askd is answering on "+l.addr+" and proved it holds this home's key"
	return p
}

func ttyPath(p string) string {
	if p == "" {
		return "/dev/tty"
	}
	return p
}
