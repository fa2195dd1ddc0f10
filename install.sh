#!/usr/bin/env bash
# Build Airlock's three binaries and install them into ${PREFIX:-$HOME/.local}/bin.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
bin="$prefix/bin"

if ! command -v go >/dev/null 2>&1; then
  echo "install.sh: Go is needed to build Airlock (go 1.26 or newer): https://go.dev/doc/install" >&2
  exit 1
fi

version=$(git -C "$here" describe --tags --always --dirty 2>/dev/null || echo dev)
mkdir -p "$bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cmd in airlock airlock-hook airlock-mcp; do
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$tmp/$cmd" "./cmd/$cmd")
  # Copied, not linked in place: the linker writes its output through a
  # memory map, and a binary written that way started ~0.3 ms slower on
  # every run (its page cache; airlock-hook runs once per tool call, in
  # ~2 ms: docs/benchmarks.md) until its pages left the cache. The rename
  # leaves a hook running during the install its own file.
  cp "$tmp/$cmd" "$bin/.$cmd.new"
  mv -f "$bin/.$cmd.new" "$bin/$cmd"
  echo "installed $bin/$cmd"
done

case ":$PATH:" in
  *":$bin:"*) ;;
  *)
    # Without this step the next command is "airlock: command not found".
    # Shown as $HOME/... when it is under the home, so the line can be pasted.
    shown=$bin
    case "$bin" in "$HOME"/*) shown="\$HOME/${bin#"$HOME"/}" ;; esac
    bashrc="~/.bashrc"
    [ "$(uname -s)" = Darwin ] && bashrc="~/.bash_profile"
    echo
    echo "warning: $bin is not on your PATH: the shell will answer \"airlock: command not found\"."
    echo "Add it for your shell, then open a new terminal:"
    echo "  bash:  echo 'export PATH=\"$shown:\$PATH\"' >> $bashrc"
    echo "  zsh:   echo 'export PATH=\"$shown:\$PATH\"' >> ~/.zshrc"
    echo "  fish:  fish_add_path $shown"
    echo "or, for this terminal only:  export PATH=\"$bin:\$PATH\""
    ;;
esac
echo
echo "next:  airlock demo     # see it refuse a hijacked agent (nothing of yours touched)"
echo "       airlock init     # put your agents behind it"
echo "       airlock doctor   # what is enforcing, and what is not"
