package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// lateFlags reads the flags urfave/cli left among the arguments (it stops
// at the first one, and people type flags after it).
func lateFlags(c *cli.Context, verb string, bools []string, strs []string) (pos []string, set map[string]string, err error) {
	set = map[string]string{}
	for _, n := range bools {
		if c.Bool(n) {
			set[n] = "true"
		}
	}
	for _, n := range strs {
		if v := c.String(n); v != "" && c.IsSet(n) {
			set[n] = v
		}
	}
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-") || a == "-":
			pos = append(pos, a)
		case slices.Contains(bools, name) && !hasValue:
			set[name] = "true"
		case slices.Contains(strs, name) && hasValue:
			set[name] = value
		case slices.Contains(strs, name) && i+1 < len(args):
			set[name] = args[i+1]
			i++
		default:
			return nil, nil, exitWith(64, "airlock %s: unknown or incomplete flag %s", verb, a)
		}
	}
	return pos, set, nil
}
