package component

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestForSession: Config.ForSession gives each session its own settings;
// a session in another folder gets another gate and page size, the
// Component's own stay with the rest.
func TestForSession(t *testing.T) {
	strict := t.TempDir()
	var asked []string
	c, s, fb, cs := setup(t, Config{ForSession: func(root string, base Config) Config {
		asked = append(asked, root)
		if root == strict {
			base.AllowMutating = map[string]bool{"rename": false}
			base.PageSize = 1
		}
		return base
	}})
	if err := os.WriteFile(filepath.Join(strict, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := c.NewSession(strict)
	if err != nil {
		t.Fatal(err)
	}
	cs2 := connect(t, s2)
	if want := []string{s.Root, strict}; !slices.Equal(asked, want) {
		t.Errorf("ForSession asked for %q, want %q", asked, want)
	}
	locs := func(root string) string {
		uri := edit.URIFromPath(filepath.Join(root, "main.go"))
		var l []string
		for _, line := range []int{4, 7, 7} {
			l = append(l, fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":8}}}`, uri, line, line))
		}
		return "[" + strings.Join(l, ",") + "]"
	}
	fb.set("textDocument/rename", `{"changes":{}}`)
	rename := map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "x", "apply": true}
	refs := map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}
	for _, tc := range []struct {
		name      string
		cs        *mcp.ClientSession
		root      string
		gated     bool
		shownRefs int
	}{
		{"the Component's settings", cs, s.Root, false, 3},
		{"the session's own", cs2, strict, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := callTool(t, tc.cs, rename)
			if gated := isErr && strings.Contains(text, "turned off"); gated != tc.gated {
				t.Errorf("rename gated %v, want %v: %s", gated, tc.gated, text)
			}
			fb.set("textDocument/references", locs(tc.root))
			text, _ = callTool(t, tc.cs, refs)
			if n := strings.Count(text, "main.go:"); n != tc.shownRefs {
				t.Errorf("references show %d locations, want %d:\n%s", n, tc.shownRefs, text)
			}
		})
	}
}
