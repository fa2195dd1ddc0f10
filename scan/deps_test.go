package scan

import (
	"testing"

	"github.com/agentairlock/airlock/internal/depcheck"
)

// The text engine is what the proxy (and later the gate) links: it must
// not bring in the agent-config editor, its TOML parser, or the file
// scanner built on top of it.
var engineBanned = []string{
	"github.com/agentairlock/airlock/setup",
	"github.com/agentairlock/airlock/scan/files",
	"github.com/BurntSushi/toml",
}

func TestEngineLinksNoConfigEditor(t *testing.T) {
	deps, err := depcheck.Deps(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	if bad := depcheck.Banned(deps, engineBanned); len(bad) > 0 {
		t.Fatalf("scan links %q (go list -deps ./scan shows which import brings each in)", bad)
	}
}
