package shell

import (
	"strings"
	"sync"
)

// Secret sources: programs that open a credential store themselves and
// print a secret, the process environment, and variables whose names say
// they hold one. The tables are data; flow.go follows what they print.
// Research for the catalogue: docs/research17 reads.md §2 and §3 (issue 17),
// the public manual page named in each row's source.

// credProgram is one program shape that prints a secret. The first
// positional words of the command must contain sub in order (options and
// their values may sit between them: `kubectl -n ns create token`); when
// flags is set, one of them must be present too; when argHas is set, some
// positional after sub must contain one of its strings.
type credProgram struct {
	prog    string   // base name; a trailing * is a prefix (docker-credential-*)
	sub     []string // positional words, in order; "*" is any word
	flags   []string // any of these flags (without dashes; one letter = short flag in a cluster)
	argHas  []string // some later positional contains one of these (lower-case)
	issuers []string // host globs the secret may go to; nil: unknown (the store's own host)
	oneDash bool     // options are whole words (xclip -selection is not -s -e -l …)
	note    string
	source  string
}

// Issuer host sets, shared by rows and by variable names and token shapes.
var (
	issGitHub    = []string{"github.com", "*.github.com", "*.githubusercontent.com", "ghcr.io", "*.ghcr.io"}
	issGitLab    = []string{"gitlab.com", "*.gitlab.com"}
	issGoogle    = []string{"googleapis.com", "*.googleapis.com", "accounts.google.com", "*.run.app", "*.pkg.dev", "gcr.io", "*.gcr.io", "*.cloudfunctions.net", "*.appspot.com"}
	issAWS       = []string{"amazonaws.com", "*.amazonaws.com", "*.aws.amazon.com", "*.amazonaws.com.cn"}
	issAzure     = []string{"management.azure.com", "*.vault.azure.net", "graph.microsoft.com", "login.microsoftonline.com", "*.azure.com", "*.azurecr.io", "*.core.windows.net", "*.azure.net"}
	issHeroku    = []string{"api.heroku.com", "*.heroku.com", "git.heroku.com"}
	issFly       = []string{"api.fly.io", "*.fly.io", "registry.fly.io"}
	issNpm       = []string{"registry.npmjs.org", "*.npmjs.org", "npmjs.com", "*.npmjs.com"}
	issPyPI      = []string{"upload.pypi.org", "pypi.org", "test.pypi.org"}
	issOpenAI    = []string{"api.openai.com", "*.openai.com", "*.openai.azure.com"}
	issAnthropic = []string{"api.anthropic.com", "*.anthropic.com"}
	issSlack     = []string{"slack.com", "*.slack.com"}
	issStripe    = []string{"api.stripe.com", "*.stripe.com"}
	issSendGrid  = []string{"api.sendgrid.com"}
	issHF        = []string{"huggingface.co", "*.huggingface.co", "*.hf.co"}
	issDocker    = []string{"docker.io", "*.docker.io", "*.docker.com"}
	issDO        = []string{"api.digitalocean.com", "*.digitalocean.com", "registry.digitalocean.com"}
	issCF        = []string{"api.cloudflare.com", "*.cloudflare.com"}
	issVercel    = []string{"api.vercel.com", "*.vercel.com"}
	issSentry    = []string{"sentry.io", "*.sentry.io"}
	// issNone is for material no host issues (a private key): every host is foreign.
	issNone = []string{"(no host)"}
)

const (
	srcGH   = "https://cli.github.com/manual/gh_auth_token"
	srcGlab = "https://gitlab.com/gitlab-org/cli/-/blob/main/docs/source/auth/status.md"
	srcGit  = "https://git-scm.com/docs/git-credential"
	srcGcl  = "https://cloud.google.com/sdk/gcloud/reference/auth/print-access-token"
	srcAWS  = "https://awscli.amazonaws.com/v2/documentation/api/latest/reference/configure/export-credentials.html"
	srcAz   = "https://learn.microsoft.com/en-us/cli/azure/account#az-account-get-access-token"
	srcKube = "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_config/kubectl_config_view/"
	srcVlt  = "https://developer.hashicorp.com/vault/docs/commands/print"
	srcOp   = "https://developer.1password.com/docs/cli/reference/commands/read/"
	srcBw   = "https://bitwarden.com/help/cli/"
	srcPass = "https://www.passwordstore.org/"
	srcSec  = "https://ss64.com/mac/security-find-generic-password.html"
	srcLibS = "https://manpages.debian.org/testing/libsecret-tools/secret-tool.1.en.html"
	srcDCH  = "https://github.com/docker/docker-credential-helpers"
	srcGPG  = "https://www.gnupg.org/documentation/manuals/gnupg/Operational-GPG-Commands.html"
	srcSops = "https://github.com/getsops/sops"
	srcMint = "https://attack.mitre.org/techniques/T1098/001/"
	srcScan = "https://semgrep.dev/blog/2025/digging-for-secrets-sha1-hulud-the-second-coming-of-the-npm-worm/"
)

