package serverhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestCheckEditThroughHost: `_lsp/check` of an edit of two files (a
// method renamed in its declaration and one caller) through the host's
// gopls answers a list pair per edited file and the error it makes in a
// third file it does not touch, while another client of the same gopls
// never sees the checked content. The disk is not written.
func TestCheckEditThroughHost(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "checkedit0000000"
	serveHere(t, dir, id)
	root := t.TempDir()
	tree := map[string]string{
		"go.mod": "module example.com/multi\n\ngo 1.22\n",
		"a.go":   "package multi\n\ntype T struct{}\n\nfunc (T) Foo() int { return 1 }\n",
		"b.go":   "package multi\n\nfunc useB(t T) int { return t.Foo() }\n",
		"c.go":   "package multi\n\nfunc useC(t T) int { return t.Foo() }\n",
	}
	var goFiles []string
	for name, content := range tree {
		must(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
		if strings.HasSuffix(name, ".go") {
			goFiles = append(goFiles, filepath.Join(root, name))
		}
	}
	const undefined = "t.Foo undefined"
	other, err := NewClient(lsp.Options{Roots: []string{root}, Env: peers.Env()}, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { other.Close(context.Background()) })
	events, unsub := other.Subscribe(256)
	defer unsub()
	ctx := context.Background()
	if _, err := other.Diagnostics(ctx, goFiles, lsp.DiagnosticsOptions{}); err != nil {
		t.Fatalf("the other client's diagnostics before: %v", err)
	}
	chain := hostChain(t, dir, id, root)
	var files []lspext.CheckFile
	for _, name := range []string{"a.go", "b.go"} {
		files = append(files, lspext.CheckFile{URI: edit.URIFromPath(filepath.Join(root, name)), Text: strings.ReplaceAll(tree[name], "Foo", "Bar")})
	}
	raw, err := chain.Agent.Call(ctx, lspext.Check, lspext.CheckParams{Files: files})
	must(t, err)
	var res lspext.CheckResult
	must(t, json.Unmarshal(raw, &res))
	c := edit.URIFromPath(filepath.Join(root, "c.go"))
	if !lspext.Clean(res.Servers) || len(res.Files) != 3 || res.Files[2].URI != c || !res.Files[2].Other || !strings.Contains(string(res.Files[2].Added), undefined) {
		t.Fatalf("check through the host: %s, want a.go and b.go with c.go's error added, fresh", raw)
	}
	for _, f := range res.Files[:2] {
		if string(f.Added) != "[]" || string(f.Removed) != "[]" {
			t.Errorf("%s: added %s removed %s, want none", f.URI, f.Added, f.Removed)
		}
	}
	for name, content := range tree {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != content {
			t.Errorf("the disk after the check: %s is %q", name, b)
		}
	}
	rep, err := other.Diagnostics(ctx, goFiles, lsp.DiagnosticsOptions{})
	must(t, err)
	for _, f := range rep.Files {
		if f.Verdict != lsp.Fresh || strings.Contains(string(f.Diagnostics), undefined) {
			t.Errorf("the other client's diagnostics of %s after the check: %s %s", f.Path, f.Verdict, f.Diagnostics)
		}
	}
	for {
		select {
		case ev := <-events:
			if strings.Contains(string(ev.Diagnostics), undefined) {
				t.Errorf("the other client was sent the checked content's diagnostics: %s", ev.Diagnostics)
			}
			continue
		default:
		}
		break
	}
}

// TestCheckCreateThroughHost: `_lsp/check` of an edit that creates a
// file, through the host's gopls: the new file's type error is added, the
// file is never written, and another client of the same gopls is never
// told the checked content's diagnostics.
func TestCheckCreateThroughHost(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "checkcreate00000"
	serveHere(t, dir, id)
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/cr\n\ngo 1.22\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "a.go"), []byte("package cr\n\nfunc F() int { return 1 }\n"), 0o644))
	const typeErr = "cannot use F() (value of type int) as string value"
	other, err := NewClient(lsp.Options{Roots: []string{root}, Env: peers.Env()}, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { other.Close(context.Background()) })
	events, unsub := other.Subscribe(256)
	defer unsub()
	ctx := context.Background()
	if _, err := other.Diagnostics(ctx, []string{filepath.Join(root, "a.go")}, lsp.DiagnosticsOptions{}); err != nil {
		t.Fatalf("the other client's diagnostics before: %v", err)
	}
	chain := hostChain(t, dir, id, root)
	created := filepath.Join(root, "new.go")
	files := []lspext.CheckFile{{URI: edit.URIFromPath(created), Text: "package cr\n\nvar s string = F()\n"}}
	raw, err := chain.Agent.Call(ctx, lspext.Check, lspext.CheckParams{Files: files})
	must(t, err)
	var res lspext.CheckResult
	must(t, json.Unmarshal(raw, &res))
	if !lspext.Clean(res.Servers) || len(res.Files) != 1 || !strings.Contains(string(res.Files[0].Added), typeErr) {
		t.Fatalf("check through the host: %s, want new.go's error added, fresh", raw)
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("new.go after the check: %v, want it absent", err)
	}
	for {
		select {
		case ev := <-events:
			if strings.Contains(string(ev.Diagnostics), typeErr) {
				t.Errorf("the other client was sent the checked content's diagnostics: %s", ev.Diagnostics)
			}
			continue
		default:
		}
		break
	}
}
