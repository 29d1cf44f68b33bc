#!/usr/bin/env bash
# setup.sh installs the pinned real peers acp-lsp's tests and demo run
# against into .cache/ (ignored by git), once; later runs reuse the cache.
#
#   scripts/setup.sh            everything the tests need
#   scripts/setup.sh gopls      only gopls (what the demo needs)
#   scripts/setup.sh --check    run every installed peer once, say what is broken
#
# Safe to run again and from two shells at once: a lock serialises installs
# into .cache, and each peer is verified by running it after installing.
#
# Afterwards put them on PATH with: eval "$(scripts/setup.sh --print-path)"
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache"
bin="$cache/bin"
peers="$cache/peers"
GOPLS_VERSION=v0.23.0

say() { printf 'setup: %s\n' "$*" >&2; }

# lock serialises concurrent runs (two npm installs into one folder corrupt it).
lock() {
	mkdir -p "$cache"
	if command -v flock >/dev/null; then
		exec 9>"$cache/.setup.lock"
		flock 9
	fi
}

# run_ok runs a peer's version command, quietly, and reports whether it worked.
run_ok() { timeout 60 "$@" >/dev/null 2>&1 </dev/null; }

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
	local nb="$peers/node_modules/.bin"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$nb/opencode" ] && [ -x "$nb/acpx" ] &&
		[ -x "$nb/inspector" ] && [ -x "$nb/pyright-langserver" ] && [ -x "$nb/typescript-language-server" ]; then
		return
	fi
	command -v npm >/dev/null || { say "npm is missing: install Node.js 20 and npm (apt-get install nodejs npm)"; exit 1; }
	say "installing pinned npm peers into $peers (pyright, typescript-language-server, opencode, acpx, MCP inspector)"
	mkdir -p "$peers"
	cp "$root/scripts/peers/package.json" "$root/scripts/peers/package-lock.json" "$peers/"
	rm -f "$stamp"
	(cd "$peers" && npm install --no-audit --no-fund --loglevel=error >&2)
	fix_opencode
	check_npm_peers
	echo "$want" >"$stamp"
}

# fix_opencode places opencode's native binary itself when npm skipped the
# package's postinstall script (npm 11 with ignore-scripts or an allow-list
# leaves bin/opencode.exe a placeholder that cannot run).
fix_opencode() {
	local oc="$peers/node_modules/.bin/opencode"
	if run_ok "$oc" --version; then
		return
	fi
	say "opencode does not run after npm install (postinstall skipped?); running its postinstall"
	(cd "$peers/node_modules/opencode-ai" && node ./postinstall.mjs >&2)
}

check_npm_peers() {
	local nb="$peers/node_modules/.bin" bad=0
	run_ok "$nb/opencode" --version || { say "broken: opencode --version fails"; bad=1; }
	run_ok "$nb/acpx" --version || { say "broken: acpx --version fails"; bad=1; }
	run_ok "$nb/inspector" --help || { say "broken: inspector --help fails"; bad=1; }
	run_ok "$nb/typescript-language-server" --version || { say "broken: typescript-language-server --version fails"; bad=1; }
	[ -x "$nb/pyright-langserver" ] || { say "broken: pyright-langserver is missing"; bad=1; }
	[ -f "$peers/node_modules/typescript/lib/tsserver.js" ] || { say "broken: typescript 5 (tsserver.js) is missing"; bad=1; }
	if [ "$bad" != 0 ]; then
		say "npm peers are broken; remove $peers and run scripts/setup.sh again"
		exit 1
	fi
}

check_all() {
	local bad=0
	run_ok "$bin/gopls" version || { say "broken: $bin/gopls version fails"; bad=1; }
	run_ok clangd --version || { say "broken: clangd --version fails"; bad=1; }
	(check_npm_peers) || bad=1
	[ "$bad" = 0 ] && say "all peers run"
	return "$bad"
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
--check) check_all ;;
gopls)
	lock
	install_gopls
	;;
all)
	lock
	install_gopls
	install_npm_peers
	install_clangd
	;;
*)
	say "unknown argument $1 (want: all, gopls, --check, --print-path)"
	exit 2
	;;
esac
