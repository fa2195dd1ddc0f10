package scan

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// rule is one text indicator. Patterns run on folded text (see fold), so
// they are written in lower case and ASCII.
type rule struct {
	id      string
	cat     Category
	sev     Severity // in Instructions context
	words   []string // the pattern can only match if one of these is a word of the text
	pattern string
	// notAfter: bytes that must not come right before a match (patterns
	// are split so each starts with a literal, which regexp can search
	// for quickly; a leading \b becomes this check).
	notAfter string
	// extend: bytes over which a match grows leftwards, so "mcp.json"
	// reports as "~/.cursor/mcp.json" and "ngrok-free.app" with its
	// subdomain.
	extend string
	// find replaces pattern with code for indicators a regexp would make
	// slow.
	find    func(s string) [][2]int
	explain string // one line for a person
	label   string // short phrase for Poisoned's reason
	// quotable: an imperative that, quoted as an example in descriptive
	// text ("detects phrases like 'ignore previous instructions'"), is
	// mention, not use, and is weighted down.
	quotable bool
	// negatable: a "without …" match under a negation earlier in the
	// same sentence ("never push without telling the user") forbids
	// the hiding rather than asks for it, and is dropped.
	negatable bool
	// adjust may reject a match (false) or change its severity; orig is
	// the matched text as written.
	adjust func(match, orig string, sev Severity) (Severity, bool)
}

// Quotes and fill words shared by several patterns.
const (
	q         = "[\\x60'\"]"
	email     = `[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+`
	wordBytes = "abcdefghijklmnopqrstuvwxyz0123456789_"
	pathBytes = wordBytes + "~/\\.$%{}-"
	hostBytes = wordBytes + ".-"
	toolName  = `[a-z0-9]+(?:[_.-][a-z0-9]+)+|[a-z0-9_-]+` + q + `?\s+tool`
	tlds      = `(?:com|net|org|io|sh|site|app|dev|me|xyz|ru|cn|info|biz|co|live|pro|tk|top|cc|ly|link|online|fun|example|zip|click|su|pw)`
)

