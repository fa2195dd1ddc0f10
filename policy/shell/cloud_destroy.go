package shell

import "strings"

// Cloud, cluster and infrastructure shapes of remote-destroy (remote_destroy.go).

// ---- cloud

var awsGlobalValued = set("--profile", "--region", "--output", "--endpoint-url", "--query", "--color", "--ca-bundle", "--cli-read-timeout", "--cli-connect-timeout", "--cli-binary-format")

// awsItemOps delete one item of a store, not the store: ordinary work.
var awsItemOps = set("delete-object", "delete-message", "delete-message-batch", "delete-tags", "delete-item", "delete-attributes",
	"delete-object-tagging", "delete-parameter", "delete-change-set", "delete-alarms", "delete-image")

func awsDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, awsGlobalValued)
	if len(p) < 2 {
		return
	}
	svc, op := p[0], p[1]
	all := strings.ToLower(strings.Join(argv, " "))
	switch {
	case strings.HasPrefix(op, "delete-") && !awsItemOps.has(op),
		strings.HasPrefix(op, "terminate-"),
		op == "schedule-key-deletion", op == "disable-key", op == "stop-logging", op == "disable-security-hub",
		op == "deregister-delegated-administrator", op == "stop-configuration-recorder", op == "disable-ebs-encryption-by-default":
		if svc == "s3" || svc == "configure" {
			return // aws s3 rm/rb: destroy.cloud-data; aws configure: local
		}
		w.remoteDestroyed(c)
	case op == "put-bucket-acl" || op == "put-object-acl":
		if strings.Contains(all, "public-read") || strings.Contains(all, "authenticated-read") || strings.Contains(all, "allusers") {
			w.remoteDestroyed(c)
		}
	case op == "put-bucket-policy" || op == "add-permission" || op == "set-repository-policy" || op == "put-resource-policy":
		if strings.Contains(strings.ReplaceAll(all, " ", ""), `"principal":"*"`) || strings.Contains(strings.ReplaceAll(all, " ", ""), `"aws":"*"`) ||
			strings.Contains(all, "--principal *") {
			w.remoteDestroyed(c)
		}
	case op == "authorize-security-group-ingress":
		if strings.Contains(all, "0.0.0.0/0") || strings.Contains(all, "::/0") {
			w.remoteDestroyed(c)
		}
	case op == "modify-snapshot-attribute" || op == "modify-image-attribute" || op == "modify-db-snapshot-attribute" || op == "modify-db-cluster-snapshot-attribute":
		if strings.Contains(all, "--operation-type add") && strings.Contains(all, " all") || strings.Contains(all, "--values-to-add all") ||
			strings.Contains(all, `"group":"all"`) {
			w.remoteDestroyed(c)
		}
	case op == "change-resource-record-sets":
		if strings.Contains(strings.ReplaceAll(all, " ", ""), `"action":"delete"`) {
			w.remoteDestroyed(c)
		}
	}
}

var gcloudValued = set("--project", "--account", "--configuration", "--format", "--verbosity", "--region", "--zone", "--member", "--role", "--filter", "--impersonate-service-account")

// gcloudDestroy: any gcloud group's delete (logging sinks, instances,
// databases, secrets …) and IAM bindings for allUsers.
func gcloudDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, gcloudValued)
	if len(p) < 2 || p[0] == "config" || p[0] == "auth" || p[0] == "components" || p[0] == "topic" {
		return
	}
	for _, v := range p {
		if v == "delete" || v == "purge" {
			w.remoteDestroyed(c)
			return
		}
		if v == "add-iam-policy-binding" || v == "set-iam-policy" {
			break
		}
	}
	if hasAnyArg(p, "add-iam-policy-binding") || hasAnyArg(p, "set-iam-policy") {
		if everyone(strings.Join(argv, " ")) {
			w.remoteDestroyed(c)
		}
	}
}

// everyone: a principal that is anybody on the internet.
func everyone(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "allusers") || strings.Contains(s, "allauthenticatedusers")
}

// gsutilExpose: gsutil iam ch allUsers:…, gsutil acl ch -u AllUsers:R.
func gsutilExpose(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-o", "-h", "-u"))
	if len(p) >= 2 && (p[0] == "iam" || p[0] == "acl" || p[0] == "defacl") && (p[1] == "ch" || p[1] == "set") && everyone(strings.Join(argv, " ")) {
		w.remoteDestroyed(c)
	}
}