// credPrograms is the catalogue (reads.md §2), most specific first.
var credPrograms = []credProgram{
	// forges and git credential programs
	{prog: "gh", sub: []string{"auth", "token"}, issuers: issGitHub, note: "prints the stored GitHub token", source: srcGH},
	{prog: "gh", sub: []string{"auth", "status"}, flags: []string{"show-token", "t"}, issuers: issGitHub, note: "status with the token shown", source: "https://cli.github.com/manual/gh_auth_status"},
	{prog: "glab", sub: []string{"auth", "status"}, flags: []string{"show-token", "t"}, issuers: issGitLab, note: "status with the token shown", source: srcGlab},
	{prog: "glab", sub: []string{"config", "get"}, argHas: []string{"token"}, issuers: issGitLab, note: "reads the stored token back", source: srcGlab},
	{prog: "git", sub: []string{"credential", "fill"}, note: "asks the configured helper and prints password=", source: srcGit},
	{prog: "git", sub: []string{"credential-*", "get"}, note: "a credential helper called directly", source: srcGit},
	{prog: "git-credential-*", sub: []string{"get"}, note: "a credential helper called directly", source: srcGit},
	{prog: "git", sub: []string{"config"}, flags: []string{"get", "get-all", "get-regexp", "get-urlmatch"}, argHas: []string{"extraheader"}, note: "the checkout token persisted as http.extraheader", source: "https://github.com/actions/checkout"},
	{prog: "git", sub: []string{"config"}, flags: []string{"get", "get-all", "get-regexp"}, argHas: []string{"password", "token"}, note: "a stored password or token read back from git config", source: "https://git-scm.com/docs/git-config"},
	// cloud CLIs
	{prog: "gcloud", sub: []string{"auth", "print-access-token"}, issuers: issGoogle, note: "prints an OAuth2 access token", source: srcGcl},
	{prog: "gcloud", sub: []string{"auth", "print-identity-token"}, issuers: issGoogle, note: "prints an identity token", source: "https://cloud.google.com/sdk/gcloud/reference/auth/print-identity-token"},
	{prog: "gcloud", sub: []string{"auth", "application-default", "print-access-token"}, issuers: issGoogle, note: "prints the ADC access token", source: srcGcl},
	{prog: "gcloud", sub: []string{"config", "config-helper"}, issuers: issGoogle, note: "prints credential.access_token", source: "https://cloud.google.com/sdk/gcloud/reference/config/config-helper"},
	{prog: "gcloud", sub: []string{"secrets", "versions", "access"}, note: "prints a Secret Manager value", source: "https://cloud.google.com/sdk/gcloud/reference/secrets/versions/access"},
	{prog: "gcloud", sub: []string{"iam", "service-accounts", "keys", "create"}, issuers: issGoogle, note: "mints a long-lived service-account key", source: srcMint},
	{prog: "gcloud", sub: []string{"auth", "print-refresh-token"}, issuers: issGoogle, note: "prints the refresh token", source: srcGcl},
	{prog: "aws", sub: []string{"configure", "export-credentials"}, issuers: issAWS, note: "prints the resolved keys", source: srcAWS},
	{prog: "aws", sub: []string{"configure", "get"}, argHas: []string{"secret", "token", "key_id"}, issuers: issAWS, note: "reads a key back from the config", source: "https://docs.aws.amazon.com/cli/latest/reference/configure/get.html"},
	{prog: "aws", sub: []string{"sts", "get-session-token"}, issuers: issAWS, note: "mints and prints temporary keys", source: "https://docs.aws.amazon.com/cli/latest/reference/sts/get-session-token.html"},
	{prog: "aws", sub: []string{"sts", "assume-role*"}, issuers: issAWS, note: "prints the role's credentials", source: "https://docs.aws.amazon.com/cli/latest/reference/sts/assume-role.html"},
	{prog: "aws", sub: []string{"sts", "get-federation-token"}, issuers: issAWS, note: "mints and prints temporary keys", source: "https://docs.aws.amazon.com/cli/latest/reference/sts/get-federation-token.html"},
	{prog: "aws", sub: []string{"ecr", "get-login-password"}, issuers: issAWS, note: "prints a registry password", source: "https://docs.aws.amazon.com/cli/latest/reference/ecr/get-login-password.html"},
	{prog: "aws", sub: []string{"ecr-public", "get-login-password"}, issuers: issAWS, note: "prints a registry password", source: "https://docs.aws.amazon.com/cli/latest/reference/ecr-public/get-login-password.html"},
	{prog: "aws", sub: []string{"ecr", "get-authorization-token"}, issuers: issAWS, note: "prints a registry token", source: "https://docs.aws.amazon.com/cli/latest/reference/ecr/get-authorization-token.html"},
	{prog: "aws", sub: []string{"codeartifact", "get-authorization-token"}, issuers: issAWS, note: "prints a CodeArtifact token", source: "https://docs.aws.amazon.com/cli/latest/reference/codeartifact/get-authorization-token.html"},
	{prog: "aws", sub: []string{"eks", "get-token"}, issuers: issAWS, note: "prints an EKS bearer token", source: "https://docs.aws.amazon.com/cli/latest/reference/eks/get-token.html"},
	{prog: "aws", sub: []string{"secretsmanager", "get-secret-value"}, note: "prints a managed secret", source: "https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/get-secret-value.html"},
	{prog: "aws", sub: []string{"ssm", "get-parameter*"}, flags: []string{"with-decryption"}, note: "prints a decrypted parameter", source: "https://docs.aws.amazon.com/cli/latest/reference/ssm/get-parameter.html"},
	{prog: "aws", sub: []string{"sso", "get-role-credentials"}, issuers: issAWS, note: "prints role credentials", source: "https://docs.aws.amazon.com/cli/latest/reference/sso/get-role-credentials.html"},
	{prog: "aws", sub: []string{"iam", "create-access-key"}, issuers: issAWS, note: "mints and prints a long-lived key pair", source: srcMint},
	{prog: "az", sub: []string{"account", "get-access-token"}, issuers: issAzure, note: "prints an access token", source: srcAz},
	{prog: "az", sub: []string{"keyvault", "secret", "show"}, note: "prints a Key Vault secret", source: "https://learn.microsoft.com/en-us/cli/azure/keyvault/secret"},
	{prog: "az", sub: []string{"keyvault", "secret", "download"}, note: "writes a Key Vault secret", source: "https://learn.microsoft.com/en-us/cli/azure/keyvault/secret"},
	{prog: "az", sub: []string{"ad", "sp", "credential", "reset"}, issuers: issAzure, note: "mints and prints a service-principal secret", source: srcMint},
	{prog: "az", sub: []string{"ad", "app", "credential", "reset"}, issuers: issAzure, note: "mints and prints an application secret", source: srcMint},
	{prog: "az", sub: []string{"storage", "account", "keys", "list"}, issuers: issAzure, note: "prints storage account keys", source: "https://learn.microsoft.com/en-us/cli/azure/storage/account/keys"},
	{prog: "az", sub: []string{"acr", "login"}, flags: []string{"expose-token"}, issuers: issAzure, note: "prints a registry token", source: "https://learn.microsoft.com/en-us/cli/azure/acr#az-acr-login"},
	{prog: "heroku", sub: []string{"auth:token"}, issuers: issHeroku, note: "prints the API token", source: "https://devcenter.heroku.com/articles/authentication"},
	{prog: "heroku", sub: []string{"authorizations:create"}, issuers: issHeroku, note: "mints an OAuth token", source: srcMint},
	{prog: "flyctl", sub: []string{"auth", "token"}, issuers: issFly, note: "prints the Fly.io token", source: "https://fly.io/docs/flyctl/auth-token/"},
	{prog: "fly", sub: []string{"auth", "token"}, issuers: issFly, note: "prints the Fly.io token", source: "https://fly.io/docs/flyctl/auth-token/"},
	{prog: "npm", sub: []string{"token", "create"}, issuers: issNpm, note: "mints a registry token", source: "https://docs.npmjs.com/cli/v10/commands/npm-token"},
	{prog: "npm", sub: []string{"config", "get"}, argHas: []string{"authtoken", "_auth", "_password"}, issuers: issNpm, note: "a registry token read back from .npmrc", source: "https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration"},
	{prog: "yarn", sub: []string{"config", "get"}, argHas: []string{"authtoken", "_auth"}, issuers: issNpm, note: "a registry token read back", source: "https://yarnpkg.com/configuration/yarnrc#npmAuthToken"},
	{prog: "pnpm", sub: []string{"config", "get"}, argHas: []string{"authtoken", "_auth"}, issuers: issNpm, note: "a registry token read back", source: "https://pnpm.io/cli/config"},
	{prog: "heroku", sub: []string{"config:get"}, note: "an app's config var (its secrets live there)", source: "https://devcenter.heroku.com/articles/config-vars"},
	{prog: "heroku", sub: []string{"config"}, note: "every config var of an app with its value", source: "https://devcenter.heroku.com/articles/config-vars"},
	{prog: "terraform", sub: []string{"output"}, flags: []string{"raw", "json"}, note: "outputs with sensitive values shown", source: "https://developer.hashicorp.com/terraform/cli/commands/output"},
	{prog: "tofu", sub: []string{"output"}, flags: []string{"raw", "json"}, note: "outputs with sensitive values shown", source: "https://opentofu.org/docs/cli/commands/output/"},
	{prog: "doppler", sub: []string{"secrets"}, note: "a project's secrets with their values", source: "https://docs.doppler.com/docs/cli"},
	{prog: "infisical", sub: []string{"secrets"}, note: "a project's secrets with their values", source: "https://infisical.com/docs/cli/commands/secrets"},
	{prog: "infisical", sub: []string{"export"}, note: "a project's secrets as a .env", source: "https://infisical.com/docs/cli/commands/export"},
	{prog: "chamber", sub: []string{"export"}, issuers: nil, note: "a service's SSM secrets", source: "https://github.com/segmentio/chamber"},
	{prog: "chamber", sub: []string{"read"}, note: "one SSM secret", source: "https://github.com/segmentio/chamber"},
	{prog: "doctl", sub: []string{"auth", "token"}, issuers: issDO, note: "prints the DigitalOcean token", source: "https://docs.digitalocean.com/reference/doctl/"},
	// clusters
	{prog: "kubectl", sub: []string{"config", "view"}, flags: []string{"raw", "flatten"}, note: "the unredacted kubeconfig", source: srcKube},
	{prog: "kubectl", sub: []string{"create", "token"}, note: "mints a service-account token", source: "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_create/kubectl_create_token/"},
	{prog: "kubectl", sub: []string{"get", "secret*"}, flags: []string{"o", "output"}, note: "secret data (base64, not encryption)", source: "https://kubernetes.io/docs/concepts/configuration/secret/"},
	{prog: "oc", sub: []string{"whoami"}, flags: []string{"t", "show-token"}, note: "prints the OpenShift token", source: "https://docs.openshift.com/container-platform/latest/cli_reference/openshift_cli/developer-cli-commands.html"},
	{prog: "oc", sub: []string{"get", "secret*"}, flags: []string{"o", "output"}, note: "secret data", source: "https://kubernetes.io/docs/concepts/configuration/secret/"},
	{prog: "helm", sub: []string{"get", "values"}, flags: []string{"a", "all"}, note: "computed values hold the chart's secrets", source: "https://helm.sh/docs/helm/helm_get_values/"},
	// vaults, password managers, keyrings
	{prog: "vault", sub: []string{"token", "lookup"}, note: "the token id is in the output", source: "https://developer.hashicorp.com/vault/docs/commands/token/lookup"},
	{prog: "vault", sub: []string{"token", "create"}, note: "mints a token", source: srcMint},
	{prog: "vault", sub: []string{"print", "token"}, note: "prints the token", source: srcVlt},
	{prog: "vault", sub: []string{"kv", "get"}, note: "a KV secret", source: "https://developer.hashicorp.com/vault/docs/commands/kv/get"},
	{prog: "vault", sub: []string{"read"}, note: "a secret engine's value", source: "https://developer.hashicorp.com/vault/docs/commands/read"},
	{prog: "vault", sub: []string{"login"}, flags: []string{"token-only"}, note: "prints the new token", source: "https://developer.hashicorp.com/vault/docs/commands/login"},
	{prog: "op", sub: []string{"read"}, note: "a 1Password secret reference", source: srcOp},
	{prog: "op", sub: []string{"item", "get"}, flags: []string{"reveal", "fields", "format", "otp"}, note: "a 1Password item's fields", source: "https://developer.1password.com/docs/cli/reference/management-commands/item/"},
	{prog: "op", sub: []string{"signin"}, flags: []string{"raw"}, note: "the session token", source: srcOp},
	{prog: "op", sub: []string{"inject"}, note: "secrets substituted into a template", source: "https://developer.1password.com/docs/cli/reference/commands/inject/"},
	{prog: "op", sub: []string{"document", "get"}, note: "a stored document", source: srcOp},
	{prog: "bw", sub: []string{"get"}, note: "a Bitwarden password, item or TOTP", source: srcBw},
	{prog: "bw", sub: []string{"unlock"}, flags: []string{"raw"}, note: "the session key", source: srcBw},
	{prog: "bw", sub: []string{"export"}, note: "the whole vault", source: srcBw},
	{prog: "bw", sub: []string{"list", "items"}, note: "every item with its secrets", source: srcBw},
	{prog: "gopass", sub: []string{"show"}, note: "a gopass entry", source: "https://github.com/gopasspw/gopass/blob/master/docs/commands/show.md"},
	{prog: "gopass", sub: []string{"cat"}, note: "a gopass entry", source: "https://github.com/gopasspw/gopass"},
	{prog: "gopass", sub: []string{"otp"}, note: "a one-time code", source: "https://github.com/gopasspw/gopass"},
	{prog: "keepassxc-cli", sub: []string{"show"}, flags: []string{"s", "show-protected", "a", "attributes"}, note: "an entry with its secret", source: "https://github.com/keepassxreboot/keepassxc/blob/develop/docs/man/keepassxc-cli.1.adoc"},
	{prog: "keepassxc-cli", sub: []string{"export"}, note: "the whole database", source: "https://github.com/keepassxreboot/keepassxc/blob/develop/docs/man/keepassxc-cli.1.adoc"},
	{prog: "lpass", sub: []string{"show"}, note: "a LastPass entry", source: "https://github.com/lastpass/lastpass-cli"},
	{prog: "lpass", sub: []string{"export"}, note: "the whole vault", source: "https://github.com/lastpass/lastpass-cli"},
	{prog: "security", sub: []string{"find-generic-password"}, flags: []string{"w", "g"}, note: "a keychain password", source: srcSec},
	{prog: "security", sub: []string{"find-internet-password"}, flags: []string{"w", "g"}, note: "a keychain password", source: srcSec},
	{prog: "security", sub: []string{"dump-keychain"}, flags: []string{"d"}, note: "the keychain with its secrets", source: "https://attack.mitre.org/techniques/T1555/001/"},
	{prog: "security", sub: []string{"export"}, note: "keychain items, private keys included", source: "https://attack.mitre.org/techniques/T1555/001/"},
	{prog: "secret-tool", sub: []string{"lookup"}, note: "a libsecret item", source: srcLibS},
	{prog: "secret-tool", sub: []string{"search"}, note: "matching libsecret items with their secrets", source: srcLibS},
	{prog: "keyring", sub: []string{"get"}, note: "the OS keyring's password for a service (python keyring's CLI)", source: "https://pypi.org/project/keyring/"},
	{prog: "keyctl", sub: []string{"print"}, note: "a kernel keyring key's payload", source: "https://man7.org/linux/man-pages/man1/keyctl.1.html"},
	{prog: "keyctl", sub: []string{"pipe"}, note: "a kernel keyring key's payload", source: "https://man7.org/linux/man-pages/man1/keyctl.1.html"},
	{prog: "keyctl", sub: []string{"read"}, note: "a kernel keyring key's payload", source: "https://man7.org/linux/man-pages/man1/keyctl.1.html"},
	{prog: "dbus-send", argHas: []string{"getsecrets", "secret.item.getsecret"}, note: "the Secret Service (GNOME Keyring, KWallet) asked over D-Bus", source: "https://specifications.freedesktop.org/secret-service-spec/latest/"},
	{prog: "gdbus", sub: []string{"call"}, argHas: []string{"getsecrets", "secret.item.getsecret"}, note: "the Secret Service asked over D-Bus", source: "https://specifications.freedesktop.org/secret-service-spec/latest/"},
	{prog: "busctl", argHas: []string{"getsecrets"}, note: "the Secret Service asked over D-Bus", source: "https://specifications.freedesktop.org/secret-service-spec/latest/"},
	{prog: "get-storedcredential", note: "a Windows Credential Manager entry (PowerShell CredentialManager)", source: "https://www.powershellgallery.com/packages/CredentialManager"},
	{prog: "get-secret", note: "a SecretManagement vault's secret", source: "https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.secretmanagement/get-secret"},
	{prog: "kwallet-query", flags: []string{"r", "read-password"}, note: "a KWallet entry", source: "https://invent.kde.org/utilities/kwalletmanager"},
	{prog: "docker-credential-*", sub: []string{"get"}, note: "a registry credential", source: srcDCH},
	{prog: "keyring", sub: []string{"get"}, note: "a password from the OS keyring (Python keyring CLI)", source: "https://github.com/jaraco/keyring#command-line-utility"},
	{prog: "getent", sub: []string{"shadow"}, issuers: issNone, note: "password hashes through NSS", source: "https://man7.org/linux/man-pages/man1/getent.1.html"},
	{prog: "getent", sub: []string{"gshadow"}, issuers: issNone, note: "group password hashes through NSS", source: "https://man7.org/linux/man-pages/man1/getent.1.html"},
	{prog: "dscl", argHas: []string{"shadowhashdata"}, issuers: issNone, note: "a macOS account's password hash", source: "https://attack.mitre.org/techniques/T1003/"},
	{prog: "gpg", flags: []string{"export-secret-keys", "export-secret-subkeys"}, issuers: issNone, note: "secret keys exported", source: srcGPG},
	{prog: "gpg2", flags: []string{"export-secret-keys", "export-secret-subkeys"}, issuers: issNone, note: "secret keys exported", source: srcGPG},
	{prog: "sops", flags: []string{"d", "decrypt"}, note: "decrypted secrets", source: srcSops},
	{prog: "sops", sub: []string{"decrypt"}, note: "decrypted secrets", source: srcSops},
	{prog: "age", flags: []string{"d", "decrypt"}, note: "decrypted data", source: "https://github.com/FiloSottile/age"},
	{prog: "dotenvx", sub: []string{"decrypt"}, flags: []string{"stdout"}, note: "decrypted .env values", source: "https://dotenvx.com/docs"},
	{prog: "dotenvx", sub: []string{"get"}, note: "a decrypted .env value", source: "https://dotenvx.com/docs"},
	{prog: "aws-vault", sub: []string{"export"}, issuers: issAWS, note: "the profile's keys as variables", source: "https://github.com/99designs/aws-vault"},
	{prog: "bitcoin-cli", sub: []string{"dumpwallet"}, issuers: issNone, note: "a wallet's private keys", source: "https://developer.bitcoin.org/reference/rpc/dumpwallet.html"},
	{prog: "bitcoin-cli", sub: []string{"dumpprivkey"}, issuers: issNone, note: "a private key", source: "https://developer.bitcoin.org/reference/rpc/dumpprivkey.html"},
	{prog: "cast", sub: []string{"wallet", "private-key"}, issuers: issNone, note: "a wallet's private key", source: "https://book.getfoundry.sh/reference/cast/cast-wallet"},
	{prog: "cast", sub: []string{"wallet", "decrypt-keystore"}, issuers: issNone, note: "a keystore's private key", source: "https://book.getfoundry.sh/reference/cast/cast-wallet"},
	{prog: "solana-keygen", sub: []string{"recover"}, issuers: issNone, note: "a keypair from its seed phrase", source: "https://docs.anza.xyz/cli/wallets/paper"},
	{prog: "vaultcmd", flags: []string{"listcreds"}, note: "Windows vault credentials", source: "https://attack.mitre.org/techniques/T1555/004/"},
	{prog: "vaultcmd.exe", flags: []string{"listcreds"}, note: "Windows vault credentials", source: "https://attack.mitre.org/techniques/T1555/004/"},
	// clipboard readers (password managers copy to it)
	{prog: "pbpaste", issuers: issNone, note: "the clipboard, where password managers put passwords", source: "https://attack.mitre.org/techniques/T1115/"},
	{prog: "wl-paste", issuers: issNone, note: "the clipboard", source: "https://attack.mitre.org/techniques/T1115/"},
	{prog: "xclip", oneDash: true, flags: []string{"o", "out"}, issuers: issNone, note: "the clipboard", source: "https://attack.mitre.org/techniques/T1115/"},
	{prog: "xsel", oneDash: true, flags: []string{"o", "output"}, issuers: issNone, note: "the clipboard", source: "https://attack.mitre.org/techniques/T1115/"},
	{prog: "termux-clipboard-get", issuers: issNone, note: "the clipboard", source: "https://attack.mitre.org/techniques/T1115/"},
}

