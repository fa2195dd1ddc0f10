// Package profiles holds Airlock's embedded data: the three bundled
// policies (yolo, default, paranoid), the built-in forbid list and the
// indicator floor used for escalation. It is data only: it parses nothing
// and decides nothing (that is policy's job).
package profiles

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Names lists the bundled profiles, loosest first.
var Names = []string{"yolo", "default", "paranoid"}

// Get returns a bundled profile's YAML.
func Get(name string) ([]byte, error) {
	for _, n := range Names {
		if n == name {
			return files.ReadFile(n + ".yaml")
		}
	}
	return nil, fmt.Errorf("no bundled profile %q: choose one of %s", name, strings.Join(Names, ", "))
}

// Forbids returns the built-in forbid list's YAML. It applies under every
// profile; yolo only observes it (nothing is refused, the log says why).
func Forbids() []byte {
	b, _ := files.ReadFile("forbids.yaml")
	return b
}

// Indicators returns the indicator floor's YAML: text indicators with a
// severity that escalation may turn into an ask or a block.
func Indicators() []byte {
	b, _ := files.ReadFile("indicators.yaml")
	return b
}

// Autorun returns the catalogue of files that run by themselves (shell
// start-up files, git hooks, task definitions …): where each is, in what
// format, and what in it runs. Policy compiles it into autorun_gen.go.
func Autorun() []byte {
	b, _ := files.ReadFile("autorun.yaml")
	return b
}