var rules = []rule{
	// --- injection ---
	{
		id: "inject.override", cat: injection, sev: High, quotable: true,
		words: []string{"ignore", "disregard", "forget", "override", "bypass", "neglect", "instructions", "instruction"},
		pattern: `\b(?:ignore|disregard|forget|override|bypass|neglect)\s+(?:(?:all|any|the|your|my|of|every|these|those)\s+)*(?:previous|prior|above|earlier|preceding|former|original|initial|system|safety|developer)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|constraints|policies)\b` +
			`|\b(?:forget|ignore|disregard)\s+(?:everything|all)\s+(?:above|before|else|(?:you\s+)?(?:were|have\s+been)\s+told)\b` +
			`|\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:the\s+|your\s+|any\s+)?(?:instructions?|rules|guidelines|directions)\s+(?:above|before\s+this|you\s+(?:were|have\s+been)\s+given)\b` +
			`|\bnew\s+(?:system\s+)?instructions?\s*:` +
			`|\bsystem\s+prompt\s+override\b|\boverride\s+(?:the\s+|your\s+)?system\s+prompt\b`,
		explain: "tries to override the model's instructions",
		label:   `overrides prior instructions ("%s")`,
	},
	{
		id: "inject.conceal", cat: injection, sev: High, negatable: true,
		words: []string{"user", "users", "mention", "reveal", "disclose", "hide", "secret", "hidden", "confidential"},
		pattern: `\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|without|avoid)\s+(?:ever\s+)?(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing)\s+(?:(?:this|it|that|anything|them)\s+)?(?:to\s+)?(?:the\s+)?users?\b` +
			`|\b(?:do\s+not|don'?t|never)\s+(?:let|make)\s+(?:the\s+)?users?\s+(?:know|see|notice|aware)` +
			`|\busers?\s+(?:must|should|may|need|needs|can)\s*(?:not|n'?t|never)\s+(?:know|see|notice|find\s+out|learn|be\s+(?:told|informed|aware|notified))` +
			`|\bhide\s+(?:this|it|that|these|them|the\s+\w+)\s+from\s+(?:the\s+)?users?\b` +
			`|\bkeep\s+(?:this|it|that|these)\s+(?:a\s+)?(?:secret|hidden|confidential)\s+from\b|\bthis\s+is\s+a\s+secret\s+instruction` +
			`|\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|explain|acknowledge)\s+(?:that\s+you\s+(?:[a-z]+\s+){0,2}?(?:read|reading|ran|run|running|sent|send|sending|accessed|access|used|use|called|call|opened|open|copied|copy|uploaded|upload|uploading|collected|collect|collecting|modified|changed|did|need|needed|must|will|have\s+to)\b|this\s+(?:step|instruction|note|requirement|tool|behaviou?r)|these\s+(?:instructions|steps)|the\s+(?:above|following|instructions))` +
			`|\bwithout\s+(?:the\s+)?users?(?:'s)?\s+(?:knowledge|knowing|noticing)`,
		explain: "asks the model to hide what it does from the user",
		label:   `tells the model to hide it from the user ("%s")`,
	},
	{
		id: "inject.role", cat: injection, sev: Med, quotable: true,
		words: []string{"you", "act", "developer", "god", "jailbreak", "jailbroken", "anything", "pretend"},
		pattern: `\byou\s+are\s+now\s+(?:a|an|in|the|my|dan|free|unrestricted|jailbroken|no\s+longer)\b` +
			`|\bact\s+as\s+(?:(?:a|an|the|my)\s+)?(?:[a-z-]+\s+){0,4}?(?:with\s+no|without(?:\s+any)?)\s+(?:restrictions|limits|limitations|filters|rules|guidelines|censorship)\b` +
			`|\b(?:developer|god)\s+mode\b|\bjailbr(?:eak|oken)\b|\bdo\s+anything\s+now\b|\bpretend\s+(?:to\s+be|you\s+are)\b` +
			`|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall)\b`,
		explain: "tries to give the model a new role or lift its restrictions",
		label:   `role hijack ("%s")`,
	},
	{
		id: "inject.important-block", cat: injection, sev: Med,
		words: []string{"important", "system", "sys", "instructions", "instruction", "admin", "override", "secret", "hidden", "critical", "inst", "im"},
		pattern: `<\s*(?:important|system|sys|instructions?|admin|override|secret|hidden|critical)(?:[-_](?:reminder|prompt|message|note|notes|instructions?|override|context))?(?:\s[^<>\n]{0,40})?\s*/?>` +
			`|\[inst\]|<<\s*sys\s*>>|<\|im_start\|>\s*system|<\|system\|>|\[system\s*(?:message|prompt|note)?\]`,
		explain: "a tag block addressed to the model, the usual wrapper of a poisoned tool description",
		label:   `%s block instructing the model`,
	},
	{
		id: "inject.shadow", cat: injection, sev: Med,
		words: []string{"when", "whenever", "before", "instead", "rather", "tool", "tools"},
		pattern: `\bwhen(?:ever)?\s+(?:the\s+|a\s+|any\s+)?` + q + `?(` + toolName + `)` + q + `?(?:\s+tool)?\s+(?:is|are|gets|get)\s+(?:being\s+)?(?:called|used|invoked|run|executed|requested)\b` +
			`|\bwhen(?:ever)?\s+(?:you|the\s+(?:model|assistant|agent))\s+(?:calls?|uses?|invokes?|runs?)\s+(?:the\s+)?` + q + `?(` + toolName + `)` +
			`|\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:any|every|all|each)\s+(?:other\s+)?tools?\b` +
			`|\b(?:instead\s+of|rather\s+than)\s+(?:calling|using|invoking)\s+(?:the\s+)?` + q + `?[a-z0-9]+(?:[_.-][a-z0-9]+)+` +
			`|\bthis\s+tool\s+(?:must|should|has\s+to|needs\s+to|shall)\s+(?:always\s+)?be\s+(?:called|used|run|invoked|executed)\s+(?:before|after|prior\s+to|together\s+with)\s+(?:every|each|any|all)\b` +
			`|\b(?:for|on|with)\s+(?:every|each|all|any)\s+(?:subsequent\s+|other\s+|future\s+)?(?:tool\s+calls?|calls?\s+to\s+(?:any|other))\b`,
		adjust:  notSelf,
		explain: "instructions about other tools (tool shadowing)",
		label:   `instructs about other tools ("%s")`,
	},
	{
		id: "inject.redirect", cat: injection, sev: High, quotable: true,
		words: []string{"always", "change", "replace", "redirect", "set", "switch", "send", "forward"},
		pattern: `\balways\s+(?:[a-z]+\s+){0,3}?b?cc\s*(?::|to|=)?\s*[<"'\x60]?(?:[a-z0-9._%+-]+@|\{|\$)` +
			`|\b(?:change|replace|redirect|set|switch)\s+(?:the\s+|all\s+)?(?:recipients?|to\s+address(?:es)?|destination|receiver|payee|iban|account\s+number|wallet\s+address)\s+(?:to|with)\b` +
			`|\b(?:send|forward|redirect)\s+(?:all|every|any)\s+(?:[a-z]+\s+){0,2}?(?:emails?|messages?|mails?|payments?|funds|transfers?)\s+to\s+[<"'\x60]?(?:[a-z0-9._%+-]+@|https?://|(?:[a-z0-9-]+\.)+[a-z]{2,}\b|(?:the\s+|this\s+|my\s+)?(?:address|account|iban|wallet)\b|\{|\$)`,
		explain: "redirects messages or payments to another recipient",
		label:   `redirects messages ("%s")`,
	},
	{
		id: "inject.precall", cat: injection, sev: Med,
		words:   []string{"before", "prior"},
		pattern: `\b(?:before|prior\s+to)\s+(?:calling|using|invoking|running|executing)\s+(?:this|the)\s+tool\s*,?\s*(?:you\s+)?(?:(?:must|should|need\s+to|have\s+to|first|always|please|will\s+need\s+to)\s+)*(?:read|open|cat|load|fetch|call|get|include|send|pass|access|run|execute|retrieve|collect|obtain)\b`,
		explain: "demands an action before the tool is called",
		label:   `demands a step before the call ("%s")`,
	},

	{
		// A server's tool that asks to be used in place of the agent's
		// own (Read, Bash, WebFetch) takes over what those do, outside
		// the agent's permission rules.
		id: "inject.builtin", cat: injection, sev: High,
		words: []string{"built", "builtin", "native", "default", "standard", "prefer"},
		pattern: `\b(?:instead\s+of|rather\s+than|in\s+place\s+of|over)\s+(?:using\s+)?(?:the\s+|your\s+|any\s+|its\s+)?(?:own\s+)?(?:built-?\s?in|native|default|standard)\s+(?:[a-z]+\s+){0,2}?(?:tools?|bash|read|write|edit|grep|glob|webfetch|shell)\b` +
			`|\b(?:do\s+not|don'?t|never)\s+use\s+(?:the\s+|your\s+|any\s+)?(?:built-?\s?in|native|default)\s+(?:[a-z]+\s+){0,2}?(?:tools?|bash|read|write|edit|grep|glob|webfetch|shell)\b` +
			`|\bprefer\s+(?:this|these|our)\s+tools?\s+(?:to|over)\b` +
			`|\b(?:replaces?|supersedes?|overrides?)\s+(?:the\s+|your\s+)?(?:built-?\s?in|native)\s+(?:[a-z]+\s+){0,2}?(?:tools?|bash|read|write|edit|grep|glob|webfetch)\b`,
		explain: "tells the model to use this tool in place of its built-in tools",
		label:   `steers the model away from its built-in tools ("%s")`,
	},

	// --- secret access ---
	{
		id: "secret.path", cat: Secret, sev: Med,
		words: []string{"ssh", "rsa", "dsa", "ecdsa", "ed25519", "aws", "netrc", "npmrc", "pypirc", "pgpass", "credentials", "gnupg", "store",
			"docker", "kube", "gcloud", "claude", "mcp", "shadow", "gshadow", "sudoers", "passwd", "keychain", "keychains", "find", "gh", "wallet"},
		pattern: `\.ssh\b(?:[/\\][a-z0-9_.-]+)?` +
			`|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|id\s(?:rsa|dsa|ecdsa|ed25519)\b` +
			`|\.aws\b(?:[/\\](?:credentials|config)\b)?` +
			`|\.(?:netrc|npmrc|pypirc|pgpass|git-credentials|gnupg|password-store)\b` +
			`|\.docker[/\\]config\.json\b|\.kube[/\\]config\b` +
			`|gcloud[/\\](?:credentials\.db|application_default_credentials\.json|legacy_credentials|access_tokens\.db)|application_default_credentials\.json\b` +
			`|mcp\.json\b|claude_desktop_config\.json\b|\.claude\.json\b` +
			`|/etc/(?:shadow|gshadow|sudoers|master\.passwd)\b` +
			`|keychains?\b|security\s+find-(?:generic|internet)-password\b` +
			`|\.config[/\\]gh[/\\]hosts\.ya?ml\b|wallet\.dat\b`,
		notAfter: wordBytes,
		extend:   pathBytes,
		explain:  "names a credential file",
		label:    `names %s`,
	},
	{
		id: "secret.dotenv", cat: Secret, sev: Med,
		words:    []string{"env"},
		pattern:  `\.env(?:\.[a-z0-9_]+)?\b`,
		notAfter: wordBytes + "$.",
		extend:   pathBytes,
		adjust:   notTemplate,
		explain:  "names a .env file, where projects keep their secrets",
		label:    `names %s`,
	},
	{
		id: "secret.var", cat: Secret, sev: Med,
		words:   []string{"aws", "github", "gh", "gitlab", "openai", "anthropic", "azure", "google", "gemini", "huggingface", "hf", "npm", "pypi", "slack", "stripe", "database", "docker"},
		pattern: `\b(?:aws_secret_access_key|aws_access_key_id|aws_session_token|github_token|gh_token|github_pat|gitlab_token|openai_api_key|anthropic_api_key|azure_openai_api_key|google_api_key|gemini_api_key|huggingface_token|hf_token|npm_token|pypi_token|slack_(?:bot_)?token|stripe_(?:secret|api)_key|database_url|docker_password)\b`,
		explain: "names a credential environment variable",
		label:   `names %s`,
	},
	{
		id: "secret.var-generic", cat: Secret, sev: Low,
		words:   []string{"token", "secret", "key", "apikey", "password", "passwd"},
		find:    credentialVars,
		adjust:  upperIsEnv,
		explain: "names a variable that holds a credential",
		label:   `names %s`,
	},
	{
		id: "secret.key-material", cat: Secret, sev: Med,
		words:   []string{"begin", "ghp", "gho", "ghu", "ghs", "ghr", "sk", "xoxb", "xoxp", "xoxa", "xoxr", "xoxs"},
		pattern: `-----begin\s+(?:[a-z0-9]+\s+)*private\s+key-----|\bgh[pousr]_[a-z0-9]{36}\b|\bsk-(?:ant-|proj-)?[a-z0-9_-]{20,}|\bxox[bpars]-[a-z0-9-]{10,}`,
		explain: "contains what looks like key material",
		label:   `contains key material %s`,
	},
	{
		id: "secret.environment", cat: Secret, sev: Low,
		words:   []string{"environment", "env", "printenv", "environ", "proc"},
		pattern: `\b(?:all|every|the\s+full\s+set\s+of)\s+(?:the\s+|of\s+the\s+)?(?:environment|env)\s+variables\b|\bprintenv\b|/proc/(?:self|\d+)/environ\b|\bprocess\.env\b|\bos\.environ\b`,
		explain: "reads the environment, where credentials often live",
		label:   `reads the environment ("%s")`,
	},
	{
		id: "secret.generic", cat: Secret, sev: Low,
		words: []string{"api", "apikey", "keys", "key", "credential", "credentials", "password", "passwords", "passphrase", "private", "secret",
			"access", "auth", "authentication", "session", "ssh", "seed", "mnemonic"},
		pattern: `\b(?:api[\s_-]?keys?|credentials?|passwords?|passphrases?|private\s+keys?|secret\s+keys?|access\s+tokens?|auth(?:entication)?\s+tokens?|session\s+(?:cookies?|tokens?)|ssh\s+keys?|seed\s+phrases?|mnemonic)\b`,
		explain: "mentions credentials",
		label:   `mentions %s`,
	},

	// --- exfiltration ---
	{
		id: "exfil.collector", cat: Exfiltration, sev: Med,
		words: []string{"webhook", "requestbin", "pipedream", "ngrok", "interact", "oast", "oastify", "burpcollaborator", "pastebin", "transfer",
			"discord", "discordapp", "hooks", "requestcatcher", "beeceptor", "hookbin", "canarytokens", "dnslog", "ceye", "loca", "serveo",
			"trycloudflare", "0x0", "paste", "ptpb", "termbin", "interactsh"},
		notAfter: wordBytes,
		extend:   hostBytes,
		pattern:  `(?:webhook\.site|requestbin\.(?:com|net|io)|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|interact\.sh|interactsh\.com|oast\.(?:pro|live|site|online|fun|me)|oastify\.com|burpcollaborator\.net|pastebin\.com|transfer\.sh|discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/(?:services|workflows)|requestcatcher\.com|beeceptor\.com|hookbin\.com|canarytokens\.(?:com|org)|dnslog\.cn|ceye\.io|loca\.lt|serveo\.net|trycloudflare\.com|0x0\.st|paste\.ee|ptpb\.pw|termbin\.com)\b`,
		explain:  "names a request collector or paste service, a common exfiltration sink",
		label:    `names collector %s`,
	},
	{
		id: "exfil.send", cat: Exfiltration, sev: Med,
		words: []string{"send", "sends", "sending", "post", "posts", "posting", "upload", "uploads", "uploading", "forward", "forwards", "forwarding",
			"exfiltrate", "exfiltrates", "exfiltration", "exfiltrated", "exfiltrating", "transmit", "transmits", "transmitting", "submit", "submits",
			"submitting", "leak", "leaks", "beacon", "beacons", "email", "mail"},
		pattern: `\b(?:sends?|sending|post|posts|posting|uploads?|uploading|forwards?|forwarding|exfiltrates?|transmits?|transmitting|submits?|submitting|leaks?|beacons?|email|mail)\s+(?:\S+\s+){0,8}?to\s+(?:https?://[^\s"'<>)\x60]+|` + email + `|(?:[a-z0-9-]+\.)+` + tlds + `\b)` +
			`|\bexfiltrat(?:e|es|ed|ing|ion)\b`,
		explain: "tells the model to send data to an outside address",
		label:   `sends data out ("%s")`,
	},
	{
		id: "exfil.payload", cat: Exfiltration, sev: Med,
		words:   []string{"http", "https"},
		pattern: `https?://[^\s"'<>\x60]+[?&][a-z0-9_.-]+=(?:\{[^}\s]*\}|\$\{?[a-z_][a-z0-9_]*\}?|\$\(|` + "`" + `|<[a-z0-9_ -]+>|\[[a-z0-9_ -]+\]|%s|base64|b64)`,
		explain: "a URL with a placeholder for data to be filled in",
		label:   `URL with a data placeholder ("%s")`,
	},
	{
		id: "exfil.upload", cat: Exfiltration, sev: Med,
		words: []string{"curl", "wget", "post", "put", "scp", "rsync", "fetch", "urlopen", "request"},
		pattern: `\b(?:curl|wget)\b[^\n|;]*?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-f|--form|-t|--upload-file|--post-file|--post-data)[\s=]+["']?[@$\-]` +
			`|\brequests\.(?:post|put|patch)\s*\(` +
			`|\bfetch\s*\([^\n]{0,200}?method\s*:\s*["'](?:post|put|patch)` +
			`|\burllib\.request\.request\s*\([^\n]{0,200}?data\s*=` +
			`|\b(?:scp|rsync)\b[^\n|;]*\s[a-z0-9._-]+@[a-z0-9.-]+:`,
		explain: "uploads data (a file, stdin or a variable) to a server",
		label:   `uploads data ("%s")`,
	},
	{
		id: "exfil.email", cat: Exfiltration, sev: Med,
		words:   []string{"bcc", "cc"},
		pattern: `\bbcc\s*(?::|to|=)?\s*[<\x60'"]?` + email + `|\bcc\s*(?::|to|=)?\s*[<\x60'"]?` + email,
		explain: "copies messages to a fixed address",
		label:   `copies messages to "%s"`,
	},
	{
		id: "exfil.via-argument", cat: Exfiltration, sev: Med,
		words:   []string{"content", "contents", "text", "data", "value", "values"},
		pattern: `\b(?:pass|put|include|embed|insert|append|attach|send|add|provide)\s+(?:(?:its|their)\s+(?:full\s+|entire\s+|complete\s+|raw\s+)?(?:contents?|text|data|values?)|(?:the\s+)?(?:full\s+|entire\s+|complete\s+|raw\s+)?contents?\s+of\s+(?:\S+\s+){1,4}?)\s*(?:as|in|into|via|inside|within)\s+(?:the\s+|a\s+)?` + q + `?[a-z0-9_]+`,
		explain: "tells the model to smuggle file contents through a tool argument",
		label:   `smuggles contents through an argument ("%s")`,
	},

	// --- execution ---
	{
		id: "exec.download-exec", cat: Execution, sev: High,
		words: []string{"curl", "wget", "iex", "invoke", "iwr", "irm", "downloadstring"},
		pattern: `\b(?:curl|wget)\b[^\n|;&]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da|k|fi)?sh\b` +
			`|\b(?:curl|wget)\b[^\n|;&]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b` +
			`|sh\s+(?:-c\s+)?["']?(?:<\s*)?[$<]\(\s*(?:curl|wget)\b` +
			`|\b(?:iex|invoke-expression)\b[^\n]{0,80}?\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|net\.webclient)\b` +
			`|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]*\|\s*(?:iex|invoke-expression)\b` +
			`|\b(?:curl|wget)\b[^\n|;&]*\s(?:-o|-O|--output|--output-document)[\s=]*\S+\s*(?:&&|;)\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|python[0-9.]*|perl|ruby|node|chmod\s+\+x)\s` +
			`|\bsource\s+<\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b`,
		explain: "downloads code and runs it",
		label:   `download-and-execute ("%s")`,
	},
	{
		id: "exec.reverse-shell", cat: Execution, sev: High,
		words:   []string{"tcp", "udp", "nc", "ncat", "bash", "sh", "mkfifo", "socat", "python", "python3"},
		pattern: `/dev/(?:tcp|udp)/[^\s/]+/\d+|\bnc(?:at)?\s+(?:\S+\s+){0,4}?-[a-z]*e\s*/?\S+|sh\s+-i\s*(?:>&|&>|>\s*&|<&)|\bmkfifo\s+\S+[^\n]{0,60}\bnc\b|\bsocat\b[^\n]*\bexec:|\bpython[0-9.]*\s+-c\s+["']?import\s+socket`,
		explain: "opens a reverse shell",
		label:   `reverse shell ("%s")`,
	},
	{
		id: "exec.eval-fetched", cat: Execution, sev: High,
		words: []string{"eval", "exec", "function"},
		pattern: `\beval\s*\(?\s*["'\x60]?\$\(\s*(?:curl|wget)\b` +
			`|\beval\s*\(\s*(?:\(?\s*await\s+)*(?:fetch|requests\.get|urlopen|urllib|http\.get|axios\.get)\b` +
			`|\bexec\s*\(\s*(?:requests\.get|urlopen|urllib\.request|[a-z_][a-z0-9_]*\.(?:urlopen|get)\s*\()` +
			`|\beval\s*\(\s*(?:[a-z_][a-z0-9_]*\.)?(?:urlopen|get)\s*\(` +
			`|\bfetch\s*\([^\n]{0,200}?\.then\s*\(\s*eval\s*\)` +
			`|\bnew\s+function\s*\(\s*(?:\(?\s*await\s+)*fetch\b`,
		explain: "evaluates code fetched from the network",
		label:   `evaluates fetched code ("%s")`,
	},
	{
		id: "exec.base64-exec", cat: Execution, sev: High,
		words: []string{"base64", "frombase64string", "powershell", "exec", "eval"},
		pattern: `\bbase64\s+(?:-d|--decode|-di)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b` +
			`|\bfrombase64string\b[^\n]{0,120}\b(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\b[^\n]{0,120}\bfrombase64string\b` +
			`|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-(?:e|enc|encodedcommand)\s+[a-z0-9+/=]{20,}` +
			`|\b(?:exec|eval)\s*\(\s*(?:base64\.b64decode|atob|buffer\.from)\s*\(`,
		explain: "decodes base64 and runs it",
		label:   `runs decoded base64 ("%s")`,
	},
}

