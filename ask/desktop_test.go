package ask

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The dialogs get the question as data, never as markup or script.
func TestDesktopArgv(t *testing.T) {
	text := plainText(Request{Source: "mcp", Tool: `x" & do shell script "id`, Target: "<b>/etc</b> & more", Rule: "r"})
	z := zenityArgs("Airlock asks", text, 30*time.Second)
	if !slices.Contains(z, "--no-markup") || !slices.Contains(z, "--default-cancel") || z[slices.Index(z, "--text")+1] != text {
		t.Fatalf("zenity argv %q", z)
	}
	k := kdialogArgs("Airlock asks", text)
	if strings.ContainsAny(k[len(k)-1], "<>&") {
		t.Fatalf("kdialog text can be read as rich text: %q", k[len(k)-1])
	}
	o := osascriptArgs("Airlock asks", text, 30*time.Second)
	if strings.Contains(o[1], "do shell script") || o[len(o)-1] != text || !strings.Contains(o[1], `default button "Deny"`) {
		t.Fatalf("osascript argv %q", o)
	}
	// no display, no dialog
	if desktopDialog("linux", func(string) string { return "" }) != nil {
		t.Fatal("a dialog was offered without a display")
	}
	if desktopDialog("windows", func(string) string { return ":0" }) != nil {
		t.Fatal("a dialog was offered on windows")
	}
}
