package policy

import (
	"testing"

	"github.com/agentairlock/airlock/policy/shell"
)

// TestShellFactValues checks that the shell package's signal names are
// the ones policy's facts use: classifier.shell converts them by value
// (Access is one type, shell.Access, for both).
func TestShellFactValues(t *testing.T) {
	signals := []struct {
		got  shell.Signal
		want Signal
	}{
		{shell.SignalDownloadExec, signalDownloadExec},
		{shell.SignalReverseShell, signalReverseShell},
		{shell.SignalForkBomb, signalForkBomb},
		{shell.SignalUnparsed, signalUnparsed},
	}
	for _, s := range signals {
		if Signal(s.got) != s.want {
			t.Errorf("shell signal %q, policy's %q", s.got, s.want)
		}
	}
}