var azValued = set("--subscription", "--output", "-o", "--query", "--name", "-n", "--resource-group", "-g", "--resource", "--account-name", "--public-access", "--vault-name")

// azDestroy: az … delete/purge (outside the CLI's own configuration), and
// storage made public.
func azDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, azValued)
	if len(p) < 2 || p[0] == "config" || p[0] == "account" || p[0] == "extension" || p[0] == "cache" || p[0] == "group" {
		return // az group delete: destroy.cloud-data
	}
	last := p[len(p)-1]
	if last == "delete" || last == "purge" || last == "delete-batch" && p[0] != "storage" {
		w.remoteDestroyed(c)
		return
	}
	if v, ok := optValue(argv, "--public-access"); ok && (v == "blob" || v == "container") {
		w.remoteDestroyed(c)
		return
	}
	if v, ok := optValue(argv, "--allow-blob-public-access"); ok && strings.EqualFold(v, "true") {
		w.remoteDestroyed(c)
	}
}

// ---- clusters and infrastructure

func kubeDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-n", "--namespace", "--context", "--kubeconfig", "-l", "--selector", "-o", "--output", "--replicas", "--cluster", "--user"))
	if len(p) == 0 {
		return
	}
	switch p[0] {
	case "scale":
		r, _ := optValue(argv, "--replicas")
		if r == "0" && (hasAnyArg(argv, "--all", "-A", "--all-namespaces") || len(p) == 1) {
			w.remoteDestroyed(c)
		}
	case "drain", "cordon":
		if p[0] == "drain" {
			w.remoteDestroyed(c)
		}
	case "delete":
		if len(p) > 1 && (p[1] == "crd" || p[1] == "crds" || p[1] == "customresourcedefinition" || p[1] == "node" || p[1] == "nodes" ||
			strings.HasPrefix(p[1], "crd/") || strings.HasPrefix(p[1], "node/")) {
			w.remoteDestroyed(c)
		}
	}
}

// helmDestroy: helm uninstall removes a release and everything it made.
func helmDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-n", "--namespace", "--kube-context", "--kubeconfig"))
	if len(p) > 1 && (p[0] == "uninstall" || p[0] == "delete" || p[0] == "del" || p[0] == "un") && !hasAnyArg(argv, "--dry-run") {
		w.remoteDestroyed(c)
	}
}

// iacDestroy: tools that tear down what they deployed, or make the state
// forget it.
func iacDestroy(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-chdir", "--profile", "-c", "--context", "--app", "-a", "--stack", "-s", "--region"))
	if len(p) == 0 {
		return
	}
	switch c.prog {
	case "cdk", "sam", "serverless", "sls":
		if p[0] == "destroy" || p[0] == "delete" || p[0] == "remove" {
			w.remoteDestroyed(c)
		}
	case "terraform", "tofu":
		if p[0] == "state" && len(p) > 1 && (p[1] == "rm" || p[1] == "push") || p[0] == "workspace" && len(p) > 1 && p[1] == "delete" {
			w.remoteDestroyed(c)
		}
	case "pulumi":
		if p[0] == "stack" && len(p) > 1 && p[1] == "rm" || p[0] == "state" && len(p) > 1 && p[1] == "delete" {
			w.remoteDestroyed(c)
		}
	case "eksctl":
		if p[0] == "delete" {
			w.remoteDestroyed(c)
		}
	case "doctl":
		if hasAnyArg(p, "delete") {
			w.remoteDestroyed(c)
		}
	case "flyctl", "fly":
		if p[0] == "destroy" || len(p) > 1 && (p[1] == "destroy" || p[1] == "delete") {
			w.remoteDestroyed(c)
		}
	case "heroku":
		if p[0] == "apps:destroy" || p[0] == "destroy" || p[0] == "pg:reset" || p[0] == "addons:destroy" {
			w.remoteDestroyed(c)
		}
	case "vercel":
		if p[0] == "remove" || p[0] == "rm" || p[0] == "project" && len(p) > 1 && (p[1] == "rm" || p[1] == "remove") {
			w.remoteDestroyed(c)
		}
	case "netlify":
		if p[0] == "sites:delete" {
			w.remoteDestroyed(c)
		}
	}
}
