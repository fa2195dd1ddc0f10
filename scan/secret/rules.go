package secret

import (
	"encoding/base64"
	"strings"
)

// rule is one token or key shape. Every match of pattern starts with one
// of keywords (compared ASCII case-insensitively; back bytes before it for
// the one shape whose marker is inside it), and the pattern is only tried,
// anchored, where the prefilter found a keyword: a text that holds none
// pays one pass over its bytes, and one that holds some pays a short
// anchored match at each.
type rule struct {
	kind     string   // what the secret is, as the mask names it
	keywords []string // fixed strings, one of which every match contains
	pattern  string   // RE2; the first submatch that took part, if any, is the secret, else the whole match
	// chosen marks values a person picks (passwords, Basic credentials):
	// they are masked without a digest, which would let a dictionary
	// confirm a guess (see docs/secrets.md).
	chosen bool
	check  func(v string) bool // a further test of the secret; nil accepts
	// back is how far before its keyword a match starts (0: the match
	// starts with the keyword, as most shapes here do). A fixed prefix
	// whose first two letters are common in ordinary text ("sh", "at",
	// "do", "fi") is keyed by a rarer part of it instead, so that the
	// prefilter's byte-pair table stays quiet on clean text.
	back int
	// prev, when set, must accept the byte before the match (not called
	// at the start of the text): it is the word boundary a shape needs so
	// that AKIA inside a longer word is not a key id.
	prev func(c byte) bool
	// min and max bound the secret's length (0: no bound): the patterns
	// say "one or more" and the length is checked here, because RE2
	// compiles x{40} into forty copies of x and compiling the table was
	// then a millisecond and a half of a hook call.
	min, max int
	// window is how much text from the keyword an anchored match may read:
	// 0 for the default (defaultWindow), -1 for the rest of the text;
	// shortWindow for the generic carriers (a name, "=", a value), whose
	// keywords are frequent in ordinary results ("token" in a log), so
	// that each attempt reads little.
	window int
	source string // where the shape is documented
}

