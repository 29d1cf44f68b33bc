#!/usr/bin/env bash
# test.sh sets up every pinned peer (scripts/setup.sh) and runs every test
# with the race detector, then each fuzz target for a bounded time.
#
#   scripts/test.sh                 the whole suite, as CI runs it
#   FUZZTIME=30s scripts/test.sh    longer fuzzing
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/setup.sh" all
eval "$("$root/scripts/setup.sh" --print-path)"
export ACP_LSP_PEERS="$root/.cache"

echo "== go vet"
go vet ./...
echo "== go test -race"
go test -race -count=1 -timeout 30m ./...

fuzztime=${FUZZTIME:-10s}
echo "== fuzz ($fuzztime each)"
# Every FuzzXxx function in the module gets its bounded run.
grep -rl --include='*_test.go' --exclude-dir=.cache --exclude-dir=node_modules '^func Fuzz' . | while read -r f; do
	dir=$(dirname "$f")
	for fn in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
		echo "-- $dir $fn"
		go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$fuzztime" "$dir"
	done
done
