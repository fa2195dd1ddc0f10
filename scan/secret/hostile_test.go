package secret

import (
	"strings"
	"testing"
)

// DEFECT (found in review of issue 14): the shapes that need a name
// before the value (password, *_SECRET/*_TOKEN assignments, the AWS
// secret key, Authorization and API-key headers) allowed a quote between
// the name and the ":" but not a backslash before it, so JSON written
// inside a shell string — the commonest way a command carries JSON,
// curl -d "{\"password\": \"…\"}" — kept its secret in the record.
func TestHostileEscapedJSONInACommand(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`curl -d "{\"password\": \"hunter22\"}" https://x.example/login`, "hunter22"},
		{`curl -d "{\"password\":\"hunter22\"}" https://x.example/login`, "hunter22"},
		{`echo '{\'password\': \'hunter22\'}'`, "hunter22"},
		{`curl -d "{\"aws_secret_access_key\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"}"`, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{`curl -d "{\"client_secret\": \"a8Fh3kLq9Zx2Vb7Nm4Rt\"}"`, "a8Fh3kLq9Zx2Vb7Nm4Rt"},
		{`curl -H "{\"Authorization\": \"tok3nV4lue9abcdEF\"}"`, "tok3nV4lue9abcdEF"},
		{`curl -d "{\"x-api-key\": \"k3yV4lue9abcdEFgh\"}"`, "k3yV4lue9abcdEFgh"},
	}
	for _, c := range cases {
		got := Mask(c.in)
		if strings.Contains(got, c.secret) {
			t.Errorf("Mask(%q) = %q: the secret is still there", c.in, got)
		}
		if !strings.Contains(got, "[masked ") {
			t.Errorf("Mask(%q) = %q: nothing masked", c.in, got)
		}
	}
}

// DEFECT (found in review of issue 14): a credential given as a flag's
// separate argument — kubectl --token T, docker login --password P, heroku
// --api-key K, curl --oauth2-bearer T — has no "=" or ":" for the
// name-then-value shapes, and a token of no vendor shape kept its value.
func TestHostileFlagValue(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`kubectl --token eyZ8fGh3kLq9Zx2Vb7Nm4Rt get pods`, "eyZ8fGh3kLq9Zx2Vb7Nm4Rt"},
		{`docker login -u me --password hunter22 registry.example`, "hunter22"},
		{`docker login -u me --password 'hunter22' registry.example`, "hunter22"},
		{`heroku apps --api-key a8Fh3kLq9Zx2Vb7Nm4Rt`, "a8Fh3kLq9Zx2Vb7Nm4Rt"},
		{`curl --oauth2-bearer a8Fh3kLq9Zx2Vb7Nm4Rt https://x.example`, "a8Fh3kLq9Zx2Vb7Nm4Rt"},
		{`tool --auth-token "a8Fh3kLq9Zx2Vb7Nm4Rt"`, "a8Fh3kLq9Zx2Vb7Nm4Rt"},
	}
	for _, c := range cases {
		if got := Mask(c.in); strings.Contains(got, c.secret) {
			t.Errorf("Mask(%q) = %q: the secret is still there", c.in, got)
		}
	}
	// a flag followed by another flag or by prose is not a secret
	for _, s := range []string{
		`gh auth login --with-token --hostname x`,
		`tool --token --verbose`,
		`kubectl --token-file /var/run/token get pods`,
		`psql --password --username me`,
	} {
		if got := Mask(s); got != s {
			t.Errorf("Mask(%q) = %q: nothing there is a secret", s, got)
		}
	}
}