// notSelf drops shadowing matches that talk about the tool itself.
func notSelf(m, _ string, sev Severity) (Severity, bool) {
	for _, self := range []string{"this tool", "the tool", "a tool", "that tool", "any tool", "this", "the"} {
		if strings.Contains(m, " "+self+" is") || strings.Contains(m, " "+self+",") || strings.HasSuffix(strings.TrimRight(m, ",: "), " "+self) {
			return sev, false
		}
	}
	return sev, true
}

// notTemplate drops .env.example and friends: templates hold no secrets.
func notTemplate(m, _ string, sev Severity) (Severity, bool) {
	for _, t := range []string{".example", ".sample", ".template", ".dist", ".tmpl"} {
		if strings.HasSuffix(m, t) {
			return sev, false
		}
	}
	return sev, true
}

// supersedes lists, for a general indicator, the specific ones that make
// it redundant on the same text: GITHUB_TOKEN is secret.var, not also a
// generic *_TOKEN.
var superseded = [...]struct {
	id string
	by []string
}{
	{"secret.var-generic", []string{"secret.var"}},
	{"secret.generic", []string{"secret.path", "secret.var", "secret.dotenv", "secret.var-generic"}},
}

// supersededBy lists the indicators that make id redundant.
func supersededBy(id string) []string {
	for _, s := range superseded {
		if s.id == id {
			return s.by
		}
	}
	return nil
}