// The table, most specific first: where matches overlap, the merged span
// is named after the earliest rule. Patterns are written here from the
// vendors' documentation of their formats; docs/secrets.md lists each
// kind with its source, and a test keeps the two in step.
var rules = [...]rule{
	// --- forges ---
	{kind: "github-token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		pattern: `gh[pousr]_[A-Za-z0-9]+`, min: 40,
		source: "GitHub Docs, About authentication to GitHub: GitHub's token formats; GitHub blog 2021-04-05, Behind GitHub's new authentication token formats"},
	{kind: "github-token", keywords: []string{"github_pat_"},
		pattern: `github_pat_[A-Za-z0-9_]+`, min: 61,
		source: "GitHub Docs, Managing your personal access tokens (fine-grained tokens, github_pat_)"},
	{kind: "gitlab-token", keywords: []string{"glpat-", "gldt-", "glrt-", "gloas-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-"},
		pattern: `gl(?:pat|dt|rt|oas|ptt|cbt|ft|imt|agent|soat|ffct)-[A-Za-z0-9_.-]+`, min: 25,
		source: "GitLab Docs, GitLab token overview: token prefixes"},

	// --- cloud ---
	{kind: "aws-access-key-id", keywords: []string{"akia", "asia", "abia", "acca", "a3t"},
		pattern: `(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]+\b`, min: 20, max: 20, prev: notWord,
		source: "AWS IAM User Guide, IAM identifiers: unique ID prefixes (AKIA access key, ASIA temporary STS key)"},
	{kind: "aws-secret-access-key", keywords: []string{"secret_access", "secretaccess", "secret-access"},
		pattern: `(?i)secret[_-]?access[_-]?key\\?["']?\s*[:=]?\s*\\?["']?([A-Za-z0-9/+]+)`, min: 40, max: 40,
		source: "AWS IAM User Guide, Manage access keys (a 40-character secret access key, named aws_secret_access_key in the CLI's files and AWS_SECRET_ACCESS_KEY in the environment)"},
	{kind: "gcp-api-key", keywords: []string{"aiza"},
		pattern: `AIza[0-9A-Za-z_-]+`, min: 39,
		source: "Google Cloud Docs, Manage API keys (keys start with AIza, 39 characters)"},
	{kind: "google-oauth-token", keywords: []string{"ya29."},
		pattern: `ya29\.[0-9A-Za-z_-]+`, min: 25,
		source: "Google Identity, Using OAuth 2.0 to access Google APIs (access tokens, ya29.)"},
	{kind: "google-oauth-client-secret", keywords: []string{"gocspx-"},
		pattern: `GOCSPX-[0-9A-Za-z_-]+`, min: 35,
		source: "Google Cloud Docs, Manage OAuth clients (client secrets, GOCSPX-)"},
	{kind: "azure-storage-key", keywords: []string{"accountkey="},
		pattern: `(?i)AccountKey=([A-Za-z0-9+/]+={0,2})`, min: 86,
		source: "Microsoft Learn, Configure Azure Storage connection strings (AccountKey=, 64 bytes base64)"},
	{kind: "azure-shared-access-key", keywords: []string{"sharedaccesskey="},
		pattern: `(?i)SharedAccessKey=([A-Za-z0-9+/]+=?)`, min: 44,
		source: "Microsoft Learn, Service Bus / Event Hubs connection strings (SharedAccessKey=, 32 bytes base64)"},
	{kind: "azure-sas-signature", keywords: []string{"sig="},
		pattern: `sig=([A-Za-z0-9%+/=]+)`, min: 30, prev: func(c byte) bool { return c == '?' || c == '&' },
		source: "Microsoft Learn, Grant limited access to Azure Storage with shared access signatures (the sig parameter)"},
	{kind: "azure-client-secret", keywords: []string{"q~"},
		pattern: `([A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]+)`, min: 37, max: 40, back: 4, prev: notClientSecret,
		source: "Microsoft Entra client secrets (the Q~ marker after three characters and a version digit, documented by Microsoft's credential-scanning rules and gitleaks' azure-ad-client-secret)"},

	// --- chat ---
	{kind: "slack-token", keywords: []string{"xox"},
		pattern: `xox(?:[abposr]|e(?:\.xox[bp])?)-[0-9A-Za-z-]+`, min: 15,
		source: "Slack API docs, Token types (xoxb- bot, xoxp- user, xoxe- rotating, xoxe.xoxp-)"},
	{kind: "slack-token", keywords: []string{"xapp-"},
		pattern: `xapp-[0-9]-[A-Za-z0-9-]+`, min: 17,
		source: "Slack API docs, Token types (xapp- app-level tokens)"},
	{kind: "slack-webhook", keywords: []string{"hooks.slack.com"},
		pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/+-]+)`, min: 20,
		source: "Slack API docs, Sending messages using incoming webhooks (https://hooks.slack.com/services/T…/B…/…)"},
	{kind: "discord-webhook", keywords: []string{"discord"},
		pattern: `discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/([0-9]+/[A-Za-z0-9_-]+)`, min: 78,
		source: "Discord Developer Docs, Webhook resource (/webhooks/{id}/{token})"},
	{kind: "discord-bot-token", keywords: []string{"bot"},
		pattern: `(?i)bot\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)`, min: 58, prev: notWord,
		source: "Discord Developer Docs, Reference: Authentication (Authorization: Bot <token>, three dot-separated parts)"},

	// --- package registries ---
	{kind: "npm-token", keywords: []string{"npm_"},
		pattern: `npm_[A-Za-z0-9]+`, min: 40,
		source: "npm Docs, About access tokens; GitHub changelog 2021-09-23, npm access tokens now start with npm_"},
	{kind: "pypi-token", keywords: []string{"pypi-"},
		pattern: `pypi-Ag[A-Za-z0-9_-]+`, min: 57,
		source: "PyPI help, API tokens (pypi- followed by a macaroon, base64 starting AgE…)"},
	{kind: "rubygems-key", keywords: []string{"rubygems_"},
		pattern: `rubygems_[0-9a-f]+`, min: 57,
		source: "RubyGems Guides, API key scopes (keys start rubygems_, 48 hex digits)"},
	{kind: "docker-hub-token", keywords: []string{"dckr_"},
		pattern: `dckr_(?:pat|oat)_[A-Za-z0-9_-]+`, min: 29,
		source: "Docker Docs, Personal access tokens (dckr_pat_) and Organization access tokens (dckr_oat_)"},
	{kind: "huggingface-token", keywords: []string{"hf_"},
		pattern: `hf_[A-Za-z]+\b`, min: 37, max: 37, prev: notWord,
		source: "Hugging Face Hub docs, User access tokens (hf_ and 34 letters)"},

	// --- AI and payment APIs ---
	{kind: "anthropic-key", keywords: []string{"sk-ant-"},
		pattern: `sk-ant-[A-Za-z0-9_-]+`, min: 27,
		source: "Anthropic API docs, Getting started / Admin API (keys start sk-ant-api03-, sk-ant-admin01-)"},
	{kind: "openai-key", keywords: []string{"sk-"},
		pattern: `sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]+|sk-[A-Za-z0-9_-]+T3BlbkFJ[A-Za-z0-9_-]+`, min: 28,
		source: "OpenAI platform docs, API keys (project keys sk-proj-, service-account sk-svcacct-, admin sk-admin-; older keys carry T3BlbkFJ, base64 of \"OpenAI\")"},
	{kind: "stripe-key", keywords: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		pattern: `[sr]k_(?:live|test)_[A-Za-z0-9]+`, min: 18,
		source: "Stripe Docs, API keys (secret keys sk_live_/sk_test_, restricted keys rk_live_/rk_test_)"},
	{kind: "webhook-signing-secret", keywords: []string{"whsec_"},
		pattern: `whsec_[A-Za-z0-9+/=]+`, min: 30,
		source: "Stripe Docs, Check webhook signatures (endpoint secrets whsec_); the same prefix is used by Svix"},
	{kind: "sendgrid-key", keywords: []string{"sg."},
		pattern: `SG\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`, min: 69,
		source: "Twilio SendGrid Docs, API keys (SG. and two dot-separated parts)"},
	{kind: "vault-token", keywords: []string{"hvs.", "hvb."},
		pattern: `hv[sb]\.[A-Za-z0-9_-]+`, min: 28,
		source: "HashiCorp Vault docs, Tokens: token prefixes (hvs. service, hvb. batch)"},

	// --- issue 20: the rest of the families gitleaks' rule set knows,
	// each written from the vendor's own description of its format ---
	{kind: "shopify-token", keywords: []string{"hpat_", "hpca_", "hppa_", "hpss_"}, back: 1,
		pattern: `shp(?:at|ca|pa|ss)_[a-fA-F0-9]+`, min: 38, max: 38,
		source: "Shopify Dev Docs, Access tokens (shpat_ admin, shpca_ custom app, shppa_ private app, shpss_ shared secret; 32 hex)"},
	{kind: "atlassian-api-token", keywords: []string{"tt3"}, back: 3,
		pattern: `ATATT3[A-Za-z0-9_=-]+`, min: 100,
		source: "Atlassian Support, Manage API tokens for your Atlassian account (tokens since 2023 start ATATT3)"},
	{kind: "digitalocean-token", keywords: []string{"_v1_"}, back: 3,
		pattern: `do[por]_v1_[a-f0-9]+`, min: 71, max: 71,
		source: "DigitalOcean Docs, How to create a personal access token (dop_v1_, OAuth doo_v1_, refresh dor_v1_; 64 hex)"},
	{kind: "linear-api-key", keywords: []string{"_api_"}, back: 3,
		pattern: `lin_api_[A-Za-z0-9]+`, min: 48,
		source: "Linear developer docs, API and webhooks: personal API keys (lin_api_)"},
	{kind: "postman-api-key", keywords: []string{"pmak-"},
		pattern: `PMAK-[a-fA-F0-9]+-[a-fA-F0-9]+`, min: 64,
		source: "Postman Learning Center, Generate and use Postman API keys (PMAK-, 24 and 34 hex)"},
	{kind: "grafana-token", keywords: []string{"glc_", "glsa_"},
		pattern: `gl(?:c|sa)_[A-Za-z0-9_+/=-]+`, min: 32, check: randomLooking, prev: notWord,
		source: "Grafana docs, Service account tokens (glsa_) and Grafana Cloud access policy tokens (glc_)"},
	{kind: "new-relic-key", keywords: []string{"nrak-"},
		pattern: `NRAK-[A-Z0-9]+`, min: 32, max: 32,
		source: "New Relic docs, New Relic API keys (user keys NRAK- and 27 characters)"},
	{kind: "doppler-token", keywords: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."},
		pattern: `dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]+`, min: 40, prev: notWord,
		source: "Doppler docs, Token formats (dp.pt. personal, dp.st. service, dp.sa. service account, dp.ct. CLI, dp.scim., dp.audit.)"},
	{kind: "pulumi-token", keywords: []string{"pul-"},
		pattern: `pul-[a-f0-9]+`, min: 44, max: 44, prev: notWord,
		source: "Pulumi docs, Access tokens (pul- and 40 hex)"},
	{kind: "sentry-token", keywords: []string{"sntrys_", "sntryu_"},
		pattern: `sntry[su]_[A-Za-z0-9_+/=]+`, min: 40,
		source: "Sentry docs, Auth tokens (organization tokens sntrys_, user tokens sntryu_)"},
	{kind: "age-secret-key", keywords: []string{"e-secret-key-1"}, back: 2,
		pattern: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]+`, min: 74, max: 74,
		source: "age specification (C2SP age.md): the X25519 identity, Bech32 with the HRP AGE-SECRET-KEY-"},
	{kind: "figma-token", keywords: []string{"gd_"}, back: 2,
		pattern: `figd_[A-Za-z0-9_-]+`, min: 40,
		source: "Figma REST API docs, Authentication: personal access tokens (figd_)"},
	{kind: "planetscale-token", keywords: []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"},
		pattern: `pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]+`, min: 40,
		source: "PlanetScale docs, Service tokens and database passwords (pscale_tkn_, pscale_oauth_, pscale_pw_)"},
	{kind: "supabase-token", keywords: []string{"sbp_", "sb_secret_"},
		pattern: `sbp_[a-f0-9]+|sb_secret_[A-Za-z0-9_-]+`, min: 40, prev: notWord,
		source: "Supabase docs, Management API access tokens (sbp_ and 40 hex) and API keys (secret keys sb_secret_)"},
	{kind: "groq-key", keywords: []string{"gsk_"},
		pattern: `gsk_[A-Za-z0-9]+`, min: 56, max: 56, prev: notWord,
		source: "GroqCloud docs, API keys (gsk_ and 52 characters)"},
	{kind: "xai-key", keywords: []string{"i-"}, back: 2,
		pattern: `xai-[A-Za-z0-9]+`, min: 84, prev: notWord,
		source: "xAI API docs, API keys (xai- and 80 characters)"},
	{kind: "perplexity-key", keywords: []string{"lx-"}, back: 2,
		pattern: `pplx-[A-Za-z0-9]+`, min: 53, prev: notWord,
		source: "Perplexity API docs, API keys (pplx- and 48 characters)"},
	{kind: "databricks-token", keywords: []string{"dapi"},
		pattern: `dapi[a-f0-9]+(?:-[0-9])?\b`, min: 36, max: 38, prev: notWord,
		source: "Databricks docs, Personal access tokens (dapi and 32 hex)"},
	{kind: "tailscale-key", keywords: []string{"skey-"}, back: 1,
		pattern: `tskey-[a-z]+-[A-Za-z0-9]+-[A-Za-z0-9]+`, min: 40,
		source: "Tailscale docs, API access tokens and auth keys (tskey-api-…, tskey-auth-…, tskey-client-…)"},
	{kind: "openrouter-key", keywords: []string{"sk-or-v1-"},
		pattern: `sk-or-v1-[a-f0-9]+`, min: 73, max: 73,
		source: "OpenRouter docs, API keys (sk-or-v1- and 64 hex)"},
	{kind: "alibaba-access-key-id", keywords: []string{"ltai"},
		pattern: `LTAI[A-Za-z0-9]+\b`, min: 16, max: 30, check: randomLooking, prev: notWord,
		source: "Alibaba Cloud docs, Create an AccessKey pair (AccessKey IDs start LTAI)"},

	// --- key material and generic carriers ---
	{kind: "private-key", keywords: []string{"-----begin"}, window: -1,
		pattern: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
			`(?:[A-Za-z0-9+/=\s]|\\[nrt]|[A-Za-z-]+: ?[^\n\\]*)*` +
			`(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?`,
		source: "RFC 7468 (PEM labels PRIVATE KEY, RSA/EC PRIVATE KEY), OpenSSH PROTOCOL.key (OPENSSH PRIVATE KEY), RFC 4880 (PGP PRIVATE KEY BLOCK)"},
	{kind: "jwt", keywords: []string{"eyj"}, window: 16 << 10,
		pattern: `eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){1,3}`, min: 30, prev: notWord,
		source: "RFC 7519 and RFC 7515 §7.1 (compact serialization: base64url JSON header and payload, both starting eyJ, and a signature)"},
	{kind: "bearer-token", keywords: []string{"bearer"},
		pattern: `(?i)bearer(?:\s|\\[nrt])+([A-Za-z0-9._~+/-]+=*)`, min: 8, check: tokenLike, prev: notWord,
		source: "RFC 6750 §2.1 (Authorization: Bearer b64token)"},
	{kind: "basic-auth", keywords: []string{"basic"}, window: shortWindow, chosen: true,
		pattern: `(?i)basic\s+([A-Za-z0-9+/]+={0,2})`, min: 4, check: basicCredentials, prev: notWord,
		source: "RFC 7617 (Authorization: Basic base64(user:password))"},
	{kind: "authorization", keywords: []string{"authorization"},
		pattern: `(?i)authorization\\?["']?\s*[:=]\s*\\?["']?(?:(?:token|bot|apikey|api-key|key|sso-key)\s+)?([A-Za-z0-9._~+/=:-]+)`, min: 12, check: tokenLike, prev: notWord,
		source: "RFC 9110 §11.6.2 (Authorization: scheme credentials); GitHub REST docs (Authorization: token …)"},
	{kind: "api-key-header", keywords: []string{"api-key", "apikey", "auth-token", "private-token", "subscription-key"}, window: shortWindow,
		pattern: `(?i)(?:api-?key|auth-token|private-token|subscription-key)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9._~+/=-]+)`, min: 12, check: tokenLike,
		source: "vendors' API-key headers: GitLab REST (PRIVATE-TOKEN), Google (x-goog-api-key), Azure API Management (Ocp-Apim-Subscription-Key), and the common X-API-Key"},
	{kind: "url-password", keywords: []string{"://"}, window: shortWindow, chosen: true,
		pattern: `://[^\s/?#@:"'<>\[\]]*:([^\s/?#"'<>\[\]]+)@`,
		source:  "RFC 3986 §3.2.1 (userinfo user:password@, deprecated but still used)"},
	{kind: "password", keywords: []string{"-u", "--user"}, window: shortWindow, chosen: true,
		pattern: `(?:-u|--user)(?:\s+|=)["']?[^\s:"'\[\]-][^\s:"'\[\]]*:([^\s"'\[\]]+)`, check: userPassword, prev: func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\'' },
		source: "curl(1) -u/--user user:password"},
	{kind: "password", keywords: []string{"--password", "--passwd"}, window: shortWindow, chosen: true,
		pattern: `--pass(?:word|wd)\s+["']?([^\s"'\[\]-][^\s"'\[\]]*)`, min: 4, prev: notWord,
		source: "a password given as a flag's separate argument (docker login --password P, and the many CLIs that take --password VALUE)"},
	{kind: "secret-assignment", keywords: []string{"--token", "--api-key", "--apikey", "--auth-token", "--access-token", "--secret"}, window: shortWindow, chosen: true,
		pattern: `--(?:token|api-?key|auth-token|access-token|secret)\s+["']?([A-Za-z0-9+/=._~-]+)`, min: 16, check: randomLooking, prev: notWord,
		source: "a token given as a flag's separate argument (kubectl --token T, heroku --api-key K, gh --token T)"},
	{kind: "password", keywords: []string{"password", "passwd", "pwd"}, window: shortWindow, chosen: true,
		pattern: `(?i)(?:password|passwd|pwd)\\?["']?\s*[:=]\s*(?:"([^"\s\[\]]+)"|'([^'\s\[\]]+)'|\\"([^"\s\[\]\\]+)\\"|\\'([^'\s\[\]\\]+)\\'|([^\s"'&;,\[\]]+))`, min: 4,
		source: "assignments such as PGPASSWORD=…, MYSQL_PWD=…, --password=…, \"password\": \"…\""},
	{kind: "secret-assignment", keywords: []string{"secret", "token", "api_key", "apikey", "access_key", "accesskey", "private_key", "privatekey"}, window: shortWindow, chosen: true,
		pattern: `(?i)(?:secret|token|api_?key|access_?key|private_?key)[A-Za-z0-9_]*\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9+/=._~-]+)`, min: 16, check: randomLooking,
		source: "assignments of a *_SECRET, *_TOKEN, *_API_KEY … variable (the shape secret scanners call generic-api-key)"},
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func notWord(c byte) bool { return !isWord(c) }