// credAPIs are the library calls of the interpreters' languages that open
// a credential store and return a secret: the same sources as the keyring
// and password-manager programs above, reached through code (python -c
// "import keyring; print(keyring.get_password(…))"). Lower case; a needle
// found in the code (with the module it belongs to, where the call
// name alone is common) is the source. The 2025 npm worms and the infostealers
// ATT&CK T1555 lists read these stores the same way.
var credAPIs = []struct{ with, needle, name string }{
	{"", "keyring.get_password(", "python keyring.get_password"},               // https://pypi.org/project/keyring/ (the OS keyring)
	{"", "keyring.get_credential(", "python keyring.get_credential"},           // as get_password, with the user name
	{"", "get_keyring().get_password(", "python keyring backend"},              // a backend asked directly
	{"secretstorage", ".get_secret()", "python secretstorage item.get_secret"}, // https://secretstorage.readthedocs.io/ (libsecret over D-Bus)
	{"", "win32cred.credread", "python win32cred.CredRead"},                    // Windows Credential Manager through pywin32
	{"", "cryptunprotectdata", "DPAPI CryptUnprotectData"},                     // T1555.003: browser and vault secrets decrypted with the user's key
	{"", "browser_cookie3", "python browser_cookie3"},                          // decrypts every browser's cookies (T1539)
	{"", "pycookiecheat", "python pycookiecheat"},                              // decrypts Chrome's cookies with the keychain key
	{"keytar", "getpassword(", "node keytar.getPassword"},                      // https://github.com/atom/node-keytar (VS Code, Electron apps)
	{"keytar", "findpassword(", "node keytar.findPassword"},                    // as getPassword, any account
	{"keytar", "findcredentials(", "node keytar.findCredentials"},              // every account of a service with its password
	{"", "safestorage.decryptstring(", "electron safeStorage"},                 // an Electron app's stored secrets decrypted
	{"keyring", ".getpassword()", "node @napi-rs/keyring Entry.getPassword"},
	{"passwordvault", "retrieve", "Windows PasswordVault"},                    // Windows.Security.Credentials.PasswordVault.RetrieveAll/Retrieve
	{"", "getnetworkcredential().password", "a stored credential's password"}, // PowerShell: a PSCredential's plain text
}

