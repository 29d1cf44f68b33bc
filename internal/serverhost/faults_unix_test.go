//go:build unix

package serverhost

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestAdmitReadsPeerCredentials: a real connection's uid is read from the
// kernel (SO_PEERCRED) and a host of another uid refuses it.
func TestAdmitReadsPeerCredentials(t *testing.T) {
	sock := filepath.Join(hostDir(t), "peer.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	must(t, err)
	defer ln.Close()
	c, err := dial(t.Context(), sock)
	must(t, err)
	defer c.Close()
	sc, err := ln.AcceptUnix()
	must(t, err)
	defer sc.Close()
	uid, err := peerUID(sc)
	must(t, err)
	if uid != os.Getuid() {
		t.Errorf("peer uid %d, want %d", uid, os.Getuid())
	}
	if err := (&host{uid: os.Getuid()}).admit(sc); err != nil {
		t.Errorf("own uid refused: %v", err)
	}
	if err := (&host{uid: os.Getuid() + 1}).admit(sc); err == nil {
		t.Error("a host of another uid admitted this peer")
	}
}

// TestDirRefusesUnsafeFolders: the socket folder must be the user's own
// plain folder with no access for others; it is refused, never repaired.
func TestDirRefusesUnsafeFolders(t *testing.T) {
	base := t.TempDir()
	for i, tc := range []struct {
		name string
		make func(path string)
		ok   bool
	}{
		{"made here", func(string) {}, true},
		{"0700 already", func(p string) { must(t, os.Mkdir(p, 0o700)) }, true},
		{"open to the group", func(p string) { must(t, os.Mkdir(p, 0o750)); must(t, os.Chmod(p, 0o750)) }, false},
		{"open to all", func(p string) { must(t, os.Mkdir(p, 0o777)); must(t, os.Chmod(p, 0o777)) }, false},
		{"a link to a private folder", func(p string) {
			d := filepath.Join(base, "elsewhere")
			os.Mkdir(d, 0o700)
			must(t, os.Symlink(d, p))
		}, false},
		{"a file", func(p string) { must(t, os.WriteFile(p, nil, 0o600)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Short, so its sockets fit a socket address (else Dir
			// chooses /tmp/acp-lsp-UID).
			run := filepath.Join(base, strconv.Itoa(i))
			must(t, os.Mkdir(run, 0o700))
			tc.make(filepath.Join(run, "acp-lsp"))
			dir, err := Dir(func(k string) string {
				if k == "XDG_RUNTIME_DIR" {
					return run
				}
				return ""
			})
			if tc.ok != (err == nil) {
				t.Fatalf("Dir = %q, %v; want ok %v", dir, err, tc.ok)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafeDir) {
				t.Errorf("error %v, want ErrUnsafeDir", err)
			}
		})
	}
}

// TestStaleSocket: the socket of a host that died (nobody listening) is
// removed and a new host started.
func TestStaleSocket(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "stale0000000000"
	pl := place{dir: dir, id: id}
	ln, err := listen(pl.socket())
	must(t, err)
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(pl.socket()); err != nil {
		t.Fatalf("stale socket not there: %v", err)
	}
	root, file := goWorkspace(t)
	spec := hoverSpec(dir, root, file)
	spec.Identity = id
	p := startClient(t, spec)
	if a := p.answer(t); a.Err != "" || !strings.Contains(string(a.Result), "var Answer int") {
		t.Errorf("hover over a stale socket: %s %s", a.Result, a.Err)
	}
	if h := hostPIDs(t, dir); len(h) != 1 {
		t.Errorf("hosts %v, want one", h)
	}
}
