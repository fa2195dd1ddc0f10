package mcpproxy

import (
	"strings"

	"github.com/agentairlock/airlock/scan/secret"
)

// redactArgv is a server's command line as the mcp_start record names it:
// what would hand someone the server's credentials is left out. A header
// given on the command line (mcp-remote's --header "Authorization: …",
// curl-like -H) keeps its name only; an option or variable whose name
// says it holds a secret (--api-key X, TOKEN=X, --password=X) loses its
// value; any other argument is masked by the secret shapes.
func redactArgv(argv []string) []string {
	out := make([]string, len(argv))
	valueNext := false
	headerNext := false
	for i, a := range argv {
		switch {
		case headerNext:
			out[i] = redactHeader(a)
			headerNext = false
			continue
		case valueNext:
			out[i] = "[redacted]"
			valueNext = false
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		flag := strings.TrimLeft(name, "-")
		switch {
		case isHeaderFlag(name):
			if hasValue {
				out[i] = name + "=" + redactHeader(value)
			} else {
				out[i] = a
				headerNext = true
			}
			continue
		case secretName(flag) && hasValue:
			out[i] = name + "=[redacted]"
			continue
		case secretName(flag) && strings.HasPrefix(name, "-"):
			out[i] = a
			valueNext = true
			continue
		}
		out[i] = secret.Mask(a)
	}
	return out
}

func isHeaderFlag(s string) bool {
	switch s {
	case "-H", "--header", "--headers", "-header":
		return true
	}
	return false
}

// redactHeader keeps a header's name: "Authorization: [redacted]".
func redactHeader(h string) string {
	if name, _, ok := strings.Cut(h, ":"); ok {
		return name + ": [redacted]"
	}
	return "[redacted]"
}

// secretName reports whether an option or variable name says its value
// is a credential.
func secretName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	for _, w := range []string{"token", "secret", "password", "passwd", "apikey", "accesskey", "authorization", "bearer", "credential", "privatekey", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "key" || n == "auth"
}
