package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestUnadvertisedPullReal: the real astro-ls, pulled although it offers
// no pull (Quirks.UnadvertisedPull), answers with the complete list after
// a settings push made it check the same version again: Volar drops its
// cached type check on a settings push, so the re-check's first publish,
// a third of the version, lacks the type error. Counting passes
// (PublishesInPasses) took that one for the answer, "no problems" on a
// broken file; the pull is the server's word on the version, in a check
// too.
func TestUnadvertisedPullReal(t *testing.T) {
	peers.Require(t, "astro-ls")
	const typeErr = "Type 'string' is not assignable to type 'number'."
	broken := "---\nconst greeting: string = \"hello\";\nconst count: number = greeting;\n---\n\n<p class=\"greeting\">{greeting}</p>\n"
	root := copyDir(t, filepath.Join(peers.ModuleRoot(), "testdata", "languages", "astro"))
	i := slices.IndexFunc(DefaultServers(), func(s ServerConfig) bool { return s.Name == "astro-ls" })
	cfg := DefaultServers()[i]
	m, err := NewManager(Options{Roots: []string{root}, Env: peers.Env(), Servers: []ServerConfig{cfg}, DataDir: t.TempDir(),
		Timeouts: Timeouts{Initialize: Duration(3 * time.Minute), Request: Duration(3 * time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	file := filepath.Join(root, "Greeting.astro")
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := func(what string) FileDiagnostics {
		t.Helper()
		rep, err := m.Diagnostics(t.Context(), []string{file}, DiagnosticsOptions{Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		fd := rep.Files[0]
		if fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), typeErr) {
			t.Fatalf("%s: %s v%d %s (%s); want fresh with the type error", what, fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail)
		}
		return fd
	}
	fd := ask("before the settings push")
	events, unsub := m.Subscribe(64)
	defer unsub()
	p := m.running()[0]
	if _, ok := p.pullSupported(); !ok || len(p.advertisedPulls()) != 0 {
		t.Fatalf("astro-ls offers pull %v, or is not pulled", p.advertisedPulls())
	}
	if err := p.notify("workspace/didChangeConfiguration", json.RawMessage(`{"settings":{}}`)); err != nil {
		t.Fatal(err)
	}
	// The re-check's first publish of the same version, without the
	// type error: what a pass count would answer with from here on.
	for ev := range events {
		if ev.Version == fd.Version && !slices.Contains(messages(t, ev.Diagnostics), typeErr) {
			break
		}
	}
	ask("after the re-check's first pass")
	// A check takes the same path: the fixed text pulled, without the
	// type error, the disk's with it.
	cr, err := m.Check(t.Context(), file, strings.Replace(broken, "count: number", "count: string", 1), DiagnosticsOptions{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if b, a := cr.Before, cr.After; b.Verdict != Fresh || a.Verdict != Fresh ||
		!slices.Contains(messages(t, b.Diagnostics), typeErr) || slices.Contains(messages(t, a.Diagnostics), typeErr) {
		t.Fatalf("check: before %s %s (%s), after %s %s (%s); want both fresh, the type error only before",
			b.Verdict, b.Diagnostics, b.Detail, a.Verdict, a.Diagnostics, a.Detail)
	}
	ask("after the check")
}
