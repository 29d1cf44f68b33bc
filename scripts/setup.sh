#!/usr/bin/env bash
# setup.sh installs the pinned real peers acp-lsp's tests and demo run
# against into .cache/ (ignored by git), once; later runs reuse the cache.
#
#   scripts/setup.sh            everything the tests need
#   scripts/setup.sh gopls      only gopls (what the demo needs)
#   scripts/setup.sh servers    only the language servers of the language tests
#   scripts/setup.sh windows-gopls  gopls and Go for Windows (scripts/wine.sh's demo)
#   scripts/setup.sh --check    run every installed peer once, say what is broken
#
# ACP_LSP_PEERS names another cache folder (the tests read the same variable),
# so several checkouts can share one set of installs.
#
# Safe to run again and from two shells at once: a lock serialises installs
# into .cache, and each peer is verified by running it after installing.
#
# Afterwards put them on PATH with: eval "$(scripts/setup.sh --print-path)"
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${ACP_LSP_PEERS:-$root/.cache}"
bin="$cache/bin"
peers="$cache/peers"
servers="$cache/servers"
GOPLS_VERSION=v0.23.0
# Language servers built from the Go module proxy, pinned. terraform-ls
# v0.39.1 does not build from the module proxy; v0.39.0 does.
GO_SERVERS=(
	"terraform-ls github.com/hashicorp/terraform-ls@v0.39.0"
	"buf github.com/bufbuild/buf/cmd/buf@v1.75.0"
	"efm-langserver github.com/mattn/efm-langserver@v0.0.57"
	"templ github.com/a-h/templ/cmd/templ@v0.3.1118"
)
# Language servers from Debian packages (Debian 12's versions are what the
# language tests pin): ccls, pylsp with its pyflakes and pycodestyle
# plugins, fortls, and shellcheck, which bash-language-server runs.
APT_SERVERS=(ccls python3-pylsp python3-pyflakes python3-pycodestyle fortran-language-server shellcheck)

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
	printf 'export PATH=%q:%q:%q:"$PATH"\n' "$bin" "$peers/node_modules/.bin" "$servers/node_modules/.bin"
}

install_gopls() {
	if [ -x "$bin/gopls" ] && "$bin/gopls" version 2>/dev/null | grep -q "$GOPLS_VERSION"; then
		return
	fi
	say "installing gopls $GOPLS_VERSION into $bin (about 2 minutes the first time)"
	mkdir -p "$bin"
	GOBIN="$bin" GOFLAGS=-mod=mod go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
}

