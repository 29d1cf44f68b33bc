#!/usr/bin/env bash
# wine.sh runs the Windows test binaries of the packages whose behaviour is
# Windows' own (process trees in job objects, paths and file URIs, where
# configuration lives) under Wine, on Linux: cross-compiled for
# windows/amd64, each run once, as scripts/test.sh does after the Linux
# suite. Nothing else of the suite runs there: the real peers it drives
# are Linux builds.
#
#   scripts/wine.sh            install Wine if missing (as root, with apt), run them
#   scripts/wine.sh PKG=REGEX  only this package's tests matching REGEX
#
# Debian's Wine (8.0) lacks two things Go's Windows port uses:
# - bcryptprimitives.dll, whose ProcessPrng every Go program since Go 1.24
#   loads at start: a stub whose one export forwards to advapi32's
#   RtlGenRandom (SystemFunction036, the same call) is linked here with
#   MinGW's binutils into the Wine prefix, .cache/wine;
# - FileDispositionInformationEx, with which os.RemoveAll deletes a file
#   (Wine answers STATUS_NOT_IMPLEMENTED, which Go does not take for "use
#   the old way"), so every t.TempDir fails its cleanup: each test binary
#   gets, through -overlay (nothing in the tree changes), a file that sets
#   Go's own switch to the old way (internal/syscall/windows's
#   TestDeleteatFallback, reached by linkname).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# What is Windows' own, package=tests: the job objects; the file URI and
# path rules (the rest of lsp/edit's tests assume Unix paths, modes and
# symbolic links); the diagnostics cache's URI keys; where configuration
# and the trust store live; the shared server host on its named pipe, with
# the fake language server (prebuilt below: no Go toolchain runs there),
# and the process waits its tests use; how a server's command is found
# (gopls.exe); the machine's and processes' memory; and the demo end to
# end: acp-lsp.exe, its scripted agent and a Windows gopls.exe
# (scripts/setup.sh windows-gopls builds it and the go.exe it runs) on
# Windows' PATH.
packages=(
	"./internal/reap/=."
	"./lsp/edit/=OnWindows|WindowsURIRules|CleanWindows"
	"./lsp/=OnWindows"
	"./component/=OnWindows"
	"./internal/config/=OnWindows"
	"./internal/test/proctest/=OnWindows"
	"./internal/serverhost/=OnWindows|CheckSID|CheckFolderOwner|PipeIsTheUsers|CheckUID|HostKilledMidCall|HostEndsWithItsLastClient|ClientKilledMidCall|AskNativeThroughHost|BudgetAcrossProfiles|SessionsSeeTheirOwnWorld|PeekThroughHost|CallAtOnceAfterConnect|CheckTimeoutThroughHost"
	"./internal/demo/=SampleDemoOnWindows"
	"./internal/memory/=TestTotal|TestResident"
)
if [ $# -gt 0 ]; then
	packages=("$@")
fi

say() { printf 'wine: %s\n' "$*" >&2; }

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-ld >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing Wine and MinGW's binutils (apt-get)"
		apt-get update -qq >&2 || true
		# With recommends, as verified (about 160 MB, once).
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			wine wine64 binutils-mingw-w64-x86-64 >&2
	else
		say "Wine or MinGW's binutils is missing: install them (Debian/Ubuntu: sudo apt-get install wine wine64 binutils-mingw-w64-x86-64)"
		exit 1
	fi
fi

dir="$root/.cache/wine"
export WINEPREFIX="$dir/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$dir/bin"
stub="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$stub" ]; then
	say "making the Wine prefix $WINEPREFIX"
	wineboot -i >/dev/null 2>&1
	printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng = advapi32.SystemFunction036\n' >"$dir/bcryptprimitives.def"
	x86_64-w64-mingw32-as -o "$dir/empty.o" </dev/null
	x86_64-w64-mingw32-ld -shared -e 0 -o "$dir/bcryptprimitives.dll" "$dir/bcryptprimitives.def" "$dir/empty.o"
	cp "$dir/bcryptprimitives.dll" "$stub"
fi

# The fake language server the tests start (fakelsp.PrebuiltEnv).
GOOS=windows GOARCH=amd64 go build -o "$dir/bin/fakelsp.exe" ./internal/test/fakelsp/cmd/fakelsp
ACP_LSP_FAKELSP=$(winepath -w "$dir/bin/fakelsp.exe")
export ACP_LSP_FAKELSP

# The demo's gopls.exe and go.exe, on the Windows PATH (Wine's Z: is /).
# The Linux Go's variables would mislead go.exe (not Windows paths); it
# finds its GOROOT beside itself, and the sample needs no module download.
for entry in "${packages[@]}"; do
	if [ "${entry%%=*}" = ./internal/demo/ ]; then
		"$root/scripts/setup.sh" windows-gopls
		gobin="${ACP_LSP_PEERS:-$root/.cache}/windows/go/bin"
		export WINEPATH="Z:${gobin//\//\\}"
		break
	fi
done
winenv=(env -u GOROOT -u GOPATH -u GOMODCACHE -u GOCACHE -u GOENV -u GOFLAGS GOTOOLCHAIN=local GOPROXY=off)

status=0
for entry in "${packages[@]}"; do
	pkg=${entry%%=*} run=${entry#*=}
	name=$(echo "${pkg#./}" | tr / _ | sed 's/_$//')
	exe="$dir/bin/$name.test.exe"
	pkgdir=$(go list -f '{{.Dir}}' "$pkg")
	sed "s/^package main\$/package $(go list -f '{{.Name}}' "$pkg")/" "$root/scripts/wine-deleteat.go.txt" >"$dir/bin/$name.wine.go"
	printf '{"Replace":{"%s/zz_wine_windows_test.go":"%s"}}' "$pkgdir" "$dir/bin/$name.wine.go" >"$dir/bin/$name.overlay.json"
	GOOS=windows GOARCH=amd64 go test -c -overlay "$dir/bin/$name.overlay.json" -ldflags=-checklinkname=0 -o "$exe" "$pkg"
	# Run in its package's folder, as go test runs a test (testdata/).
	if (cd "$pkgdir" && "${winenv[@]}" wine "$exe" -test.run "$run" -test.count=1 -test.timeout=5m); then
		echo "ok   $pkg (windows/amd64 under Wine)"
	else
		echo "FAIL $pkg (windows/amd64 under Wine)"
		status=1
	fi
done
# The prefix's server, and whatever a failed test left in it, ends here.
wineserver -k 2>/dev/null || true
exit $status