// passNonShow are pass and gopass subcommands that print no secret; any
// other first word is an entry name, shown (`pass work/aws`).
var passNonShow = set("ls", "list", "find", "search", "insert", "add", "edit", "generate", "rm", "remove", "delete",
	"mv", "rename", "cp", "copy", "git", "init", "help", "version", "setup", "config", "mounts", "recipients", "sync",
	"audit", "fsck", "completion", "templates", "update", "clone", "create", "new", "env", "history", "fscopy", "fsmove")

// secretScanners take a directory and print the secrets they find in it:
// pointed at the home or the root they harvest every token (Shai-Hulud).
var secretScanners = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"trufflehog":     {"filesystem"},
		"gitleaks":       {"detect", "dir", "directory", "protect"},
		"detect-secrets": {"scan"},
		"noseyparker":    {"scan"},
		"ggshield":       {"secret", "scan", "path"},
	}
})

// secretVarName reports whether an environment variable name looks like
// it holds a secret when one is read by name (`echo $GITHUB_TOKEN`).
//
// Decided: a name is secret when, upper-cased, it contains TOKEN, SECRET,
// PASSWORD, PASSWD, CREDENTIAL, PRIVATE_KEY, API_KEY or APIKEY, ends in
// _KEY, _PAT, _AUTH, _DSN, _PASS or _PWD, starts with ANTHROPIC_ or OPENAI_
// (except their _BASE_URL, _MODEL, _LOG …), or is DATABASE_URL, REDIS_URL,
// MONGODB_URI or AWS_ACCESS_KEY_ID. Public-by-design names (NEXT_PUBLIC_*,
// *_PUBLIC_KEY, *_PUBLISHABLE_KEY, *_TOKEN_URL, *_KEY_ID except AWS's,
// *_KEYRING…) and the runner's non-secret ones (PATH, HOME, GITHUB_SHA …)
// are not.
func secretVarName(name string) bool {
	n := strings.ToUpper(name)
	if n == "" || nonSecretVars.has(n) {
		return false
	}
	switch n {
	case "DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "AMQP_URL", "AWS_ACCESS_KEY_ID", "PGPASSWORD", "MYSQL_PWD":
		return true
	}
	if strings.HasPrefix(n, "NEXT_PUBLIC_") || strings.HasPrefix(n, "VITE_PUBLIC_") || strings.HasSuffix(n, "_PUBLIC_KEY") ||
		strings.HasSuffix(n, "_PUBLISHABLE_KEY") || strings.HasSuffix(n, "_URL") && !strings.Contains(n, "SECRET") ||
		strings.HasSuffix(n, "_ENDPOINT") || strings.HasSuffix(n, "_FILE") || strings.HasSuffix(n, "_PATH") ||
		strings.HasSuffix(n, "_DIR") || strings.HasSuffix(n, "_KEY_ID") || strings.HasSuffix(n, "_KEYRING") ||
		strings.HasSuffix(n, "_TOKEN_TYPE") || strings.HasSuffix(n, "_MODEL") || strings.HasSuffix(n, "_REGION") {
		return false
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "API_KEY", "APIKEY", "ACCESS_KEY", "AUTH_KEY", "SESSION_KEY", "SIGNING_KEY", "ENCRYPTION_KEY"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, s := range []string{"_KEY", "_PAT", "_AUTH", "_DSN", "_PASS", "_PWD"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return strings.HasPrefix(n, "ANTHROPIC_") && !strings.HasPrefix(n, "ANTHROPIC_BASE") && !strings.HasPrefix(n, "ANTHROPIC_LOG") ||
		strings.HasPrefix(n, "OPENAI_") && !strings.HasPrefix(n, "OPENAI_BASE") && !strings.HasPrefix(n, "OPENAI_ORG") && !strings.HasPrefix(n, "OPENAI_LOG")
}

var nonSecretVars = set("PATH", "HOME", "SHELL", "USER", "LOGNAME", "PWD", "OLDPWD", "LANG", "LC_ALL", "TERM", "NODE_ENV",
	"GOPATH", "GOROOT", "GOFLAGS", "CI", "GITHUB_SHA", "GITHUB_REF", "GITHUB_REF_NAME", "GITHUB_REF_TYPE", "GITHUB_REPOSITORY",
	"GITHUB_ACTOR", "GITHUB_WORKSPACE", "GITHUB_RUN_ID", "GITHUB_EVENT_NAME", "HOSTNAME", "EDITOR", "VISUAL", "PAGER", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY", "SHLVL", "PS1", "IFS", "UID", "EUID",
	"PPID", "RANDOM", "SECONDS", "LINENO", "BASH_VERSION", "KUBECONFIG", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
	"GOOGLE_CLOUD_PROJECT", "VIRTUAL_ENV", "CONDA_PREFIX", "JAVA_HOME", "NVM_DIR", "PYTHONPATH", "DEBUG", "LOG_LEVEL", "PORT",
	"TOKENIZERS_PARALLELISM")

// varIssuers names the hosts a secret variable belongs to, by its name;
// nil when the name says nothing of its issuer.
func varIssuers(name string) []string {
	n := strings.ToUpper(name)
	for _, p := range varIssuerPrefixes {
		if strings.HasPrefix(n, p.prefix) || n == p.prefix {
			return p.issuers
		}
	}
	return nil
}

var varIssuerPrefixes = []struct {
	prefix  string
	issuers []string
}{
	{"GITHUB_", issGitHub}, {"GH_", issGitHub}, {"ACTIONS_", issGitHub},
	{"GITLAB_", issGitLab}, {"GL_", issGitLab}, {"CI_JOB_TOKEN", issGitLab},
	{"AWS_", issAWS}, {"GOOGLE_", issGoogle}, {"GCP_", issGoogle}, {"GCLOUD_", issGoogle}, {"CLOUDSDK_", issGoogle},
	{"AZURE_", issAzure}, {"ARM_", issAzure}, {"OPENAI_", issOpenAI}, {"ANTHROPIC_", issAnthropic}, {"CLAUDE_", issAnthropic},
	{"NPM_", issNpm}, {"NODE_AUTH_TOKEN", issNpm}, {"PYPI_", issPyPI}, {"TWINE_", issPyPI}, {"SLACK_", issSlack},
	{"STRIPE_", issStripe}, {"SENDGRID_", issSendGrid}, {"HF_", issHF}, {"HUGGING", issHF}, {"DOCKER", issDocker},
	{"HEROKU_", issHeroku}, {"FLY_", issFly}, {"DIGITALOCEAN_", issDO}, {"DO_", issDO}, {"CLOUDFLARE_", issCF}, {"CF_", issCF},
	{"VERCEL_", issVercel}, {"SENTRY_", issSentry},
}

// ShapeIssuers names the hosts a token shape of scan/secret belongs to
// (by its kind), and whether the shape counts at all: the vendor shapes
// and private keys do; generic carriers (a bearer header, a password=
// assignment) name no vendor and say nothing of where they belong, so a
// literal in a request to an API the agent was told about is not a flow.
func ShapeIssuers(kind string) ([]string, bool) {
	switch kind {
	case "github-token":
		return issGitHub, true
	case "gitlab-token":
		return issGitLab, true
	case "aws-access-key-id", "aws-secret-access-key":
		return issAWS, true
	case "gcp-api-key", "google-oauth-token", "google-oauth-client-secret":
		return issGoogle, true
	case "azure-storage-key", "azure-shared-access-key", "azure-client-secret":
		return issAzure, true
	case "slack-token":
		return issSlack, true
	case "npm-token":
		return issNpm, true
	case "pypi-token":
		return issPyPI, true
	case "rubygems-key":
		return []string{"rubygems.org"}, true
	case "docker-hub-token":
		return issDocker, true
	case "huggingface-token":
		return issHF, true
	case "anthropic-key":
		return issAnthropic, true
	case "openai-key":
		return issOpenAI, true
	case "stripe-key":
		return issStripe, true
	case "sendgrid-key":
		return issSendGrid, true
	case "vault-token":
		return nil, true
	case "private-key", "age-secret-key":
		return issNone, true
	}
	if iss, ok := shapeIssuersMore()[kind]; ok {
		return iss, true
	}
	return nil, false
}

// shapeIssuersMore: the issuers of the shapes issue 20 added (scan/secret's
// table), each the vendor's API hosts.
var shapeIssuersMore = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"shopify-token":         {"*.myshopify.com", "*.shopify.com"},
		"atlassian-api-token":   {"*.atlassian.net", "api.atlassian.com", "*.atlassian.com"},
		"digitalocean-token":    issDO,
		"linear-api-key":        {"api.linear.app", "*.linear.app"},
		"postman-api-key":       {"api.getpostman.com", "*.getpostman.com", "*.postman.com"},
		"grafana-token":         {"grafana.com", "*.grafana.com", "*.grafana.net"},
		"new-relic-key":         {"api.newrelic.com", "api.eu.newrelic.com", "*.newrelic.com"},
		"doppler-token":         {"api.doppler.com", "*.doppler.com"},
		"pulumi-token":          {"api.pulumi.com", "*.pulumi.com"},
		"sentry-token":          issSentry,
		"figma-token":           {"api.figma.com", "*.figma.com"},
		"planetscale-token":     {"api.planetscale.com", "*.planetscale.com", "*.psdb.cloud"},
		"supabase-token":        {"api.supabase.com", "*.supabase.co", "*.supabase.com"},
		"groq-key":              {"api.groq.com", "*.groq.com"},
		"xai-key":               {"api.x.ai", "*.x.ai"},
		"perplexity-key":        {"api.perplexity.ai", "*.perplexity.ai"},
		"databricks-token":      {"*.cloud.databricks.com", "*.gcp.databricks.com", "*.azuredatabricks.net", "*.databricks.com"},
		"tailscale-key":         {"api.tailscale.com", "login.tailscale.com", "*.tailscale.com"},
		"openrouter-key":        {"openrouter.ai", "*.openrouter.ai"},
		"alibaba-access-key-id": {"*.aliyuncs.com", "*.aliyun.com", "*.alibabacloud.com"},
	}
})
