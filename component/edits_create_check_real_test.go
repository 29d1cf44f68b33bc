package component

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestEditCreatingFileChecked: through the chain with gopls, a workspace
// edit that creates a file (a declaration with a type error moved from
// a.go into a new s.go, as gopls's "extract declarations to new file"
// does) is checked before it is written: the new file's error is
// reported at its place in the new file, the one it moves out of a.go
// as removed. The preview writes nothing: a.go is as it was and s.go
// does not exist. An edit that moves or deletes a file is said not
// checked.
func TestEditCreatingFileChecked(t *testing.T) {
	peers.Require(t, "gopls")
	const ago = "package p\n\nfunc F() int { return 1 }\n\nvar s string = F()\n"
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "a.go": ago} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, true)
	sc.open(t, root)
	s := sc.stage.Tool().SessionByACP("S1")
	if s == nil {
		t.Fatal("no session S1")
	}
	a, sgo := edit.URIFromPath(filepath.Join(root, "a.go")), edit.URIFromPath(filepath.Join(root, "s.go"))
	const typeErr = "error: cannot use F() (value of type int) as string value in variable declaration"
	for _, tc := range []struct {
		name, changes string
		want          []string
	}{
		{
			name: "creates",
			changes: fmt.Sprintf(`{"kind":"create","uri":%q},
				{"textDocument":{"uri":%q,"version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"package p\n\nvar s string = F()\n"}]},
				{"textDocument":{"uri":%q,"version":null},"edits":[{"range":{"start":{"line":3,"character":0},"end":{"line":5,"character":0}},"newText":""}]}`, sgo, sgo, a),
			want: []string{
				"check of the edit to 2 files before writing it: 1 added, 1 removed",
				"+ s.go:3:16 " + typeErr,
				"- a.go:5:16 " + typeErr,
				"servers: gopls: fresh",
			},
		},
		{
			name:    "moves",
			changes: fmt.Sprintf(`{"kind":"rename","oldUri":%q,"newUri":%q}`, a, sgo),
			want:    []string{"check of the edit: not done: it moves or deletes 1 of the 1 files it changes"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			we, err := edit.Parse([]byte(`{"documentChanges":[` + tc.changes + `]}`))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			ans, err := s.applyEdit(ctx, nil, "code_actions", "code action: extract", we, false, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(ans.text, want) {
					t.Errorf("want %q in the preview:\n%s", want, ans.text)
				}
			}
			if b, err := os.ReadFile(filepath.Join(root, "a.go")); err != nil || string(b) != ago {
				t.Errorf("a.go after: %q %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(root, "s.go")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("s.go after: %v, want it absent", err)
			}
		})
	}
}
