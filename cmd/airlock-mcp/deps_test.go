package main

import (
	"testing"

	"github.com/agentairlock/airlock/internal/depcheck"
)

// The proxy links neither the command line's UI libraries nor the
// agent-config editor: it needs scan's text engine, not the file
// scanner (scan/files) that reads agent configs through setup.
var mcpBanned = []string{
	"github.com/agentairlock/airlock/setup",
	"github.com/agentairlock/airlock/scan/files",
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

func TestProxyLinksNoConfigEditorOrUI(t *testing.T) {
	depcheck.Refuse(t, mcpBanned)
}
