#!/usr/bin/env bash
# bench.sh reproduces every benchmark of docs/benchmarks.md in one run:
# it installs what the bench compares against (gopls via scripts/setup.sh;
# cclsp and @mizchi/lsmcp, pinned, into .cache/bench, not into the test
# peers), then runs cmd/acp-lsp-bench, which fetches the workspace module
# with `go mod download` and rewrites the generated section of
# docs/benchmarks.md and docs/bench/*.png.
#
#   scripts/bench.sh                    everything, figures into docs/
#   scripts/bench.sh -quick -out /tmp/b a smoke run (few repetitions)
#   scripts/bench.sh -rows lsp          one row group (lsp, forward, scale, load, shared, bytes)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache/bench"
CCLSP_VERSION=0.7.0
LSMCP_VERSION=0.10.0
# The bytes rows' projects of other languages (internal/test/bench/bytesprojects.go).
RXJS_VERSION=7.8.2
NODE_GYP_VERSION=8.4.1

say() { printf 'bench: %s\n' "$*" >&2; }

"$root/scripts/setup.sh" gopls

installed() { # name version
	local pj="$cache/node_modules/$1/package.json"
	[ -f "$pj" ] && grep -q "\"version\": \"$2\"" "$pj"
}

if ! installed cclsp "$CCLSP_VERSION" || ! installed @mizchi/lsmcp "$LSMCP_VERSION" ||
	! installed rxjs "$RXJS_VERSION" || ! installed node-gyp "$NODE_GYP_VERSION"; then
	command -v npm >/dev/null || { say "npm is missing: install Node.js and npm (apt-get install nodejs npm)"; exit 1; }
	say "installing cclsp@$CCLSP_VERSION, @mizchi/lsmcp@$LSMCP_VERSION, rxjs@$RXJS_VERSION and node-gyp@$NODE_GYP_VERSION into $cache"
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-audit --no-fund --loglevel=error --no-save \
		"cclsp@$CCLSP_VERSION" "@mizchi/lsmcp@$LSMCP_VERSION" "rxjs@$RXJS_VERSION" "node-gyp@$NODE_GYP_VERSION" >&2
fi

cd "$root"
eval "$("$root/scripts/setup.sh" --print-path)"
exec go run ./cmd/acp-lsp-bench "$@"
