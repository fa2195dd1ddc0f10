package ask

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// desktopDialog returns a dialog runner for this system, or nil when there
// is none: zenity or kdialog with a display on Linux and the BSDs,
// osascript on macOS.
func desktopDialog(goos string, getenv func(string) string) func(context.Context, string, string, time.Duration) (Answer, bool, error) {
	switch goos {
	case "darwin":
		if p, err := exec.LookPath("osascript"); err == nil {
			return func(ctx context.Context, title, text string, left time.Duration) (Answer, bool, error) {
				return runDialog(ctx, p, osascriptArgs(title, text, left), dialogExit{yes: 0, no: 1, timeout: -1, stdoutYes: "button returned:Allow"})
			}
		}
		return nil
	case "windows", "plan9", "js", "wasip1":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	if p, err := exec.LookPath("zenity"); err == nil {
		return func(ctx context.Context, title, text string, left time.Duration) (Answer, bool, error) {
			return runDialog(ctx, p, zenityArgs(title, text, left), dialogExit{yes: 0, no: 1, timeout: 5})
		}
	}
	if p, err := exec.LookPath("kdialog"); err == nil {
		return func(ctx context.Context, title, text string, left time.Duration) (Answer, bool, error) {
			return runDialog(ctx, p, kdialogArgs(title, text), dialogExit{yes: 0, no: 1, timeout: -1})
		}
	}
	return nil
}

// zenityArgs never lets the text be read as Pango markup.
func zenityArgs(title, text string, left time.Duration) []string {
	secs := max(int(left/time.Second), 1)
	return []string{"--question", "--no-markup", "--title", title, "--text", text,
		"--ok-label", "Allow", "--cancel-label", "Deny", "--default-cancel", "--timeout", strconv.Itoa(secs)}
}

// kdialogArgs: kdialog reads text that looks like HTML as rich text, so
// the angle brackets are replaced by look-alikes that cannot open a tag.
func kdialogArgs(title, text string) []string {
	text = strings.NewReplacer("<", "‹", ">", "›", "&", "＆").Replace(text)
	return []string{"--title", title, "--yes-label", "Allow", "--no-label", "Deny", "--warningyesno", text}
}

// osascriptArgs passes the strings as arguments of the script (argv), never
// inside its source, so no quote in them can end a string literal.
func osascriptArgs(title, text string, left time.Duration) []string {
	secs := max(int(left/time.Second), 1)
	script := `on run argv
display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Deny", "Allow"} default button "Deny" cancel button "Deny" giving up after ` + strconv.Itoa(secs) + `
end run`
	return []string{"-e", script, title, text}
}

type dialogExit struct {
	yes, no, timeout int
	stdoutYes        string // when set, approval also needs this in stdout
}

func runDialog(ctx context.Context, path string, args []string, ex dialogExit) (Answer, bool, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return Fallback, true, nil
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return Fallback, false, err
		}
		code = ee.ExitCode()
	}
	switch {
	case code == ex.yes && (ex.stdoutYes == "" || strings.Contains(string(out), ex.stdoutYes)):
		return Allow, true, nil
	case code == ex.yes:
		// osascript: "gave up:true" or no Allow button
		return Fallback, true, nil
	case code == ex.timeout:
		return Fallback, true, nil
	case code == ex.no:
		return Deny, true, nil
	}
	return Fallback, false, err
}
