package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestPublishPassesReal pins the fact Quirks.PublishesInPasses records for
// astro-ls against the real server: each version's diagnostics come in
// that many publishes, the last one complete, on a file with a type error,
// on the same file fixed (whose first pass still carries the fixed error)
// and broken again (whose first pass lacks it), and the answer, read by
// the passes (the fallback for a process that refuses the pull of
// Quirks.UnadvertisedPull), is the last pass, never an earlier one.
func TestPublishPassesReal(t *testing.T) {
	peers.Require(t, "astro-ls")
	const typeErr = "Type 'string' is not assignable to type 'number'."
	broken := "---\nconst greeting: string = \"hello\";\nconst count: number = greeting;\n---\n\n<p class=\"greeting\">{greeting}</p>\n"
	fixed := strings.Replace(broken, "count: number", "count: string", 1)
	root := copyDir(t, filepath.Join(peers.ModuleRoot(), "testdata", "languages", "astro"))
	i := slices.IndexFunc(DefaultServers(), func(s ServerConfig) bool { return s.Name == "astro-ls" })
	cfg := DefaultServers()[i]
	passes := cfg.Quirks.PublishesInPasses
	if passes < 2 {
		t.Fatalf("astro-ls's entry says PublishesInPasses %d", passes)
	}
	// The passes are the fallback for a process that refuses the pull:
	// read by them alone here.
	cfg.Quirks.UnadvertisedPull = false
	m, err := NewManager(Options{Roots: []string{root}, Env: peers.Env(), Servers: []ServerConfig{cfg}, DataDir: t.TempDir(),
		Timeouts: Timeouts{Initialize: Duration(3 * time.Minute), Request: Duration(3 * time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	events, unsub := m.Subscribe(64)
	defer unsub()
	file := filepath.Join(root, "Greeting.astro")
	for _, st := range []struct {
		name      string
		text      string
		firstHas  bool // the first pass holds the type error
		answerHas bool
	}{
		{"broken", broken, false, true},
		{"fixed", fixed, true, false},
		{"broken again", broken, false, true},
	} {
		if err := os.WriteFile(file, []byte(st.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.FileChanged(t.Context(), file); err != nil {
			t.Fatal(err)
		}
		rep, err := m.Diagnostics(t.Context(), []string{file}, DiagnosticsOptions{Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		fd := rep.Files[0]
		if fd.Verdict != Fresh || slices.Contains(messages(t, fd.Diagnostics), typeErr) != st.answerHas {
			t.Fatalf("%s: %s v%d %s (%s); want fresh, type error %v", st.name, fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail, st.answerHas)
		}
		// Every publish is delivered before the call it satisfies returns.
		var got []DiagnosticsEvent
		for drained := false; !drained; {
			select {
			case ev := <-events:
				if ev.Version == fd.Version {
					got = append(got, ev)
				}
			default:
				drained = true
			}
		}
		if len(got) != passes {
			t.Fatalf("%s: %d publishes for version %d, want %d", st.name, len(got), fd.Version, passes)
		}
		if slices.Contains(messages(t, got[0].Diagnostics), typeErr) != st.firstHas {
			t.Errorf("%s: first pass %s; want the type error %v", st.name, got[0].Diagnostics, st.firstHas)
		}
		if string(got[len(got)-1].Diagnostics) != string(fd.Diagnostics) {
			t.Errorf("%s: answer %s is not the last pass %s", st.name, fd.Diagnostics, got[len(got)-1].Diagnostics)
		}
	}
}
