package main

import (
	"testing"

	"github.com/agentairlock/airlock/internal/depcheck"
)

// The hook is a process per tool call: it links only what a call needs.
// The agent-config editor, scan's text engine and the file scanner on top
// of it (scan/files, which pulls in setup and a TOML parser), the
// JSON-schema validator and the command line's UI libraries are the other
// binaries' business.
// crypto/x509 (and the RSA, ECDSA and P-curve code it links, each with a
// package initialisation every process pays) stays out: audit reads and
// writes its ed25519 keys' PKCS#8 and PKIX forms itself. Neither does the
// ask channel (its askd socket links net): the hook's asks are Claude
// Code's prompt, and gate names an ask with ask/question only.
var hookBanned = []string{
	"net=",
	"github.com/agentairlock/airlock/ask=",
	"crypto/x509",
	"crypto/rsa",
	"crypto/ecdsa",
	"github.com/agentairlock/airlock/setup",
	"github.com/agentairlock/airlock/scan=",
	"github.com/agentairlock/airlock/scan/files",
	"github.com/agentairlock/airlock/pins/schema",
	"github.com/BurntSushi/toml",
	"charm.land/bubbletea/v2",
	"github.com/urfave/cli/v2",
	// airlock forward's transports and the OpenTelemetry exporter are the
	// command line's alone (docs/forwarding.md, "What it costs")
	"github.com/agentairlock/airlock/forward",
	"go.opentelemetry.io/otel",
	"go.opentelemetry.io/proto",
	"google.golang.org/protobuf",
	"google.golang.org/grpc",
}

func TestHookLinksOnlyWhatACallNeeds(t *testing.T) {
	depcheck.Refuse(t, hookBanned)
}
