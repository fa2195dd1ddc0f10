package doctor

import (
	"fmt"

	"github.com/agentairlock/airlock/mcpproxy/remote"
	"github.com/agentairlock/airlock/setup"
)

// remoteCheck lists the remote servers behind airlock-mcp --url and which
// of them need a login (the bridge noted a server asking for a token the
// home does not hold); ok false when there are none.
func remoteCheck(o Options, st *setup.StatusReport) (Check, bool) {
	c := Check{Name: "remote MCP servers", Status: OK}
	n, need := 0, 0
	seen := map[string]bool{}
	for _, s := range st.Stores {
		for _, b := range s.Bridges {
			if seen[b.Name] {
				continue
			}
			seen[b.Name] = true
			n++
			rs := remote.Store{Home: o.Env.AirlockHome, Name: b.Name}
			switch {
			case rs.NeedsLogin():
				need++
				c.Items = append(c.Items, fmt.Sprintf("%q (%s): needs a login: airlock mcp login %s", b.Name, setup.ShownURL(b.URL), b.Name))
			case rs.LoggedIn():
				c.Items = append(c.Items, fmt.Sprintf("%q (%s): gated, logged in", b.Name, setup.ShownURL(b.URL)))
			default:
				c.Items = append(c.Items, fmt.Sprintf("%q (%s): gated, no login stored (one is needed only if the server asks)", b.Name, setup.ShownURL(b.URL)))
			}
		}
	}
	if n == 0 {
		return c, false
	}
	c.Detail = fmt.Sprintf("%d behind airlock-mcp --url, %d needing a login", n, need)
	if need > 0 {
		c.Status = warn
		c.Fix = "airlock mcp login NAME for each server named above"
	}
	return c, true
}
