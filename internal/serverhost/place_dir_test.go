package serverhost

import (
	"strings"
	"testing"
)

// TestChooseDirPerPlatform: the socket folder is the platform's own
// private place when its sockets fit a unix socket address (sun_path: 104
// bytes on macOS, whose $TMPDIR is long), else /tmp/acp-lsp-UID, which
// always fits; Linux's and macOS's rules, on Linux.
func TestChooseDirPerPlatform(t *testing.T) {
	const macTemp = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/"
	long := "/" + strings.Repeat("d", 90)
	for _, tc := range []struct {
		name string
		env  dirEnv
		want string
	}{
		{"linux, runtime folder", dirEnv{goos: "linux", runtimeDir: "/run/user/1000", tempDir: "/tmp", cacheDir: "/home/a/.cache", uid: 1000}, "/run/user/1000/acp-lsp"},
		{"linux, none", dirEnv{goos: "linux", tempDir: "/tmp", cacheDir: "/home/a/.cache", uid: 1000}, "/tmp/acp-lsp-1000"},
		{"linux, relative runtime folder", dirEnv{goos: "linux", runtimeDir: "run", tempDir: "/var/tmp", uid: 1000}, "/var/tmp/acp-lsp-1000"},
		{"linux, runtime folder too long", dirEnv{goos: "linux", runtimeDir: long, tempDir: "/var/tmp", uid: 1000}, "/var/tmp/acp-lsp-1000"},
		{"linux, runtime and temporary folders too long", dirEnv{goos: "linux", runtimeDir: long, tempDir: long, uid: 1000}, "/tmp/acp-lsp-1000"},
		{"darwin, caches", dirEnv{goos: "darwin", tempDir: macTemp, cacheDir: "/Users/alice/Library/Caches", uid: 501}, "/Users/alice/Library/Caches/acp-lsp"},
		{"darwin, runtime folder set", dirEnv{goos: "darwin", runtimeDir: "/Users/alice/.run", tempDir: macTemp, cacheDir: "/Users/alice/Library/Caches", uid: 501}, "/Users/alice/.run/acp-lsp"},
		{"darwin, caches too long", dirEnv{goos: "darwin", tempDir: macTemp, cacheDir: long, uid: 501}, "/tmp/acp-lsp-501"},
		{"darwin, no home", dirEnv{goos: "darwin", tempDir: macTemp, uid: 501}, "/tmp/acp-lsp-501"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chooseDir(tc.env)
			if got != tc.want {
				t.Errorf("chooseDir = %q, want %q", got, tc.want)
			}
			if s := (place{dir: got, id: strings.Repeat("0", identityLen)}).socket(); len(s) > maxSocketPath {
				t.Errorf("socket %s: %d bytes, more than a socket address holds (%d)", s, len(s), maxSocketPath)
			}
		})
	}
}
