#!/usr/bin/env bash
# demo.sh is the README's first command: it installs the pinned gopls into
# .cache/bin when it is missing (scripts/setup.sh gopls), builds acp-lsp into
# .cache/demo, and runs `acp-lsp demo`: acp-lsp in front of its built-in
# scripted agent over a sample Go module copied to a temporary folder.
#
#   scripts/demo.sh                 the demo
#   scripts/demo.sh -keep           any `acp-lsp demo` flags (see -h)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# Relative paths in the flags (-workspace, -script, -trace) name files where
# the script was run, so the demo runs there; only the build is in the checkout.
here=$PWD
cd "$root"
command -v go >/dev/null || { echo "demo: Go is missing: install Go 1.26 or newer from https://go.dev/dl/" >&2; exit 1; }
"$root/scripts/setup.sh" gopls
eval "$("$root/scripts/setup.sh" --print-path)"
mkdir -p "$root/.cache/demo"
echo "demo: building acp-lsp into .cache/demo" >&2
go build -o "$root/.cache/demo/acp-lsp" ./cmd/acp-lsp
cd "$here"
exec "$root/.cache/demo/acp-lsp" demo "$@"
