package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
	"github.com/urfave/cli/v2"
)

// updateCommand is `airlock update`: refresh the indicators from a signed feed.
func updateCommand() *cli.Command {
	return &cli.Command{
		Name:  "update",
		Usage: "refresh the indicators from a signed feed, or show the active one",
		Description: "Installs a feed that adds indicators and raises severities on top of the bundled ones;\n" +
			"it can never remove or lower one. The feed must be signed by a key in " + scan.FeedKeyEnv + "\n" +
			"(base64 ed25519 public keys, comma-separated, or a file of them); --allow-unsigned accepts an\n" +
			"unsigned feed you host yourself. A URL is fetched over https (http only on loopback).\n" +
			"See docs/feed.md for writing, signing and hosting a feed.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "status", Usage: "show the active feed: version, signer, source and what it sits on"},
			&cli.BoolFlag{Name: "allow-unsigned", Usage: "accept an unsigned feed (one you host yourself); a bad signature is still refused"},
		},
		Action: runUpdate,
		Subcommands: []*cli.Command{
			{Name: "keygen", Usage: "write a feed signing key pair and print the public key for " + scan.FeedKeyEnv,
				Action: runUpdateKeygen,
				Flags:  []cli.Flag{&cli.StringFlag{Name: "out", Value: ".", Usage: "write the keys in `DIR`"}}},
			{Name: "sign", Usage: "check a feed and write it signed (--key is required)",
				Action: runUpdateSign,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "key", Usage: "the private key `FILE` (as keygen writes it)"},
					&cli.StringFlag{Name: "o", Aliases: []string{"out"}, Usage: "write the signed feed to `OUT` (default FEED.signed.json; - for stdout; an existing file only with --force)"},
					&cli.BoolFlag{Name: "force", Usage: "let -o replace an existing file (written whole, its mode kept)"},
				}},
		},
	}
}

func runUpdate(c *cli.Context) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock update: %v", err)
	}
	path := filepath.Join(env.AirlockHome, scan.FeedFile)
	switch {
	case c.Bool("status") && c.NArg() == 0:
		return feedStatus(c.App.Writer, path)
	case c.NArg() != 1 || c.Bool("status"):
		return exitWith(64, "airlock update: usage: airlock update FILE|URL [--allow-unsigned], or airlock update --status")
	}
	src := c.Args().First()
	keys, err := trustedFeedKeys()
	if err != nil {
		return exitWith(1, "airlock update: %v", err)
	}
	raw, source, err := readFeedSource(src)
	if err != nil {
		return exitWith(1, "airlock update: %v", err)
	}
	f, err := scan.ParseFeed(raw, keys, c.Bool("allow-unsigned"))
	if err != nil {
		return exitWith(1, "airlock update: %s: %v", textsafe.Escape(source), err)
	}
	f.Source, f.Installed = source, time.Now().UTC()
	already, err := scan.InstallFeed(path, f)
	if err != nil {
		return exitWith(1, "airlock update: %s: %v", textsafe.Escape(source), err)
	}
	w := c.App.Writer
	// The hook never parses the feed: its collector hosts are compiled
	// into a small file every hook reads (policy.FeedHostsFile).
	hosts := f.CollectorHosts()
	rec, err := policy.FeedHostsRecord(fmt.Sprintf("feed version %d, sha256 %s", f.Version, f.SHA256), hosts)
	if err == nil {
		err = writeRecord(filepath.Join(env.AirlockHome, policy.FeedHostsFile), rec)
	}
	if err != nil {
		return exitWith(1, "airlock update: %v", err)
	}
	if already {
		fmt.Fprintf(w, "feed version %d is already active (%s)\n", f.Version, path)
		return nil
	}
	fmt.Fprintf(w, "installed feed version %d from %s, %s: %s\n", f.Version, textsafe.Escape(source), signerText(f.Signer), feedCounts(f))
	fmt.Fprintf(w, "airlock-mcp proxies use it from their next start (%s)\n", path)
	if len(hosts) > 0 {
		fmt.Fprintf(w, "the hook blocks its %s from the next call (%s)\n", feedPlural(len(hosts), "collector host", "collector hosts"), filepath.Join(env.AirlockHome, policy.FeedHostsFile))
	}
	if f.Signer == scan.Unsigned {
		fmt.Fprintln(c.App.ErrWriter, "warning: this feed is not signed; anyone who can change it where it is hosted can change what Airlock flags")
	}
	return nil
}

// trustedFeedKeys reads AIRLOCK_FEED_KEY: the keys themselves, or the path
// of a file holding them.
func trustedFeedKeys() ([]ed25519.PublicKey, error) {
	v := strings.TrimSpace(os.Getenv(scan.FeedKeyEnv))
	if v == "" {
		return nil, nil
	}
	keys, err := scan.ParseFeedKeys(v)
	if err == nil {
		return keys, nil
	}
	b, ferr := readFeedInput(v, 64<<10)
	if ferr != nil {
		return nil, fmt.Errorf("%s is neither ed25519 public keys (%v) nor a readable file of them (%v)", scan.FeedKeyEnv, err, ferr)
	}
	if keys, err = scan.ParseFeedKeys(string(b)); err != nil {
		return nil, fmt.Errorf("%s file %s: %v", scan.FeedKeyEnv, v, err)
	}
	return keys, nil
}

