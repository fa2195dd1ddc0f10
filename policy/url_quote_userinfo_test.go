package policy

import (
	"encoding/json"
	"testing"
)

// TestURLValueReadWhole: a value that is one URL (WebFetch's url) is
// judged whole as well as cut at a quote, as ExtractURLs cuts shell text:
// a fetcher reads "http://docs.example'@169.254.169.254/" as the user
// "docs.example'" at the metadata address, which was judged docs.example.
func TestURLValueReadWhole(t *testing.T) {
	for _, u := range []string{
		"http://docs.example'@169.254.169.254/latest/meta-data/",
		"http://docs.example\"@169.254.169.254/latest/meta-data/",
		"https://docs.example`@169.254.169.254/",
	} {
		in, err := json.Marshal(map[string]string{"url": u})
		if err != nil {
			t.Fatal(err)
		}
		f := Classify("WebFetch", in, CallEnv{Cwd: "/w", Home: "/h", User: "u"})
		found := false
		for _, h := range f.Hosts {
			found = found || h.Host == "169.254.169.254"
		}
		if !found {
			t.Errorf("%s: hosts %+v, want 169.254.169.254 among them", u, f.Hosts)
		}
	}
}
