package shell

import "strings"

// Publishing (MITRE ATT&CK T1195.002, Compromise Software Supply Chain, as
// the 2025 npm worms did it: a stolen token republishes every package its
// owner maintains): a call that hands code to everyone who installs it, or
// changes what they get (unpublish, yank, deprecate, a moved dist-tag, a new
// owner), asks (publish). Building, packing, checking and dry runs stay
// allowed. Creating a release on a forge is publishing too (its assets are
// what users download): gh release create, glab release create.

const SignalPublish Signal = "publish"

func (w *walker) published(c *cmdCtx) { w.signal(SignalPublish, c.sc.detail()) }

// dryRun: the command says it changes nothing.
func dryRun(argv []string) bool {
	return hasAnyArg(argv, "--dry-run", "--dryrun")
}

var npmValued = set("--tag", "--access", "--otp", "--registry", "-w", "--workspace", "--userconfig", "--cwd", "--filter", "-C", "--dir")

// npmPublish: npm/pnpm/yarn/bun publish, and npm's commands that change
// what a published name resolves to.
func npmPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, npmValued)
	if len(p) == 0 || dryRun(argv) {
		return
	}
	sub := p[0]
	if c.prog == "yarn" && sub == "npm" && len(p) > 1 {
		sub = p[1] // yarn npm publish (Berry)
		p = p[1:]
	}
	switch sub {
	case "publish", "unpublish", "deprecate", "undeprecate":
		w.published(c)
	case "dist-tag", "dist-tags":
		if len(p) > 1 && (p[1] == "add" || p[1] == "rm" || p[1] == "set") {
			w.published(c)
		}
	case "owner", "author":
		if len(p) > 1 && (p[1] == "add" || p[1] == "rm") {
			w.published(c) // a new owner can publish
		}
	case "access":
		if len(p) > 1 && (p[1] == "grant" || p[1] == "set" || p[1] == "public") {
			w.published(c)
		}
	}
}

// pyPublish: twine upload, uv/poetry/flit/hatch/pdm publish.
func pyPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-r", "--repository", "--repository-url", "--token", "-u", "--username", "-p", "--password", "--publish-url", "--index", "--build"))
	if len(p) == 0 || dryRun(argv) {
		return
	}
	switch {
	case c.prog == "twine" && p[0] == "upload":
		w.published(c)
	case c.prog != "twine" && p[0] == "publish":
		w.published(c)
	}
}

// cargoPublish: cargo publish, cargo yank, cargo owner --add.
func cargoPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("--token", "--registry", "--index", "-p", "--package", "--vers", "--version", "--manifest-path"))
	if len(p) == 0 || dryRun(argv) {
		return
	}
	switch p[0] {
	case "publish", "yank":
		w.published(c)
	case "owner":
		if hasAnyArg(argv, "--add", "-a", "--remove", "-r") {
			w.published(c)
		}
	}
}

// gemPublish: gem push, gem yank, gem owner --add.
func gemPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-k", "--key", "--host", "-v", "--version", "--otp", "-a", "--add", "-r", "--remove"))
	if len(p) == 0 {
		return
	}
	switch p[0] {
	case "push", "yank":
		w.published(c)
	case "owner":
		if hasAnyArg(argv, "--add", "-a", "--remove", "-r") {
			w.published(c)
		}
	}
}

// nugetPublish: dotnet nuget push / delete, nuget push.
func nugetPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-k", "--api-key", "-s", "--source", "-ApiKey", "-Source"))
	if c.prog == "dotnet" {
		if len(p) < 2 || p[0] != "nuget" {
			return
		}
		p = p[1:]
	}
	if len(p) > 0 && (strings.EqualFold(p[0], "push") || strings.EqualFold(p[0], "delete")) {
		w.published(c)
	}
}

// extPublish: vsce/ovsx publish and unpublish (editor extensions).
func extPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-p", "--pat", "-i", "--packagePath"))
	if len(p) > 0 && (p[0] == "publish" || p[0] == "unpublish") {
		w.published(c)
	}
}

// jsrPublish: jsr publish, deno publish.
func jsrPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("--token", "--config", "-c"))
	if len(p) > 0 && p[0] == "publish" && !dryRun(argv) {
		w.published(c)
	}
}

// podPublish: pod trunk push.
func podPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, nil)
	if len(p) > 1 && p[0] == "trunk" && (p[1] == "push" || p[1] == "delete" || p[1] == "deprecate" || p[1] == "add-owner") {
		w.published(c)
	}
}

// mixPublish: mix hex.publish, mix hex.retire, mix hex.owner add.
func mixPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, nil)
	if len(p) > 0 && (p[0] == "hex.publish" || p[0] == "hex.retire" || p[0] == "hex.owner" && hasAnyArg(p, "add", "transfer")) && !dryRun(argv) {
		w.published(c)
	}
}

// containerPublish: pushing an image to a registry (docker push, buildx
// build --push, skopeo copy to docker://, crane push).
func containerPublish(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, set("-t", "--tag", "-f", "--file", "--platform", "--build-arg", "--output", "-o", "--context", "-H", "--host", "--config", "--authfile", "--creds", "--dest-creds"))
	if len(p) == 0 {
		return
	}
	switch c.prog {
	case "docker", "podman", "nerdctl", "buildah":
		switch {
		case p[0] == "push", p[0] == "image" && len(p) > 1 && p[1] == "push", p[0] == "manifest" && len(p) > 1 && p[1] == "push":
			w.published(c)
		case (p[0] == "buildx" || p[0] == "build" || p[0] == "bud") && (hasAnyArg(argv, "--push") || argPrefix(argv, "--output=type=registry") || argPrefix(argv, "--output=type=image,") && argContains(argv, "push=true")):
			w.published(c)
		}
	case "skopeo":
		if p[0] == "copy" && len(p) > 2 && strings.HasPrefix(p[len(p)-1], "docker://") {
			w.published(c)
		}
	case "crane":
		if p[0] == "push" || p[0] == "copy" || p[0] == "cp" || p[0] == "tag" || p[0] == "delete" {
			w.published(c)
		}
	}
}

func argPrefix(argv []string, pre string) bool {
	for _, a := range argv {
		if strings.HasPrefix(a, pre) {
			return true
		}
	}
	return false
}

// forgePublish: gh release create / upload / edit --draft=false, glab
// release create / upload.
func forgePublish(w *walker, c *cmdCtx, argv []string) {
	if len(argv) < 3 || argv[1] != "release" {
		return
	}
	switch argv[2] {
	case "create":
		w.published(c) // an asset uploaded to a release that exists is the release's own work: allowed
	case "edit":
		if hasAnyArg(argv, "--draft=false", "--latest", "--prerelease=false") {
			w.published(c)
		}
	}
}
