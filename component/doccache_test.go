package component

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// TestDocCache: a document is served again only while the file is
// unchanged, never for a file written within racyWindow of its read, and
// a changed size, time or file (a rename over it) reads anew.
func TestDocCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	old := time.Now().Add(-time.Hour)
	write := func(text string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	c := docCache{limit: edit.DefaultMaxFileSize}
	read := func() string {
		t.Helper()
		d, err := c.read(path)
		if err != nil {
			t.Fatal(err)
		}
		return d.Text()
	}
	write("one\n", old)
	first, _ := c.read(path)
	if again, _ := c.read(path); again != first {
		t.Fatal("an unchanged file was read again")
	}
	// Same size, same time, other content: only a racy write could do it,
	// and the rule keeps those out; a test has to forge it with Chtimes.
	write("two\n", old.Add(time.Second))
	if got := read(); got != "two\n" {
		t.Fatalf("after a change of time: %q", got)
	}
	write("three\n", old.Add(time.Second))
	if got := read(); got != "three\n" {
		t.Fatalf("after a change of size: %q", got)
	}
	other := filepath.Join(dir, "b.go")
	os.WriteFile(other, []byte("four!\n"), 0o644)
	os.Chtimes(other, old.Add(time.Second), old.Add(time.Second))
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "four!\n" {
		t.Fatalf("after a rename over the file: %q", got)
	}
	// A file written just now is read every time.
	now := time.Now()
	write("five\n", now)
	read()
	write("sixx\n", now)
	if got := read(); got != "sixx\n" {
		t.Fatalf("a recently written file came from the cache: %q", got)
	}
	os.Remove(path)
	if _, err := c.read(path); !os.IsNotExist(err) {
		t.Fatalf("a removed file: %v", err)
	}
}

// TestDiagnosticsFileFromCache: the file a diagnostics call names is shown
// from the document cache on the next call, not read anew each time.
func TestDiagnosticsFileFromCache(t *testing.T) {
	c, s, fb, cs := setup(t, Config{})
	path := filepath.Join(s.Root, "main.go")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	fb.report = &lspext.DiagnosticReportResult{
		Files:   []lspext.FileDiagnostics{{URI: edit.URIFromPath(path), Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}},"severity":1,"message":"boom"}]`)}},
		Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}},
	}
	var first *position.Document
	for i := range 2 {
		text, isErr := callTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
		if isErr || !strings.Contains(text, "main.go:5:6") || !strings.Contains(text, "func add") {
			t.Fatalf("call %d: %s", i, text)
		}
		c.docs.mu.Lock()
		e, ok := c.docs.m[path]
		c.docs.mu.Unlock()
		switch {
		case !ok:
			t.Fatalf("call %d: main.go is not in the document cache", i)
		case i == 0:
			first = e.doc
		case e.doc != first:
			t.Errorf("call %d read main.go again", i)
		}
	}
}
