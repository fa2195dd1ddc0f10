package forward

import (
	"fmt"
	"html"
	"strings"
)

// Unit kinds for Unit.
const (
	UnitSystemd = "systemd"
	UnitLaunchd = "launchd"
)

// UnitLabel is the launchd label and the systemd unit's base name.
const UnitLabel = "dev.airlock.forward"

// Unit returns the service definition that keeps `airlock forward` running
// for the user: a systemd user unit (install it as
// ~/.config/systemd/user/airlock-forward.service) or a launchd agent
// (~/Library/LaunchAgents/dev.airlock.forward.plist). bin is the absolute
// path of airlock, args the arguments after "forward", home the
// AIRLOCK_HOME to pass ("" for the default).
func Unit(kind, bin string, args []string, home string) (string, error) {
	argv := append([]string{bin, "forward"}, args...)
	switch kind {
	case UnitSystemd:
		var b strings.Builder
		b.WriteString("[Unit]\n")
		b.WriteString("Description=Airlock: forward the audit log to the SIEM\n")
		b.WriteString("Documentation=https://github.com/agentairlock/airlock/blob/main/docs/forwarding.md\n")
		// no After=network-online.target: a user manager cannot see the
		// system's targets; a receiver not reachable yet is retried
		b.WriteString("\n")
		b.WriteString("[Service]\n")
		b.WriteString("Type=simple\n")
		if home != "" {
			b.WriteString("Environment=" + systemdQuote("AIRLOCK_HOME="+home) + "\n")
		}
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = systemdQuote(a)
		}
		b.WriteString("ExecStart=" + strings.Join(quoted, " ") + "\n")
		b.WriteString("Restart=always\n")
		b.WriteString("RestartSec=5\n\n")
		b.WriteString("[Install]\n")
		b.WriteString("WantedBy=default.target\n")
		return b.String(), nil
	case UnitLaunchd:
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
		b.WriteString(`<plist version="1.0">` + "\n<dict>\n")
		b.WriteString("\t<key>Label</key>\n\t<string>" + UnitLabel + "</string>\n")
		b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
		for _, a := range argv {
			b.WriteString("\t\t<string>" + html.EscapeString(a) + "</string>\n")
		}
		b.WriteString("\t</array>\n")
		if home != "" {
			b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
			b.WriteString("\t\t<key>AIRLOCK_HOME</key>\n\t\t<string>" + html.EscapeString(home) + "</string>\n")
			b.WriteString("\t</dict>\n")
		}
		b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
		b.WriteString("\t<key>KeepAlive</key>\n\t<true/>\n")
		b.WriteString("\t<key>ThrottleInterval</key>\n\t<integer>5</integer>\n")
		b.WriteString("\t<key>ProcessType</key>\n\t<string>Background</string>\n")
		b.WriteString("</dict>\n</plist>\n")
		return b.String(), nil
	}
	return "", fmt.Errorf("unit %q: choose %s or %s", kind, UnitSystemd, UnitLaunchd)
}

// systemdQuote quotes one word for ExecStart= and Environment=: double
// quotes when it holds a space, quote or backslash, with \ and " escaped;
// % and $ doubled so systemd expands neither a specifier nor a variable.
func systemdQuote(s string) string {
	s = strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	if s != "" && !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
