#!/usr/bin/env bash
# wine.sh runs the Windows test binaries of the packages whose behaviour is
# Windows' own (process trees in job objects, paths and file URIs, where
# configuration lives) under Wine, on Linux: cross-compiled for
# windows/amd64, each run once, as scripts/test.sh does after the Linux
# suite. Nothing else of the suite runs there: the real peers it drives
# are Linux builds.
#
#   scripts/wine.sh            install Wine if missing (as root, with apt), run them
#   scripts/wine.sh PKG...     only these packages (./internal/reap/ ...)
#
# Debian's Wine (8.0) lacks bcryptprimitives.dll, whose ProcessPrng every
# Go program since Go 1.24 loads at start: a stub whose one export
# forwards to advapi32's RtlGenRandom (SystemFunction036, the same call)
# is linked here with MinGW's binutils into the Wine prefix, .cache/wine.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
packages=(./internal/reap/)
if [ $# -gt 0 ]; then
	packages=("$@")
fi

say() { printf 'wine: %s\n' "$*" >&2; }

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-ld >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing Wine and MinGW's binutils (apt-get)"
		apt-get update -qq >&2 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
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

status=0
for pkg in "${packages[@]}"; do
	exe="$dir/bin/$(echo "${pkg#./}" | tr / _ | sed 's/_$//').test.exe"
	GOOS=windows GOARCH=amd64 go test -c -o "$exe" "$pkg"
	# Run in its package's folder, as go test runs a test (testdata/).
	if (cd "$pkg" && wine "$exe" -test.count=1 -test.timeout=5m); then
		echo "ok   $pkg (windows/amd64 under Wine)"
	else
		echo "FAIL $pkg (windows/amd64 under Wine)"
		status=1
	fi
done
# The prefix's server, and whatever a failed test left in it, ends here.
wineserver -k 2>/dev/null || true
exit $status
