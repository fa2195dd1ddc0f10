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
for cmd in airlock airlock-hook airlock-mcp; do
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$bin/$cmd" "./cmd/$cmd")
  echo "installed $bin/$cmd"
done

case ":$PATH:" in
  *":$bin:"*) ;;
  *)
    echo
    echo "warning: $bin is not on your PATH. Add it, e.g.:"
    echo "  echo 'export PATH=\"$bin:\$PATH\"' >> ~/.profile && . ~/.profile"
    ;;
esac
echo
echo "next:  airlock demo     # see it refuse a hijacked agent (nothing of yours touched)"
echo "       airlock init     # put your agents behind it"
echo "       airlock doctor   # what is enforcing, and what is not"