// readFeedSource reads a feed from a file or fetches it from a URL, and
// returns how to name where it came from.
func readFeedSource(src string) ([]byte, string, error) {
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		u, err := url.Parse(src)
		if err != nil {
			return nil, "", fmt.Errorf("feed URL: %w", err)
		}
		b, err := fetchFeed(u)
		return b, u.Redacted(), err
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, "", err
	}
	b, err := readFeedInput(abs, scan.MaxFeedBytes)
	return b, abs, err
}

func readFeedInput(path string, limit int64) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over the %d-byte cap", path, limit)
	}
	return b, nil
}

// fetchFeed gets a feed over https (http only from this machine), within
// 10 seconds and the size cap, following redirects only to such URLs.
func fetchFeed(u *url.URL) ([]byte, error) {
	if err := feedURLAllowed(u); err != nil {
		return nil, err
	}
	client := &http.Client{
		Timeout: 10 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			return feedURLAllowed(req.URL)
		},
	}
	resp, err := client.Get(u.String())
	if err != nil {
		return nil, fmt.Errorf("fetch feed: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch feed %s: %s", u.Redacted(), resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, scan.MaxFeedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch feed %s: %w", u.Redacted(), err)
	}
	if len(b) > scan.MaxFeedBytes {
		return nil, fmt.Errorf("fetch feed %s: over the %d-byte cap", u.Redacted(), scan.MaxFeedBytes)
	}
	return b, nil
}

func feedURLAllowed(u *url.URL) error {
	host := u.Hostname()
	ip := net.ParseIP(host)
	switch {
	case host == "":
		return fmt.Errorf("feed URL %s has no host", u.Redacted())
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && (host == "localhost" || ip != nil && ip.IsLoopback()):
		return nil
	}
	return fmt.Errorf("feed URL %s: only https, or http to this machine (localhost), is allowed", u.Redacted())
}

func feedStatus(w io.Writer, path string) error {
	f, err := scan.LoadFeed(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(w, "no feed is active: the %d bundled indicators are in use (%s does not exist)\n", scan.BundledIndicators(), path)
		return nil
	}
	if err != nil {
		return exitWith(1, "airlock update --status: %v", err)
	}
	trust := ""
	if f.Signer != scan.Unsigned {
		trust = " (not among the keys in " + scan.FeedKeyEnv + " here)"
		if keys, err := trustedFeedKeys(); err == nil && len(keys) == 0 {
			trust = " (" + scan.FeedKeyEnv + " is not set here)"
		} else if err == nil {
			for _, k := range keys {
				if scan.FeedKeyID(k) == f.Signer {
					trust = " (trusted by " + scan.FeedKeyEnv + ")"
				}
			}
		}
	}
	fmt.Fprintf(w, "feed:       version %d, created %s\n", f.Version, f.Created.Format(time.RFC3339))
	fmt.Fprintf(w, "signer:     %s%s\n", signerText(f.Signer), trust)
	fmt.Fprintf(w, "source:     %s\n", textsafe.Escape(f.Source))
	fmt.Fprintf(w, "installed:  %s\n", f.Installed.Format(time.RFC3339))
	fmt.Fprintf(w, "indicators: %s\n", feedCounts(f))
	fmt.Fprintf(w, "sits on:    %d bundled indicators, which it can raise but never remove or lower\n", scan.BundledIndicators())
	fmt.Fprintf(w, "used by:    airlock-mcp's toolset checks, from each proxy's next start; its collector hosts, the hook's every call (%s)\n", policy.FeedHostsFile)
	fmt.Fprintf(w, "file:       %s\n", path)
	return nil
}

func signerText(signer string) string {
	if signer == scan.Unsigned {
		return "UNSIGNED (installed with --allow-unsigned)"
	}
	return "signed by key " + signer
}

func feedCounts(f *scan.Feed) string {
	s := f.Stats()
	out := fmt.Sprintf("%s: %s, %s, %s", feedPlural(len(f.Indicators), "entry", "entries"),
		feedPlural(s.New, "new indicator", "new indicators"), feedPlural(s.Raised, "raised severity", "raised severities"),
		feedPlural(s.Extra, "extra pattern under a bundled id", "extra patterns under bundled ids"))
	if s.Moot > 0 {
		out += fmt.Sprintf(", %d with no effect", s.Moot)
	}
	return out
}

func feedPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Key files keygen writes.
const (
	feedPrivFile = "airlock-feed.key"
	feedPubFile  = "airlock-feed.pub"
)
