package policy

import (
	"testing"

	"github.com/agentairlock/airlock/policy/shell"
)

// TestShellFactValues checks that the shell package's access bits and
// signal names are the ones policy's facts use: classifier.shell converts
// them by value.
func TestShellFactValues(t *testing.T) {
	access := []struct {
		got  shell.Access
		want Access
	}{
		{shell.AccessRead, AccessRead},
		{shell.AccessWrite, AccessWrite},
		{shell.AccessExec, AccessExec},
		{shell.AccessAny, AccessAny},
	}
	for _, a := range access {
		if Access(a.got) != a.want {
			t.Errorf("shell access %s is %d, policy's is %d", a.got, a.got, a.want)
		}
	}
	signals := []struct {
		got  shell.Signal
		want Signal
	}{
		{shell.SignalDownloadExec, SignalDownloadExec},
		{shell.SignalReverseShell, SignalReverseShell},
		{shell.SignalForkBomb, SignalForkBomb},
		{shell.SignalUnparsed, SignalUnparsed},
	}
	for _, s := range signals {
		if Signal(s.got) != s.want {
			t.Errorf("shell signal %q, policy's %q", s.got, s.want)
		}
	}
}
