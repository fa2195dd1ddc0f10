package main

import (
	"testing"

	"github.com/agentairlock/airlock/internal/depcheck"
)

// The hook is a process per tool call: it links only what a call needs.
// scan's text engine is linked for the post-tool event (a result that
// carries injection taints the session; it initialises nothing until
// used, so a PreToolUse pays no start-up for it). The agent-config editor
// and the file scanner on top of scan (scan/files, which pulls in setup
// and a TOML parser), the
// JSON-schema validator and the command line's UI libraries are the other
// binaries' business.
// crypto/x509 (and the RSA, ECDSA and P-curve code it links, each with a
// package initialisation every process pays) stays out: audit reads and
// writes its ed25519 keys' PKCS#8 and PKIX forms itself. Nor does net:
// the ask channel, which the hook opens for agents that cannot ask, speaks
// to askd's socket through golang.org/x/sys/unix (ask/socket_unix.go), so
// its package initialisation is not paid by every call.
var hookBanned = []string{
	"net=",
	"crypto/x509",
	"crypto/rsa",
	"crypto/ecdsa",
	"github.com/agentairlock/airlock/setup",
	"github.com/agentairlock/airlock/scan/files",
	"github.com/agentairlock/airlock/pins/schema",
	"github.com/BurntSushi/toml",
	"charm.land/bubbletea/v2",
	"github.com/urfave/cli/v2",
	// the shell analyzer expands braces itself (policy/shell/braces.go,
	// held to this package by FuzzBraces): its package initialisation
	// compiles two regular expressions every call would pay for
	"mvdan.cc/sh/v3/expand",
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
