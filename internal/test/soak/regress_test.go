package soak

// Regression tests for four faults the soak found (docs/testing.md,
// "Found by the soak"): each failed before its fix landed.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// mcpSession adapts a client session to mcpCaller from any goroutine
// (toolCall's t.Fatalf is for the test goroutine only).
type mcpSession struct{ cs *mcp.ClientSession }

func (m *mcpSession) call(t *testing.T) mcpCaller {
	return func(args map[string]any) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
		if err != nil {
			return err.Error(), true
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
}

// TestFaultDeletedFileDependents: after a file the server had open is
// deleted (by the agent's shell, not through the tool), diagnostics of a
// file that used it must show the break. lsp closes the vanished document
// and sends a deleted-file event; before that the server kept the deleted
// file's open copy and main.go was "fresh, no problems" while broken.
func TestFaultDeletedFileDependents(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/del\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { println(twice(2)) }\n",
		"gone.go": "package main\n\n// twice doubles x.\nfunc twice(x int) int { return 2 * x }\n",
	})
	_, cs := startStack(t, root)
	if text, isErr := toolCall(t, cs, map[string]any{"action": "hover", "file": "gone.go", "line": 4, "symbol": "twice"}); isErr {
		t.Fatalf("hover before delete: %s", text)
	}
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	text, isErr := toolCall(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if isErr || !strings.Contains(text, "undefined: twice") {
		t.Errorf("diagnostics of main.go after gone.go was deleted: error=%v, want undefined: twice:\n%s", isErr, text)
	}
}

// TestFaultHugeAndBinaryFiles: a Go file over the size cap (12 MiB; mcpls caps at 10 MB) and a file of
// binary content get a clear error naming the file and the reason, and the
// server keeps answering about the other files (lsp.Options.MaxFileSize,
// binary check). Before, gopls answered "no problems" for a file of NUL
// bytes.
func TestFaultHugeAndBinaryFiles(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	huge := "package main\n\nvar Huge = `" + strings.Repeat("x", 12<<20) + "`\n"
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/big\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n",
		// testdata: go list skips it, so only the tool's own request
		// makes a server read these files.
		"testdata/huge.go": huge,
		"testdata/blob.go": "package main\n\x00\x01\x02\xff\xfe binary \x00 data\n",
	})
	_, cs := startStack(t, root)
	for _, c := range []struct {
		file, want string
	}{
		{"testdata/huge.go", "too large"},
		{"testdata/blob.go", "binary"},
	} {
		for _, action := range []string{"diagnostics", "symbols"} {
			// An error answer, or (diagnostics) a report whose server
			// verdict says why; never "no problems".
			text, isErr := toolCall(t, cs, map[string]any{"action": action, "file": c.file})
			if !strings.Contains(text, c.file) || !strings.Contains(strings.ToLower(text), c.want) || strings.Contains(text, "no problems") {
				t.Errorf("%s %s: error=%v, want a clear error with %q:\n%.500s", action, c.file, isErr, c.want, text)
			}
		}
	}
	if text, isErr := toolCall(t, cs, map[string]any{"action": "hover", "file": "main.go", "line": 3, "symbol": "add"}); isErr || !strings.Contains(text, "func add(a int, b int) int") {
		t.Errorf("hover in main.go after the bad files: error=%v:\n%s", isErr, text)
	}
}

// renameWorkspace has one helper per worker, each used in main.go.
func renameWorkspace(t *testing.T, n int) string {
	root := tempRoot(t)
	files := map[string]string{"go.mod": "module example.com/ren\n\ngo 1.22\n"}
	var calls []string
	for w := 0; w < n; w++ {
		files[fmt.Sprintf("h%d.go", w)] = fmt.Sprintf("package main\n\n// Helper%d doubles x.\nfunc Helper%d(x int) int { return x * 2 }\n", w, w)
		calls = append(calls, fmt.Sprintf("Helper%d(%d)", w, w))
	}
	files["main.go"] = "package main\n\nfunc main() { println(" + strings.Join(calls, ", ") + ") }\n"
	writeFiles(t, root, files)
	return root
}

// staleRetries bounds how often renameAndBack asks again for a rename
// refused because another session's changed main.go while it was asked.
const staleRetries = 50

// renameAndBack renames Helper<w> and back, reading main.go after each. A
// rename another session's rename overtook while it waited for permission
// is refused with nothing changed (it was computed for content main.go no
// longer has) and is asked for again, as an agent would.
func renameAndBack(t *testing.T, cs mcpCaller, root string, w int) error {
	helper := fmt.Sprintf("Helper%d", w)
	for _, step := range [][2]string{{helper, helper + "x"}, {helper + "x", helper}} {
		rename := func() (string, bool) {
			return cs(map[string]any{"action": "rename", "file": fmt.Sprintf("h%d.go", w), "line": 4, "symbol": step[0], "new_name": step[1], "apply": true})
		}
		text, isErr := rename()
		for try := 0; isErr && strings.Contains(text, "changed after the edit was computed") && try < staleRetries; try++ {
			text, isErr = rename()
		}
		if isErr || !strings.Contains(text, "applied") {
			return fmt.Errorf("rename %s → %s: %s", step[0], step[1], text)
		}
		b, _ := os.ReadFile(filepath.Join(root, "main.go"))
		if !strings.Contains(string(b), " "+step[1]+"(") && !strings.Contains(string(b), "("+step[1]+"(") {
			return fmt.Errorf("rename %s → %s: main.go is now:\n%s", step[0], step[1], b)
		}
	}
	return nil
}

type mcpCaller func(args map[string]any) (string, bool)

// TestFaultRenameBackAtOnce: a rename applied and at once reverted
// (nothing in between) must revert every use: requests taken after
// _lsp/filesChanged wait for the adapter's resync. Before, the second
// rename could reach gopls first and be computed on main.go's old content:
// "applied", yet main.go kept the first new name.
func TestFaultRenameBackAtOnce(t *testing.T) {
	peers.Require(t, "gopls")
	root := renameWorkspace(t, 1)
	_, cs := startStack(t, root)
	call := func(args map[string]any) (string, bool) { return toolCall(t, cs, args) }
	for i := 0; i < 40; i++ {
		if err := renameAndBack(t, call, root, 0); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
}

// TestFaultConcurrentRenames: two sessions applying renames at the same
// time in one file must both land: the component admits one applying action
// at a time per workspace (the permission prompt aside, where a rename
// overtaken is refused as stale and asked again) and the adapter resyncs
// before the next request. Before, the second edit could be computed on
// content the first was about to change.
func TestFaultConcurrentRenames(t *testing.T) {
	peers.Require(t, "gopls")
	root := renameWorkspace(t, 2)
	st, cs0 := startStack(t, root)
	cs1, err := st.NewSession(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer cs1.Close()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w, cs := range []*mcpSession{{cs0}, {cs1}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = renameAndBack(t, cs.call(t), root, w)
			}()
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d, session %d: %v", i, w, err)
			}
		}
	}
}
