#!/usr/bin/env bash
# Lint an OpenAPI document with the team's pinned Spectral ruleset.
set -euo pipefail

spec="${1:?usage: lint.sh <openapi.yaml>}"
version="2.3.1"
url="https://github.com/acme-platform/api-ruleset/releases/download/v${version}/ruleset.yaml"
want="9f2c4e1b7a0d3c58e6b1f4a2d9c07e3b5a8f1d2c6e4b0a9f7d3c1e5b8a2f4d60"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/openapi-lint"
mkdir -p "$cache"
rules="$cache/ruleset-${version}.yaml"

if [ ! -f "$rules" ]; then
  curl -fsSL -o "$rules.tmp" "$url"
  got=$(sha256sum "$rules.tmp" | cut -d' ' -f1)
  if [ "$got" != "$want" ]; then
    echo "checksum mismatch for ruleset: $got" >&2
    rm -f "$rules.tmp"
    exit 2
  fi
  mv "$rules.tmp" "$rules"
fi

npx --yes @stoplight/spectral-cli@6 lint --ruleset "$rules" "$spec"
