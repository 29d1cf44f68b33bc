#!/usr/bin/env bash
# test.sh sets up every pinned peer (scripts/setup.sh) and runs every test
# with the race detector, then each fuzz target for a bounded time.
#
#   scripts/test.sh                 the whole suite, as CI runs it
#   FUZZTIME=30s scripts/test.sh    longer fuzzing
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# A cache named by ACP_LSP_PEERS (shared between checkouts) is used as is.
export ACP_LSP_PEERS="${ACP_LSP_PEERS:-$root/.cache}"
"$root/scripts/setup.sh" all
eval "$("$root/scripts/setup.sh" --print-path)"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt-ed:" $unformatted >&2
	exit 1
fi
echo "== go vet"
go vet ./...
# Every other platform released (scripts/release.sh) type-checks and vets
# too, the acp-lsp binary and the tests: a Unix-only call outside a
# build-tagged file fails here, not on a user's machine.
host="$(go env GOOS)/$(go env GOARCH)"
for platform in $("$root/scripts/release.sh" --platforms); do
	[ "$platform" = "$host" ] && continue
	echo "== go vet, $platform"
	GOOS=${platform%/*} GOARCH=${platform#*/} go vet ./...
done
# The acp-lsp binary never depends on the test and benchmark harnesses,
# which live under internal/test/ for that reason.
echo "== the acp-lsp binary's dependencies"
if go list -deps ./cmd/acp-lsp | grep '/internal/test/'; then
	echo "cmd/acp-lsp depends on the test harnesses above (internal/test/...)" >&2
	exit 1
fi
echo "== go test -race"
go test -race -count=1 -timeout 30m ./...
# What is Windows' own (job objects, drive letters, config folders) runs
# as Windows binaries under Wine: seconds, once Wine is installed.
echo "== Windows tests under Wine"
"$root/scripts/wine.sh"

fuzztime=${FUZZTIME:-10s}

# fuzz_one runs one target. Go 1.26's fuzz coordinator can report a bare
# "context deadline exceeded" as the -fuzztime window closes, with no
# input at fault (golang/go#75804, fixed in Go 1.27): that outcome, and
# only that one, is run once more. A real finding writes its input under
# testdata/fuzz and fails at once.
fuzz_one() {
	local log
	log=$(mktemp)
	for try in 1 2; do
		if go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" 2>&1 | tee "$log"; then
			rm -f "$log"
			return 0
		fi
		# The race's whole report is one line under the FAIL line.
		if [ "$try" = 2 ] || grep -q 'Failing input written\|panic:' "$log" ||
			! grep -q '^    context deadline exceeded$' "$log" ||
			[ "$(grep -c '^    ' "$log")" != 1 ]; then
			rm -f "$log"
			return 1
		fi
		echo "-- $1 $2: the coordinator's deadline race (golang/go#75804), no input at fault; once more"
	done
}
echo "== fuzz ($fuzztime each)"
# Every FuzzXxx function in the module gets its bounded run.
grep -rl --include='*_test.go' --exclude-dir=.cache --exclude-dir=node_modules '^func Fuzz' . | while read -r f; do
	dir=$(dirname "$f")
	for fn in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
		echo "-- $dir $fn"
		fuzz_one "$dir" "$fn"
	done
done
