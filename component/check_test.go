package component

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestCheckAction: through the chain with gopls, a check of an edit that
// introduces a type error lists it as added, one that fixes it as
// removed; the disk stays byte-identical and neither the diagnostics
// cache nor a regular diagnostics call shows the checked content.
func TestCheckAction(t *testing.T) {
	peers.Require(t, "gopls")
	const good = "package main\n\nfunc main() {\n\tvar n int = 1\n\tprintln(n)\n}\n"
	const typeErr = `cannot use "one" (untyped string constant) as int value in variable declaration`
	root, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(root, "main.go")
	for name, text := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": good} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	for _, c := range []struct {
		name  string
		args  map[string]any
		isErr bool
		want  []string
	}{
		{"introduces an error", map[string]any{"action": "check", "file": "main.go", "old_text": "int = 1", "new_text": `int = "one"`}, false,
			[]string{"check of main.go (nothing written): 1 added, 0 removed", "+ main.go:4:14 error: " + typeErr, "gopls: fresh"}},
		{"whole content", map[string]any{"action": "check", "file": "main.go", "new_text": strings.Replace(good, "int = 1", `int = "one"`, 1)}, false,
			[]string{"1 added, 0 removed", typeErr}},
		{"no change", map[string]any{"action": "check", "file": "main.go", "new_text": good}, false,
			[]string{"0 added, 0 removed", "gopls: fresh"}},
		{"old_text missing", map[string]any{"action": "check", "file": "main.go", "old_text": "int = 2", "new_text": "int = 3"}, true,
			[]string{"old_text is not in the file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, isErr, _ := stacktest.CallTool(t, cs, c.args)
			if isErr != c.isErr {
				t.Fatalf("error %v, want %v: %s", isErr, c.isErr, text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("want %q in:\n%s", w, text)
				}
			}
			if b, err := os.ReadFile(main); err != nil || !bytes.Equal(b, []byte(good)) {
				t.Errorf("disk after the check: %q %v", b, err)
			}
		})
	}
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if isErr || strings.Contains(text, "cannot use") || !strings.Contains(text, "gopls: fresh") {
		t.Errorf("diagnostics after the checks: %s", text)
	}
	if diags, _ := sc.stage.Tool().Cache().Get(edit.URIFromPath(main)); len(diags) != 0 {
		t.Errorf("the cache holds %v after the checks", diags)
	}

	// The fix: the disk has the error, the check removes it.
	bad := strings.Replace(good, "int = 1", `int = "one"`, 1)
	if err := os.WriteFile(main, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr, _ = stacktest.CallTool(t, cs, map[string]any{"action": "check", "file": "main.go", "old_text": `int = "one"`, "new_text": "int = 1"})
	if isErr || !strings.Contains(text, "0 added, 1 removed") || !strings.Contains(text, "- main.go:4:14 error: "+typeErr) {
		t.Errorf("check of the fix: %s", text)
	}
	if b, _ := os.ReadFile(main); string(b) != bad {
		t.Errorf("disk after the check of the fix: %q", b)
	}
	text, _, _ = stacktest.CallTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if !strings.Contains(text, typeErr) {
		t.Errorf("diagnostics after the check of the fix lost the disk's error: %s", text)
	}
}

// TestEditedText: old_text must occur once; without it new_text is the
// whole content.
func TestEditedText(t *testing.T) {
	for _, c := range []struct {
		name, disk, old, new, want, err string
	}{
		{"replace", "a b c", "b", "x", "a x c", ""},
		{"whole", "a b c", "", "z", "z", ""},
		{"missing", "a b c", "q", "x", "", "old_text is not in the file"},
		{"twice", "a b b", "b", "x", "", "old_text occurs 2 times"},
		{"delete", "a b c", " b", "", "a c", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := editedText(c.disk, c.old, c.new)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("%q %v, want %q", got, err, c.want)
			}
		})
	}
}

// FuzzCheckLines: any answer and text render without a panic, one line
// per diagnostic of a well-formed answer.
func FuzzCheckLines(f *testing.F) {
	f.Add(`[{"range":{"start":{"line":0,"character":3}},"severity":1,"message":"m","source":"s","code":7}]`, "héllo wörld\n")
	f.Add(`[{"range":{"start":{"line":-1,"character":-5}}}]`, "")
	f.Add(`[]`, "x")
	f.Add(`{"not":"a list"}`, "x")
	f.Fuzz(func(t *testing.T, raw, text string) {
		lines, err := checkLines("a.go", "+ ", json.RawMessage(raw), text)
		var n []json.RawMessage
		if err == nil && json.Unmarshal([]byte(raw), &n) == nil && len(lines) != len(n) {
			t.Fatalf("%d lines for %d diagnostics", len(lines), len(n))
		}
	})
}
