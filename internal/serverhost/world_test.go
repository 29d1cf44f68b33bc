package serverhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestProfileCoversOptions: every lsp.Options field that decides how a
// server runs is in the profile (so two clients differing in it never
// share a server); the others cannot cross a process boundary or are
// per client.
func TestProfileCoversOptions(t *testing.T) {
	notShared := []string{"Roots", "Connect", "Logger", "Budget"}
	pt := reflect.TypeFor[profile]()
	for f := range reflect.TypeFor[lsp.Options]().Fields() {
		_, in := pt.FieldByName(f.Name)
		if in == slices.Contains(notShared, f.Name) {
			t.Errorf("lsp.Options.%s: in the profile %v, want %v", f.Name, in, !in)
		}
	}
}

// serveHere runs a host in this process on a socket of dir for build id
// and returns a function that stops it.
func serveHere(t testing.TB, dir, id string) {
	t.Helper()
	pl := place{dir: dir, id: id}
	ln, err := listen(pl.socket())
	must(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, HostConfig{Listener: ln, Socket: pl.socket(), Identity: id}) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// TestSessionsSeeTheirOwnWorld: clients of one host with the same server
// settings share the Manager, yet a client may ask only about files under
// its own roots, and a server's diagnostics reach exactly the clients
// whose roots hold the file.
func TestSessionsSeeTheirOwnWorld(t *testing.T) {
	dir := hostDir(t)
	id := "world00000000000"
	servers := fakeServers(t, fakelsp.Script{})
	// The host goes first at the cleanup: its servers hold their
	// record files open, which Windows does not delete.
	serveHere(t, dir, id)
	ws, other := t.TempDir(), t.TempDir()
	wsFile, otherFile := filepath.Join(ws, "a.go"), filepath.Join(other, "b.go")
	must(t, os.WriteFile(wsFile, []byte("package a\n"), 0o644))
	must(t, os.WriteFile(otherFile, []byte("package b\n"), 0o644))
	client := func(root string) (*Client, <-chan lsp.DiagnosticsEvent) {
		c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Identity: id})
		must(t, err)
		t.Cleanup(func() { c.Close(context.Background()) })
		ch, _ := c.Subscribe(16)
		return c, ch
	}
	a, aEvents := client(ws)
	c, cEvents := client(ws)
	b, bEvents := client(other)
	ctx := t.Context()
	must(t, b.Prewarm(ctx, otherFile)) // b's root is in the shared Manager now

	// a may not reach b's file, though the host's Manager holds b's root.
	_, err := a.Request(ctx, otherFile, "textDocument/hover", []byte(`{"textDocument":{"uri":"`+edit.URIFromPath(otherFile)+`"},"position":{"line":0,"character":0}}`))
	if !errors.Is(err, lsp.ErrOutsideWorkspace) {
		t.Errorf("a asking about b's file: %v, want ErrOutsideWorkspace", err)
	}
	rep, err := a.Diagnostics(ctx, []string{wsFile, otherFile}, lsp.DiagnosticsOptions{})
	must(t, err)
	if v := rep.Files[1].Verdict; v != lsp.Failed {
		t.Errorf("a's diagnostics of b's file: verdict %s, want failed", v)
	}
	if v := rep.Files[0].Verdict; v != lsp.Fresh {
		t.Errorf("a's diagnostics of its file: verdict %s (%s), want fresh", v, rep.Files[0].Detail)
	}
	for name, ch := range map[string]<-chan lsp.DiagnosticsEvent{"a": aEvents, "c": cEvents} {
		if ev := <-ch; ev.Path != wsFile {
			t.Errorf("%s got diagnostics of %s first, want %s", name, ev.Path, wsFile)
		}
	}
	// b's first event is of its own file: a's, published before, never
	// reached it.
	_, err = b.Diagnostics(ctx, []string{otherFile}, lsp.DiagnosticsOptions{})
	must(t, err)
	if ev := <-bEvents; ev.Path != otherFile {
		t.Errorf("b got diagnostics of %s, want only its own %s", ev.Path, otherFile)
	}
	// a leaving stops nothing c uses.
	must(t, a.Close(ctx))
	if _, err := c.Diagnostics(ctx, []string{wsFile}, lsp.DiagnosticsOptions{}); err != nil {
		t.Errorf("c after a left: %v", err)
	}
	if st := c.Servers(); len(st) != 1 || st[0].Root != ws || st[0].State != lsp.StateRunning {
		t.Errorf("c's servers after a left: %+v, want its running server only", st)
	}
}

// TestBuiltBinaryRunsTheHost: acp-lsp's own `host` command serves a
// client (the hidden command of internal/cli).
func TestBuiltBinaryRunsTheHost(t *testing.T) {
	peers.Require(t, "gopls")
	bin := peerrun.BuildACPLSP(t)
	dir := hostDir(t)
	root, file := goWorkspace(t)
	c, err := NewClient(lsp.Options{Roots: []string{root}, Env: peers.Env()}, Config{Dir: dir, Executable: bin, Idle: -1})
	must(t, err)
	defer c.Close(context.Background())
	spec := hoverSpec(dir, root, file)
	res, err := c.Request(t.Context(), file, spec.Method, []byte(spec.Params))
	if err != nil || !bytesContain(res, "var Answer int") {
		t.Errorf("hover through acp-lsp host: %s, %v", res, err)
	}
	if h := hostPIDs(t, dir); len(h) != 1 {
		t.Errorf("hosts %v, want one acp-lsp host", h)
	}
}

func bytesContain(b []byte, s string) bool { return strings.Contains(string(b), s) }