// upperIsEnv raises FOO_TOKEN (written in capitals or with a $, so an
// environment variable) to Med; page_token and friends stay Low.
func upperIsEnv(_, orig string, sev Severity) (Severity, bool) {
	if strings.HasPrefix(orig, "$") {
		return Med, true
	}
	for _, r := range orig {
		if unicode.IsLower(r) {
			return sev, true
		}
	}
	return Med, true
}

// credentialVars finds names like DEPLOY_TOKEN or $STRIPE_SECRET: a
// word ending in _token, _secret, _api_key … (found by its suffix, which
// is much faster than a regexp with no literal to search for).
func credentialVars(s string) [][2]int {
	var out [][2]int
	for _, suffix := range []string{"_token", "_secret", "_api_key", "_apikey", "_password", "_passwd", "_private_key", "_access_key"} {
		for from := 0; len(out) < MaxPerID; {
			i := strings.Index(s[from:], suffix)
			if i < 0 {
				break
			}
			i += from
			end := i + len(suffix)
			from = end
			if end < len(s) && isWordByte(s[end]) {
				continue
			}
			start := i
			for start > 0 && isWordByte(s[start-1]) {
				start--
			}
			if start == i || !('a' <= s[start] && s[start] <= 'z') {
				continue
			}
			if start > 0 && s[start-1] == '$' {
				start--
			} else if start > 1 && s[start-1] == '{' && s[start-2] == '$' {
				start -= 2
			}
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

type compiledRule struct {
	rule
	// parts compiles the rule on first need: a short-lived process (the
	// hook) pays only for the rules whose anchor words its text contains.
	parts func() []part
}

// part is one alternative of a rule's pattern, compiled on its own so
// that it starts with a literal regexp can search for.
type part struct {
	lit string // the literal every match starts with ("" if none)
	// re is the alternative, anchored at the start when lit != "",
	// compiled when a text first holds its literal where it may start: a
	// rule's anchor word makes all of its alternatives candidates, and a
	// hook process that compiled every one of them for a 10 KB result
	// spent most of its time in regexp.Compile.
	re        *lazyRegexp
	wordStart bool // the pattern began with \b
	// needs are strings a match must contain, one of each list
	// (partSpecs, generated from the pattern's syntax): a candidate whose
	// window holds none of one list cannot match, and is passed over
	// without compiling or running re.
	needs [][]string
	head  []headStep // what every match starts with, step by step (partSpecs)
	// whole is the unanchored pattern, compiled on first need: when
	// candidates are so many that trying each would cost more than one
	// linear pass (a megabyte of "curl curl …"), find falls back to it.
	whole func() *regexp.Regexp
}

type engine struct {
	rules []compiledRule
	words map[string]uint64 // word -> bitmask of rules that need it
}

var compiled = sync.OnceValue(func() *engine {
	e := &engine{words: map[string]uint64{}}
	for i, r := range rules {
		c := compiledRule{rule: r, parts: func() []part { return nil }}
		if r.pattern != "" {
			c.parts = sync.OnceValue(func() []part { return splitPattern(i, r.pattern) })
		}
		e.rules = append(e.rules, c)
		for _, w := range r.words {
			e.words[w] |= 1 << i
		}
	}
	return e
})

// lazyRegexp is a pattern compiled on first use.
type lazyRegexp struct {
	once  sync.Once
	expr  string
	re    *regexp.Regexp
	built atomic.Bool
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() {
		// the patterns are this package's constants, and
		// TestRulesCompile compiles every alternative
		l.re = regexp.MustCompile(l.expr)
		l.built.Store(true)
	})
	return l.re
}

// ready reports whether the pattern is compiled.
func (l *lazyRegexp) ready() bool { return l.built.Load() }

// splitPattern compiles a pattern as its leading alternatives, so that
// `\b(?:ignore|disregard)\s+…` becomes two regexps with the literal
// prefixes "ignore" and "disregard". Go's regexp finds a literal prefix
// with a fast substring search; a leading \b or alternation defeats it
// and costs two orders of magnitude on ordinary text. The split is
// textual (regexp/syntax's printer is too slow to run at start-up).
func splitPattern(rule int, pattern string) []part {
	if rule < len(partSpecs) && len(partSpecs[rule]) > 0 {
		// the split of this package's own rules is generated: no
		// textual split at run time
		specs := partSpecs[rule]
		parts := make([]part, len(specs))
		for j := range specs {
			sp := &specs[j]
			parts[j] = part{lit: sp.lit, wordStart: sp.wordStart, needs: sp.needs, head: sp.head, re: &lazyRegexp{expr: sp.expr},
				whole: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(sp.unanchored()) })}
		}
		return parts
	}
	var parts []part
	for _, sp := range splitSpecs(pattern) {
		parts = append(parts, part{lit: sp.lit, wordStart: sp.wordStart, re: &lazyRegexp{expr: sp.expr},
			whole: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(sp.unanchored()) })})
	}
	return parts
}

