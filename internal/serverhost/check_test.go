package serverhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestCheckThroughHost: `_lsp/check` of an adapter whose servers run in
// the host answers with what the unsaved content adds, from the host's
// gopls, while another client of the same gopls never sees the checked
// content: no diagnostics of it are sent to it, and its diagnostics
// afterwards are the disk's. The disk is not written.
func TestCheckThroughHost(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "check00000000000"
	serveHere(t, dir, id)
	root, file := goWorkspace(t)
	disk, err := os.ReadFile(file)
	must(t, err)
	opts := lsp.Options{Roots: []string{root}, Env: peers.Env()}
	other, err := NewClient(opts, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { other.Close(context.Background()) })
	events, unsub := other.Subscribe(256)
	defer unsub()
	ctx := context.Background()
	if rep, err := other.Diagnostics(ctx, []string{file}, lsp.DiagnosticsOptions{}); err != nil || rep.Files[0].Verdict != lsp.Fresh {
		t.Fatalf("the other client's diagnostics before: %+v, %v", rep, err)
	}
	chain := hostChain(t, dir, id, root)
	const broken = `var Answer int = "forty-two"`
	text := strings.Replace(string(disk), "var Answer = 42", broken, 1)
	raw, err := chain.Agent.Call(ctx, lspext.Check, lspext.CheckParams{URI: edit.URIFromPath(file), Text: text})
	must(t, err)
	var res lspext.CheckResult
	must(t, json.Unmarshal(raw, &res))
	if !lspext.Clean(res.Servers) || !strings.Contains(string(res.Added), "cannot use") {
		t.Fatalf("check through the host: %s, want the type error added with a fresh verdict", raw)
	}
	if b, _ := os.ReadFile(file); string(b) != string(disk) {
		t.Errorf("the disk after the check: %q", b)
	}
	rep, err := other.Diagnostics(ctx, []string{file}, lsp.DiagnosticsOptions{})
	must(t, err)
	if f := rep.Files[0]; f.Verdict != lsp.Fresh || strings.Contains(string(f.Diagnostics), "cannot use") {
		t.Errorf("the other client's diagnostics after the check: %s %s", f.Verdict, f.Diagnostics)
	}
	for {
		select {
		case ev := <-events:
			if strings.Contains(string(ev.Diagnostics), "cannot use") {
				t.Errorf("the other client was sent the checked content's diagnostics: %s", ev.Diagnostics)
			}
			continue
		default:
		}
		break
	}
}

// TestCheckTimeoutThroughHost: a check whose server does not report in
// time comes back through the host as a timeout verdict, never as "no
// diagnostics".
func TestCheckTimeoutThroughHost(t *testing.T) {
	dir := hostDir(t)
	id := "checkto000000000"
	servers := fakeServers(t, fakelsp.Script{Diagnostics: fakelsp.DiagPush, PublishDelay: fakelsp.Duration(time.Hour)})
	// The host goes first at the cleanup: its servers hold their
	// record files open, which Windows does not delete.
	serveHere(t, dir, id)
	root := t.TempDir()
	file := filepath.Join(root, "a.go")
	must(t, os.WriteFile(file, []byte("package a\n"), 0o644))
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { c.Close(context.Background()) })
	must(t, c.Prewarm(t.Context(), file)) // running: the wait is the report's, not the start's
	rep, err := c.Check(t.Context(), file, "package a\n\nvar x int = \"y\"\n", lsp.DiagnosticsOptions{Timeout: 200 * time.Millisecond})
	must(t, err)
	if rep.After.Verdict != lsp.Timeout || string(rep.Added) != "[]" {
		t.Errorf("check with a silent server: after %s (%s), added %s; want a timeout and no delta", rep.After.Verdict, rep.After.Detail, rep.Added)
	}
}

// hostChain runs an editor-side chain whose adapter's local servers are
// those of the host in dir with identity id, initialized, with a session
// on root.
func hostChain(t *testing.T, dir, id, root string) *stacktest.Chain {
	t.Helper()
	a, err := adapter.New(adapter.Config{
		LSP: lsp.Options{Env: peers.Env()},
		Host: func(o lsp.Options) (adapter.LocalServers, error) {
			return NewClient(o, Config{Dir: dir, Identity: id})
		},
	})
	must(t, err)
	t.Cleanup(func() { a.Close() })
	chain := stacktest.Run(t, stacktest.Config{Stages: []proxy.Stage{a}})
	chain.Initialize(t, `{"fs":{"readTextFile":true}}`, `{"loadSession":true}`)
	chain.NewSession(t, root)
	return chain
}
