#!/usr/bin/env bash
# release.sh builds the release binaries of acp-lsp, one per platform,
# with the version stamped (acp-lsp --version prints it), into dist/.
#
#   scripts/release.sh v1.2.3      binaries of version v1.2.3
#   scripts/release.sh             the version git describe gives
#   scripts/release.sh --platforms the platforms released, one a line
#                                  (scripts/test.sh vets each of them)
set -euo pipefail

platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
if [ "${1:-}" = --platforms ]; then
	printf '%s\n' $platforms
	exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=${1:-$(git describe --tags --always --dirty)}
out="$root/dist/$version"
rm -rf "$out"
mkdir -p "$out"
for platform in $platforms; do
	goos=${platform%/*} goarch=${platform#*/}
	exe=""
	[ "$goos" = windows ] && exe=.exe
	bin="$out/acp-lsp-$version-$goos-$goarch$exe"
	echo "-- $platform: $bin"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
		-ldflags "-s -w -X github.com/acp-lsp/acp-lsp/internal/cli.stampedVersion=$version" \
		-o "$bin" ./cmd/acp-lsp
done
# The binary of this machine's platform says the version it was stamped with.
host="$out/acp-lsp-$version-$(go env GOOS)-$(go env GOARCH)$(go env GOEXE)"
if [ -x "$host" ] && [ "$("$host" --version)" != "acp-lsp $version" ]; then
	echo "release: $host --version says '$("$host" --version)', not 'acp-lsp $version'" >&2
	exit 1
fi
(cd "$out" && sha256sum -- * >SHA256SUMS)
echo "release $version: $out"