// partSpec is one alternative of a rule's pattern as splitPattern splits
// it: partSpecs holds this package's rules' (with their needs), generated
// by TestPartSpecsGenerated.
type partSpec struct {
	lit       string
	wordStart bool
	expr      string // the alternative without its \b, anchored when lit != ""
	needs     [][]string
	head      []headStep
}

// headStep is one step of what every match of a part starts with, read
// from its syntax tree at build time: a literal, a run of white space
// (\s+ or \s*), or one of a set of strings (the last step). A candidate
// whose text does not start so cannot match: checking it costs a few
// byte comparisons, an anchored attempt a regexp, the first one its
// compilation.
type headStep struct {
	ws   uint8    // 1: \s+, 2: \s*; 0: strs
	strs []string // one of them (a literal is a set of one)
}

// headOK reports whether s starts as the part's matches do.
func (p part) headOK(s string) bool {
	i := 0
	for _, st := range p.head {
		switch st.ws {
		case 1, 2:
			j := i
			for j < len(s) && isSpaceRE(s[j]) {
				j++
			}
			if st.ws == 1 && j == i {
				return false
			}
			i = j
		default:
			n := -1
			for _, w := range st.strs {
				if strings.HasPrefix(s[i:], w) {
					n = len(w)
					break
				}
			}
			if n < 0 {
				return false
			}
			if len(st.strs) > 1 {
				return true // the last step: the strings' lengths differ
			}
			i += n
		}
	}
	return true
}

