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
	depcheck.Refuse(t, engineBanned)
}
