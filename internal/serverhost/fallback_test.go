package serverhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
)

// TestHostThatCannotStartFallsBack: when the server host cannot start (its
// socket would not fit a socket address; the binary run as the host
// fails) or will not take this process, the client runs the language servers in this process, says so
// in a warning, and answers as it would through the host: a real gopls's
// hover, from a gopls this process started.
func TestHostThatCannotStartFallsBack(t *testing.T) {
	peers.Require(t, "gopls")
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"socket too long", func(t *testing.T) Config {
			dir := filepath.Join(hostDir(t), strings.Repeat("d", maxSocketPath))
			must(t, os.Mkdir(dir, 0o700))
			return Config{Dir: dir, Identity: "fallback00000000"}
		}},
		{"host binary fails", func(t *testing.T) Config {
			return Config{Dir: hostDir(t), Identity: "fallback00000001", Executable: "/bin/false"}
		}},
		{"host refuses this process", func(t *testing.T) Config {
			// As a host that cannot read the peer's credentials does:
			// every connection closed unanswered.
			dir, id := hostDir(t), "fallback00000002"
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: place{dir: dir, id: id}.socket(), Net: "unix"})
			must(t, err)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			t.Cleanup(func() {
				ln.Close()
				<-done
			})
			return Config{Dir: dir, Identity: id}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, file := goWorkspace(t)
			var logs syncbuf.Buffer
			cfg := tc.cfg(t)
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			spec := hoverSpec(cfg.Dir, root, file)
			c, err := NewClient(spec.options(), cfg)
			must(t, err)
			t.Cleanup(func() { c.Close(context.Background()) })
			res, err := c.Request(t.Context(), file, spec.Method, json.RawMessage(spec.Params))
			if err != nil {
				t.Fatalf("hover: %v\nlog:\n%s", err, logs.String())
			}
			if !strings.Contains(string(res), "Answer") {
				t.Errorf("hover: %s, want Answer's", res)
			}
			if !strings.Contains(logs.String(), "level=WARN msg=\"the shared server host cannot start") {
				t.Errorf("no warning that the host cannot start; log:\n%s", logs.String())
			}
			var gopls int
			for _, s := range c.Servers() {
				if s.Name == "gopls" {
					gopls = s.PID
				}
			}
			// This process's, through its reap guard.
			p, ok := procfs.ReadStat(gopls)
			g, gok := procfs.ReadStat(p.PPid)
			if !ok || !gok || g.PPid != os.Getpid() {
				t.Errorf("gopls %d (%v), its parent %d (%v), whose parent is %d: want this process (%d)", gopls, ok, p.PPid, gok, g.PPid, os.Getpid())
			}
		})
	}
}