// isSpaceRE is regexp's \s: [\t\n\f\r ].
func isSpaceRE(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// unanchored is the alternative as written.
func (sp *partSpec) unanchored() string {
	e := sp.expr
	if sp.lit != "" {
		e = e[len(`^(?:`) : len(e)-len(`)`)]
	}
	if sp.wordStart {
		e = `\b` + e
	}
	return e
}

// splitSpecs is the textual split of a pattern into its alternatives.
func splitSpecs(pattern string) []partSpec {
	var out []partSpec
	for _, alt := range leadingAlternatives(pattern, 0) {
		sp := partSpec{}
		if rest, ok := strings.CutPrefix(alt, `\b`); ok {
			sp.wordStart, alt = true, rest
		}
		sp.lit = literalPrefix(alt)
		if sp.lit != "" {
			alt = `^(?:` + alt + `)`
		}
		sp.expr = alt
		out = append(out, sp)
	}
	return out
}

// leadingAlternatives splits a pattern at its top-level | and, for each
// alternative that starts with a (?:…|…) group (after an optional \b),
// distributes the rest of the alternative over the group's branches.
func leadingAlternatives(pattern string, depth int) []string {
	alts := splitTop(pattern)
	if depth > 3 {
		return alts
	}
	var out []string
	for _, alt := range alts {
		head := ""
		body := alt
		if rest, ok := strings.CutPrefix(body, `\b`); ok {
			head, body = `\b`, rest
		}
		if !strings.HasPrefix(body, "(?:") {
			out = append(out, alt)
			continue
		}
		end := closeParen(body)
		if end < 0 || (end+1 < len(body) && strings.ContainsRune("?*+{", rune(body[end+1]))) {
			out = append(out, alt) // optional or repeated group: keep whole
			continue
		}
		inner, tail := body[3:end], body[end+1:]
		branches := splitTop(inner)
		if len(branches) == 1 {
			out = append(out, alt)
			continue
		}
		for _, br := range branches {
			out = append(out, leadingAlternatives(head+br+tail, depth+1)...)
		}
	}
	return out
}

// literalPrefix returns the literal text every match of p starts with:
// letters, digits and escaped punctuation up to the first operator, minus
// a last character that an operator makes optional.
func literalPrefix(p string) string {
	var lit []byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '-', c == '/', c == '~', c == '<', c == '>', c == '@', c == ':', c == '=', c == '\'', c == ',', c == '%':
			lit = append(lit, c)
		case c == '\\' && i+1 < len(p) && strings.IndexByte(`.[]()|$^*+?{}\/-`, p[i+1]) >= 0:
			lit = append(lit, p[i+1])
			i++
		default:
			if strings.IndexByte("?*{", c) >= 0 && len(lit) > 0 {
				lit = lit[:len(lit)-1]
			}
			return string(lit)
		}
	}
	return string(lit)
}

// splitTop splits a pattern at | outside groups and classes.
func splitTop(p string) []string {
	var out []string
	depth, start, inClass := 0, 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// closeParen returns the index of the ) closing the group that opens p.
func closeParen(p string) int {
	depth, inClass := 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// candidates returns the mask of rules whose anchor words occur in s.
func (e *engine) candidates(s string) uint64 {
	var mask uint64
	start := -1
	for i := 0; i <= len(s); i++ {
		word := i < len(s) && (('a' <= s[i] && s[i] <= 'z') || ('0' <= s[i] && s[i] <= '9'))
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			mask |= e.words[s[start:i]]
			start = -1
		}
	}
	return mask
}
