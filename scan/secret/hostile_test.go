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
