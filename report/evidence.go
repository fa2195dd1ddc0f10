package report

import (
	"net/url"
	"strings"

	"github.com/agentairlock/airlock/audit"
)

// The digests breach correlates on live in a record's detail, as
// space- or "; "-separated key=value tokens (the gate joins notes with
// "; "). A digest is "sha256:" followed by 64 lower-case hex digits of the
// SHA-256 of the exact bytes.
//
// In an outcome record (PostToolUse) of a read that returned a secret:
//
//	secret_digest=sha256:<64 hex>
//
// In a decision record of a call that sends data out (a request body, a
// command line's payload, an MCP call's arguments), one digest per payload
// the hook could isolate, comma-separated, no spaces:
//
//	payload_digests=sha256:<64 hex>,sha256:<64 hex>
//
// CONFIRMED needs both: a secret's own digest reappearing in a payload.
const (
	secretDigestKey   = "secret_digest"
	payloadDigestsKey = "payload_digests"
	digestPrefix      = "sha256:"
)

// detailValues returns the values of every key=value token for key in a
// record's detail.
func detailValues(detail, key string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(detail, func(r rune) bool { return r == ' ' || r == ';' || r == '\t' }) {
		if v, ok := strings.CutPrefix(tok, key+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

// secretDigests are the secret_digest values of an outcome record.
func secretDigests(r audit.Record) []string { return digests(r, secretDigestKey) }

// payloadDigests are the payload_digests values of a decision record.
func payloadDigests(r audit.Record) []string { return digests(r, payloadDigestsKey) }

func digests(r audit.Record, key string) []string {
	var out []string
	for _, v := range detailValues(r.Detail, key) {
		for _, d := range strings.Split(v, ",") {
			if validDigest(d) {
				out = append(out, d)
			}
		}
	}
	return out
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, digestPrefix)
	if !ok || (len(h) != 32 && len(h) != 64) {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !(h[i] >= '0' && h[i] <= '9' || h[i] >= 'a' && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// isSecretRule reports a forbid id of the secrets class.
func isSecretRule(rule string) bool { return strings.HasPrefix(rule, "secrets.") }

// isExfilRule reports a network forbid (net.exfil-collector,
// net.chat-webhook, net.cloud-metadata…) or any rule naming exfiltration.
func isExfilRule(rule string) bool {
	return strings.HasPrefix(rule, "net.") || strings.Contains(strings.ToLower(rule), "exfil")
}

// collectors are request-capture, tunnel and paste services: a second net
// behind the net.exfil-collector forbid, for calls an override let through
// (its rule id is then not in the record). Suffix match on the host.
var collectors = []string{
	"webhook.site", "requestbin.net", "requestbin.com", "pipedream.net", "pipedream.com",
	"interact.sh", "interactsh.com", "oast.fun", "oast.pro", "oast.live", "oast.site",
	"oast.online", "oast.me", "burpcollaborator.net", "oastify.com", "ngrok.io",
	"ngrok-free.app", "ngrok-free.dev", "ngrok.app", "ngrok.dev", "loca.lt", "localtunnel.me",
	"serveo.net", "trycloudflare.com", "pinggy.io", "pinggy.link", "hooks.slack.com",
	"api.telegram.org", "termbin.com", "transfer.sh", "0x0.st", "file.io", "pastebin.com",
	"paste.ee", "ix.io", "sprunge.us", "catbox.moe", "bashupload.com", "temp.sh",
	"dpaste.com", "dpaste.org", "hastebin.com", "requestcatcher.com", "beeceptor.com",
	"hookbin.com", "postb.in", "canarytokens.com", "dnslog.cn", "ceye.io",
	"discord.com", "discordapp.com",
}

// collectorHost returns the known collector a target names, or "".
func collectorHost(target string) string {
	if !strings.Contains(target, ".") { // every collector's name has a dot
		return ""
	}
	for _, w := range strings.Fields(strings.ToLower(target)) {
		host := w
		if strings.Contains(w, "://") {
			if u, err := url.Parse(w); err == nil {
				host = u.Hostname()
			}
		} else {
			host, _, _ = strings.Cut(host, "/")
			if h, _, ok := strings.Cut(host, ":"); ok {
				host = h
			}
		}
		host = strings.TrimSuffix(host, ".")
		for _, c := range collectors {
			// host is c or ends in "."+c (no string built per collector)
			if host == c || (strings.HasSuffix(host, c) && host[len(host)-len(c)-1] == '.') {
				return host
			}
		}
	}
	return ""
}

// stagingWords mark a call that packs or moves data ahead of egress.
var stagingWords = []string{"base64", "tar ", "tar\t", "zip ", "gzip", "xxd", "openssl enc", "gpg -c", "/tmp/", "/dev/shm", "split ", "| od", "uuencode"}

func isStaging(r audit.Record) bool {
	if strings.HasPrefix(r.Rule, "exec.") {
		return true
	}
	s := strings.ToLower(r.Target + " " + r.Reason + " " + r.Detail)
	for _, w := range stagingWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// credentialLabels turn a secrets.* forbid id into what to rotate.
var credentialLabels = map[string]string{
	"secrets.ssh":                 "SSH keys in ~/.ssh: generate new keys, remove the old public keys from servers, GitHub/GitLab and authorized_keys",
	"secrets.ssh-agent":           "the SSH agent (it signs as you): restart it, and treat every key it held as exposed",
	"secrets.ssh-agent-var":       "the SSH agent (it signs as you): restart it, and treat every key it held as exposed",
	"secrets.aws":                 "AWS keys in ~/.aws: deactivate and rotate the access keys in IAM, and check CloudTrail for their use",
	"secrets.gcloud":              "Google Cloud credentials in ~/.config/gcloud: revoke (gcloud auth revoke) and rotate service-account keys",
	"secrets.azure":               "Azure credentials in ~/.azure: sign out everywhere and rotate service-principal secrets",
	"secrets.kube":                "Kubernetes credentials (kubeconfig): rotate the tokens and client certificates it holds",
	"secrets.docker":              "Docker registry credentials (~/.docker/config.json): revoke the registry tokens",
	"secrets.netrc":               "passwords in .netrc: change them at every host it lists",
	"secrets.git-credentials":     "stored git credentials: revoke the tokens at the git host",
	"secrets.gh":                  "the GitHub CLI token (~/.config/gh): revoke it (gh auth logout; GitHub settings, Applications)",
	"secrets.package-registries":  "package registry tokens (npm, PyPI, Cargo, RubyGems, Terraform): revoke and reissue; check for publishes you did not make",
	"secrets.gnupg":               "GnuPG private keys: revoke the keys and publish the revocation",
	"secrets.keyrings":            "the system keyring or password store: change every password it holds",
	"secrets.browser":             "browser cookies and saved logins: sign out of every session and change the saved passwords",
	"secrets.shell-history":       "shell and REPL histories: rotate any token or password ever typed or pasted there",
	"secrets.system":              "system password and privilege files: change local passwords, replace SSH host keys",
	"secrets.k8s-service-account": "the Kubernetes service-account token: delete the token secret so a new one is issued",
	"secrets.dotenv":              ".env files: rotate every application secret they hold",
	"secrets.agent-credentials":   "the coding agents' own login tokens: log out of the agent everywhere and log in again",
}

// credentialLabel is what to rotate for a secret access record.
func credentialLabel(r audit.Record) string {
	if l, ok := credentialLabels[r.Rule]; ok {
		return l
	}
	if r.Rule != "" {
		return "the credential behind " + r.Rule + targetSuffix(r)
	}
	return "the secret returned by " + orNone(r.Tool) + targetSuffix(r)
}

func targetSuffix(r audit.Record) string {
	if r.Target == "" {
		return ""
	}
	return " (" + r.Target + ")"
}
