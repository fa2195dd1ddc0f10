package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/signal"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/policy"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/mcpproxy/remote"
	"github.com/urfave/cli/v2"
)

// airlock mcp login|logout: the OAuth tokens of remote MCP servers that
// airlock-mcp --url bridges. Airlock is the OAuth client (a token is for
// the server's own URL), so the login is Airlock's, kept in the home.
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "log in to the remote MCP servers airlock-mcp --url bridges (OAuth tokens kept in the Airlock home)",
		Subcommands: []*cli.Command{
			{Name: "login", ArgsUsage: "NAME", Usage: "run the server's OAuth login in a browser once and keep its tokens (0600, in the home)", Action: runMCPLogin,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "url", Usage: "the server's URL (default: the one its bridge last ran with)"},
					&cli.StringSliceFlag{Name: "scope", Usage: "an OAuth scope to ask for (repeatable)"},
				}},
			{Name: "logout", ArgsUsage: "NAME", Usage: "forget the server's tokens and registered client", Action: runMCPLogout},
		},
	}
}

func mcpStore(c *cli.Context, verb string) (remote.Store, error) {
	name := c.Args().First()
	if name == "" {
		return remote.Store{}, exitWith(64, "airlock mcp %s: which server? usage: airlock mcp %s NAME", verb, verb)
	}
	env, err := home.FromOS()
	if err != nil {
		return remote.Store{}, exitWith(1, "airlock mcp %s: %v", verb, err)
	}
	return remote.Store{Home: env.AirlockHome, Name: name}, nil
}

func runMCPLogin(c *cli.Context) error {
	st, err := mcpStore(c, "login")
	if err != nil {
		return err
	}
	u := c.String("url")
	if u == "" {
		srv, err := st.LoadServer()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return exitWith(1, "airlock mcp login: %s has not run through airlock-mcp --url yet; give its address: airlock mcp login %s --url URL", textsafe.Escape(st.Name), shellArg(st.Name))
			}
			return exitWith(1, "airlock mcp login: %v", err)
		}
		u = srv.URL
	}
	if err := judgeDestination(st.Name, u); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err = remote.RunLogin(ctx, remote.LoginOptions{Store: st, URL: u, Scopes: c.StringSlice("scope"), Out: c.App.Writer})
	if err != nil {
		return exitWith(1, "airlock mcp login %s: %v", textsafe.Escape(st.Name), err)
	}
	fmt.Fprintf(c.App.Writer, "logged in to %s; the token is in %s (readable by you only)\n", textsafe.Escape(st.Name), st.Path())
	return nil
}

func runMCPLogout(c *cli.Context) error {
	st, err := mcpStore(c, "logout")
	if err != nil {
		return err
	}
	was := st.LoggedIn()
	if err := st.Delete(); err != nil {
		return exitWith(1, "airlock mcp logout: %v", err)
	}
	if !was {
		fmt.Fprintf(c.App.Writer, "%s had no login\n", textsafe.Escape(st.Name))
		return nil
	}
	fmt.Fprintf(c.App.Writer, "logged out of %s: its tokens are deleted\n", textsafe.Escape(st.Name))
	return nil
}

// judgeDestination refuses a login to a server the policy would never
// let the bridge reach (a metadata address, a collector): the same
// judgement airlock-mcp --url makes before it dials, without recording
// (nothing is decided for an agent here).
func judgeDestination(name, u string) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock mcp login: %v", err)
	}
	cwd, _ := os.Getwd()
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return exitWith(1, "airlock mcp login: the policy did not load:\n%v", err)
	}
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return exitWith(64, "airlock mcp login: --url %q is not an http or https URL", u)
	}
	parsed.User, parsed.RawQuery, parsed.Fragment = nil, "", ""
	input, _ := json.Marshal(map[string]string{"url": parsed.String(), "prompt": "airlock mcp login " + name})
	res := (&gate.Gate{Policy: p, Env: env}).Decide(gate.Call{Source: "cli", Tool: "WebFetch", Input: input, Cwd: cwd, Attended: true})
	if res.Effective == policy.Block {
		return exitWith(1, "airlock mcp login %s: %s is refused by the policy: %s", textsafe.Escape(name), textsafe.Escape(parsed.String()), textsafe.Escape(res.Decision.Explain()))
	}
	return nil
}