func notClientSecret(c byte) bool {
	return !isWord(c) && c != '~' && c != '.' && c != '-'
}

// tokenLike tells an issued token after "Bearer" or "Authorization:"
// from a word of prose: it has a digit, or it is long and of mixed case.
func tokenLike(v string) bool {
	if strings.ContainsAny(v, "0123456789") {
		return true
	}
	upper, lower := false, false
	for i := 0; i < len(v); i++ {
		upper = upper || v[i] >= 'A' && v[i] <= 'Z'
		lower = lower || v[i] >= 'a' && v[i] <= 'z'
	}
	return len(v) >= 16 && upper && lower
}

// basicCredentials accepts the base64 of "user:password" and nothing
// else, so "basic usage" in prose stays.
func basicCredentials(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	if err != nil || len(b) < 2 {
		return false
	}
	colon := false
	for _, c := range b {
		switch {
		case c == ':':
			colon = true
		case c < 0x20 || c == 0x7f:
			return false
		}
	}
	return colon
}

// userPassword drops what -u carries that is not user:password: a uid:gid
// pair (docker run -u 1000:1000) or a URL (redis-cli -u redis://…, whose
// own password the url-password shape finds).
func userPassword(v string) bool {
	if strings.HasPrefix(v, "//") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return true
		}
	}
	return false
}

// randomLooking is the bar for a value assigned to a secret-named
// variable: letters and digits both, so max_tokens=4096 or
// token_type=access_token_value stay readable.
func randomLooking(v string) bool {
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}
