#!/usr/bin/env bash
# setup.sh installs the pinned real peers acp-lsp's tests and demo run
# against into .cache/ (ignored by git), once; later runs reuse the cache.
#
#   scripts/setup.sh            everything the tests need
#   scripts/setup.sh gopls      only gopls (what the demo needs)
#
# Afterwards put them on PATH with: eval "$(scripts/setup.sh --print-path)"
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache"
bin="$cache/bin"
peers="$cache/peers"
GOPLS_VERSION=v0.23.0

say() { printf 'setup: %s\n' "$*" >&2; }

print_path() {
	printf 'export PATH=%q:%q:"$PATH"\n' "$bin" "$peers/node_modules/.bin"
}

install_gopls() {
	if [ -x "$bin/gopls" ] && "$bin/gopls" version 2>/dev/null | grep -q "$GOPLS_VERSION"; then
		return
	fi
	say "installing gopls $GOPLS_VERSION into $bin (about 2 minutes the first time)"
	mkdir -p "$bin"
	GOBIN="$bin" GOFLAGS=-mod=mod go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
}

install_npm_peers() {
	local stamp="$peers/.lock-sha"
	local want
	want=$(sha256sum "$root/scripts/peers/package-lock.json" | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$peers/node_modules" ]; then
		return
	fi
	command -v npm >/dev/null || { say "npm is missing: install Node.js 20 and npm (apt-get install nodejs npm)"; exit 1; }
	say "installing pinned npm peers into $peers (pyright, typescript-language-server, opencode, acpx, MCP inspector)"
	mkdir -p "$peers"
	cp "$root/scripts/peers/package.json" "$root/scripts/peers/package-lock.json" "$peers/"
	(cd "$peers" && npm install --no-audit --no-fund --loglevel=error >&2)
	echo "$want" >"$stamp"
}

install_clangd() {
	if command -v clangd >/dev/null; then
		return
	fi
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing clangd from Debian packages"
		apt-get update -qq >&2 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clangd >&2
	else
		say "clangd is missing: install it (Debian/Ubuntu: sudo apt-get install clangd)"
		exit 1
	fi
}

case "${1:-all}" in
--print-path) print_path ;;
gopls) install_gopls ;;
all)
	install_gopls
	install_npm_peers
	install_clangd
	;;
*)
	say "unknown argument $1 (want: all, gopls, --print-path)"
	exit 2
	;;
esac
