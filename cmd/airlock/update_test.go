package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/scan"
)

func TestFetchFeedOverLoopbackHTTP(t *testing.T) {
	body := `{"version": 1, "created": "2026-03-01T12:00:00Z", "indicators": []}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/feed.json":
			w.Write([]byte(body))
		case "/huge.json":
			w.Write([]byte(strings.Repeat(" ", scan.MaxFeedBytes+1)))
		case "/away":
			http.Redirect(w, r, "http://feeds.example.com/feed.json", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	get := func(path string) ([]byte, error) {
		u, err := url.Parse(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		return fetchFeed(u)
	}
	if b, err := get("/feed.json"); err != nil || string(b) != body {
		t.Fatalf("loopback fetch: %q, %v", b, err)
	}
	for path, want := range map[string]string{
		"/huge.json": "over the 1048576-byte cap",
		"/away":      "only https",
		"/missing":   "404",
	} {
		if _, err := get(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", path, err, want)
		}
	}
}

func TestFeedURLAllowed(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://feeds.example.com/feed.json": true,
		"http://127.0.0.1:8080/feed.json":     true,
		"http://[::1]/feed.json":              true,
		"http://localhost/feed.json":          true,
		"http://feeds.example.com/feed.json":  false,
		"http://127.0.0.1.nip.io/feed.json":   false,
		"ftp://feeds.example.com/feed.json":   false,
		"https:///feed.json":                  false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := feedURLAllowed(u) == nil; got != ok {
			t.Errorf("%s: allowed %v, want %v", raw, got, ok)
		}
	}
}