# install_windows_gopls builds, for scripts/wine.sh, gopls GOPLS_VERSION and
# the Go in use (go.exe and the tools `go list` asks for their versions:
# compile, asm, link) as Windows programs into $cache/windows/go, a Windows
# GOROOT whose sources are links to this Go's. Built from sources because
# the module proxy refuses the Windows toolchain zips to this environment
# (golang.org/toolchain@v0.0.1-go1.26.8.windows-amd64: 403). Each gets
# Wine's os.RemoveAll fallback (scripts/wine-deleteat.go.txt).
install_windows_gopls() {
	local dir="$cache/windows" goroot want src tmp e
	goroot=$(go env GOROOT)
	want="gopls $GOPLS_VERSION, $(go env GOVERSION)"
	if [ -f "$dir/go/bin/gopls.exe" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$want" ]; then
		return
	fi
	say "building $want for windows/amd64 into $dir (a few minutes the first time)"
	rm -rf "$dir"
	mkdir -p "$dir/go/bin" "$dir/go/pkg/tool/windows_amd64"
	for e in "$goroot"/*; do
		case ${e##*/} in bin | pkg) ;; *) ln -s "$e" "$dir/go/${e##*/}" ;; esac
	done
	ln -s "$goroot/pkg/include" "$dir/go/pkg/include"
	printf '{"Replace":{"%s/src/cmd/go/zz_wine_windows.go":"%s"}}' "$goroot" "$root/scripts/wine-deleteat.go.txt" >"$dir/go.overlay.json"
	(cd "$goroot/src" &&
		GOOS=windows GOARCH=amd64 go build -trimpath -overlay "$dir/go.overlay.json" -ldflags=-checklinkname=0 -o "$dir/go/bin/go.exe" ./cmd/go &&
		GOOS=windows GOARCH=amd64 go build -trimpath -o "$dir/go/pkg/tool/windows_amd64/" ./cmd/compile ./cmd/asm ./cmd/link)
	# gopls's own module, copied out of the read-only module cache
	# (which -overlay may not touch) to add the fallback.
	tmp=$(mktemp -d)
	src=$(cd "$tmp" && go mod download -json "golang.org/x/tools/gopls@$GOPLS_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	cp -r "$src" "$tmp/gopls"
	chmod -R u+w "$tmp/gopls"
	cp "$root/scripts/wine-deleteat.go.txt" "$tmp/gopls/zz_wine_windows.go"
	(cd "$tmp/gopls" && GOOS=windows GOARCH=amd64 GOFLAGS=-mod=mod go build -trimpath -ldflags=-checklinkname=0 -o "$dir/go/bin/gopls.exe" .)
	rm -rf "$tmp"
	echo "$want" >"$dir/.version"
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
	(check_npm_servers) || bad=1
	(check_go_servers) || bad=1
	(check_apt_servers) || bad=1
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

# install_npm_servers installs the language servers of the language tests
# from scripts/servers (a lockfile of their own, so the test peers' stays
# as it is) and links TypeScript 7's native tsc into $bin, ahead of
# typescript 5.9.3's tsc on PATH.
install_npm_servers() {
	local stamp="$servers/.lock-sha"
	local want
	want=$(sha256sum "$root/scripts/servers/package-lock.json" | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -L "$bin/tsc" ]; then
		return
	fi
	command -v npm >/dev/null || { say "npm is missing: install Node.js 20 and npm (apt-get install nodejs npm)"; exit 1; }
	say "installing pinned npm language servers into $servers (about 5 minutes the first time)"
	mkdir -p "$servers" "$bin"
	cp "$root/scripts/servers/package.json" "$root/scripts/servers/package-lock.json" "$servers/"
	rm -f "$stamp"
	(cd "$servers" && npm install --no-audit --no-fund --loglevel=error >&2)
	ln -sfn "$servers/node_modules/typescript7/bin/tsc" "$bin/tsc"
	check_npm_servers
	echo "$want" >"$stamp"
}

# lsp_ok starts a language server in an empty folder and checks that it
# answers initialize and shuts down (scripts/servers/lspcheck.mjs).
lsp_ok() {
	local dir rc=0
	dir=$(mktemp -d)
	(cd "$dir" && PATH="$bin:$servers/node_modules/.bin:$PATH" node "$root/scripts/servers/lspcheck.mjs" "$@") >/dev/null 2>&1 || rc=1
	rm -rf "$dir"
	return "$rc"
}

# check_npm_servers runs each npm language server once through initialize.
check_npm_servers() {
	local bad=0 cmd
	for cmd in "bash-language-server start" "yaml-language-server --stdio" \
		"vscode-html-language-server --stdio" "vscode-css-language-server --stdio" \
		"vscode-json-language-server --stdio" "vscode-eslint-language-server --stdio" \
		"docker-langserver --stdio" "intelephense --stdio" "vue-language-server --stdio" \
		"svelteserver --stdio" "tailwindcss-language-server --stdio" "tombi lsp" \
		"sql-language-server up --method stdio" "graphql-lsp server -m stream" "tsc --lsp --stdio"; do
		# shellcheck disable=SC2086
		lsp_ok $cmd || { say "broken: $cmd does not answer initialize"; bad=1; }
	done
	LSPCHECK_INIT_OPTIONS="{\"typescript\":{\"tsdk\":\"$servers/node_modules/typescript/lib\"}}" lsp_ok astro-ls --stdio ||
		{ say "broken: astro-ls --stdio does not answer initialize"; bad=1; }
	"$bin/tsc" --version 2>/dev/null | grep -q '^Version 7\.' || { say "broken: $bin/tsc --version is not TypeScript 7"; bad=1; }
	if [ "$bad" != 0 ]; then
		say "npm language servers are broken; remove $servers and run scripts/setup.sh servers again"
		exit 1
	fi
}

# install_go_servers builds the Go language servers of GO_SERVERS into
# $bin, each once per pinned version (a stamp file records it).
install_go_servers() {
	local entry name mod
	for entry in "${GO_SERVERS[@]}"; do
		name=${entry%% *}
		mod=${entry#* }
		if [ -x "$bin/$name" ] && [ "$(cat "$bin/.$name.version" 2>/dev/null)" = "$mod" ]; then
			continue
		fi
		say "building $mod into $bin"
		mkdir -p "$bin"
		GOBIN="$bin" GOFLAGS=-mod=mod go install "$mod"
		echo "$mod" >"$bin/.$name.version"
	done
	check_go_servers
}

check_go_servers() {
	local bad=0
	lsp_ok terraform-ls serve || { say "broken: terraform-ls serve does not answer initialize"; bad=1; }
	lsp_ok buf lsp serve || { say "broken: buf lsp serve does not answer initialize"; bad=1; }
	lsp_ok efm-langserver || { say "broken: efm-langserver does not answer initialize"; bad=1; }
	lsp_ok templ lsp || { say "broken: templ lsp does not answer initialize"; bad=1; }
	[ "$bad" = 0 ] || exit 1
}

# install_apt_servers installs APT_SERVERS from Debian packages, as root on
# a fresh CI machine; elsewhere it says what to install.
install_apt_servers() {
	local missing=() p
	for p in "${APT_SERVERS[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ "${#missing[@]}" = 0 ]; then
		check_apt_servers
		return
	fi
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing ${missing[*]} from Debian packages"
		apt-get update -qq >&2 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
	else
		say "missing Debian packages: install them (sudo apt-get install ${missing[*]})"
		exit 1
	fi
	check_apt_servers
}

check_apt_servers() {
	local bad=0
	lsp_ok ccls || { say "broken: ccls does not answer initialize"; bad=1; }
	lsp_ok pylsp || { say "broken: pylsp does not answer initialize"; bad=1; }
	lsp_ok fortls || { say "broken: fortls does not answer initialize"; bad=1; }
	run_ok shellcheck --version || { say "broken: shellcheck --version fails"; bad=1; }
	[ "$bad" = 0 ] || exit 1
}

install_servers() {
	install_apt_servers
	install_go_servers
	install_npm_servers
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
	install_servers
	;;
servers)
	lock
	install_servers
	;;
windows-gopls)
	lock
	install_windows_gopls
	;;
*)
	say "unknown argument $1 (want: all, gopls, servers, windows-gopls, --check, --print-path)"
	exit 2
	;;
esac
