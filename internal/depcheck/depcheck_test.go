package depcheck

import (
	"slices"
	"testing"
)

func TestBanned(t *testing.T) {
	deps := []string{
		"fmt",
		"github.com/agentairlock/airlock/scan",
		"github.com/agentairlock/airlock/scan/secret",
		"github.com/agentairlock/airlock/setup",
		"github.com/agentairlock/airlock/setupx",
		"charm.land/bubbletea/v2/internal",
	}
	cases := []struct {
		name   string
		banned []string
		want   []string
	}{
		{"a package and those under it", []string{"github.com/agentairlock/airlock/scan"},
			[]string{"github.com/agentairlock/airlock/scan", "github.com/agentairlock/airlock/scan/secret"}},
		{"the package alone", []string{"github.com/agentairlock/airlock/scan="},
			[]string{"github.com/agentairlock/airlock/scan"}},
		{"not a name that only starts the same", []string{"github.com/agentairlock/airlock/setup"},
			[]string{"github.com/agentairlock/airlock/setup"}},
		{"a module's inner package", []string{"charm.land/bubbletea/v2"},
			[]string{"charm.land/bubbletea/v2/internal"}},
		{"nothing banned", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Banned(deps, tc.banned); !slices.Equal(got, tc.want) {
				t.Fatalf("Banned = %q, want %q", got, tc.want)
			}
		})
	}
}
