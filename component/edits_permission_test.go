package component

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestPermissionShowsEveryChange: the permission request names every change
// the apply would make, not only the content diffs: a file moved or
// created empty, a folder deleted, and the command a code action runs after
// its edit. Declined, nothing on disk changes and no command runs.
func TestPermissionShowsEveryChange(t *testing.T) {
	for _, tc := range []struct {
		name string
		// answers are the server's canned answers, by method; %[1]s is
		// main.go's URI, %[2]s util.go's, %[3]s the folder gen's.
		answers map[string]string
		call    map[string]any
		// want must each be in the text the user is shown.
		want []string
	}{
		{
			name: "rename that moves a file",
			answers: map[string]string{
				"textDocument/rename": `{"documentChanges":[{"kind":"rename","oldUri":%[2]q,"newUri":"%[2]s.moved"}]}`,
			},
			call: map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true},
			want: []string{"rename util.go.moved (from util.go)"},
		},
		{
			name: "code action that deletes a folder",
			answers: map[string]string{
				"textDocument/codeAction": `[{"title":"Remove generated","kind":"source","edit":{"documentChanges":[{"kind":"delete","uri":%[3]q,"options":{"recursive":true}}]}}]`,
			},
			call: map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1},
			want: []string{"delete gen"},
		},
		{
			name: "code action that creates an empty file",
			answers: map[string]string{
				"textDocument/codeAction": `[{"title":"Add doc file","kind":"source","edit":{"documentChanges":[{"kind":"create","uri":"%[1]s.txt"}]}}]`,
			},
			call: map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1},
			want: []string{"create main.go.txt"},
		},
		{
			name: "code action with an edit and a command",
			answers: map[string]string{
				"textDocument/codeAction": `[{"title":"Add comment","kind":"refactor","edit":{"changes":{%[1]q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"// hello\n"}]}},"command":{"title":"t","command":"gopls.tidy","arguments":[]}}]`,
			},
			call: map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1},
			want: []string{"+// hello", "gopls.tidy"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, s, fb, cs := setup(t, Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
				asked = append(asked, title+"\n"+diff)
				return false, nil
			}})
			util := filepath.Join(s.Root, "util.go")
			gen := filepath.Join(s.Root, "gen")
			if err := os.WriteFile(util, []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(gen, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gen, "x.go"), []byte("package gen\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			mainURI := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
			for m, a := range tc.answers {
				fb.set(m, fmt.Sprintf(a, mainURI, edit.URIFromPath(util), edit.URIFromPath(gen)))
			}
			fb.set("workspace/executeCommand", "null")
			text, isErr := callTool(t, cs, tc.call)
			if !isErr || !strings.Contains(text, "declined") || len(asked) != 1 {
				t.Fatalf("declined call: %v %s (asked %d times)", isErr, text, len(asked))
			}
			for _, w := range tc.want {
				if !strings.Contains(asked[0], w) {
					t.Errorf("the user was not shown %q; shown:\n%s", w, asked[0])
				}
			}
			// Declined: nothing on disk changed, no command ran.
			if b, _ := os.ReadFile(filepath.Join(s.Root, "main.go")); string(b) != mainGo {
				t.Errorf("main.go changed:\n%s", b)
			}
			for _, p := range []string{util, filepath.Join(gen, "x.go")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			for _, p := range []string{util + ".moved", filepath.Join(s.Root, "main.go.txt")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s created", p)
				}
			}
			for _, r := range fb.requests {
				if strings.HasPrefix(r, "workspace/executeCommand ") {
					t.Errorf("command ran: %s", r)
				}
			}
		})
	}
}

// TestCodeActionEmptyEditRunsCommand: a code action whose edit changes
// nothing still runs its command (the edit is applied first, then the
// command, as LSP says), after the user allowed it; declined, it does not
// run.
func TestCodeActionEmptyEditRunsCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow bool
		edit  string
	}{
		{"allowed, no changes", true, `{}`},
		{"allowed, empty list", true, `{"changes":{%q:[]}}`},
		{"declined", false, `{}`},
		{"declined, empty list", false, `{"changes":{%q:[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, s, fb, cs := setup(t, Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
				asked = append(asked, title+"\n"+diff)
				return tc.allow, nil
			}})
			we := tc.edit
			if strings.Contains(we, "%q") {
				we = fmt.Sprintf(we, edit.URIFromPath(filepath.Join(s.Root, "main.go")))
			}
			fb.set("textDocument/codeAction", `[{"title":"Tidy","kind":"source","edit":`+we+`,"command":{"title":"t","command":"gopls.tidy","arguments":[]}}]`)
			fb.set("workspace/executeCommand", "null")
			text, isErr := callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1})
			ran := false
			for _, r := range fb.requests {
				ran = ran || strings.HasPrefix(r, "workspace/executeCommand ")
			}
			if len(asked) != 1 || !strings.Contains(asked[0], "gopls.tidy") {
				t.Errorf("permission asks: %q", asked)
			}
			if ran != tc.allow || isErr == tc.allow {
				t.Errorf("command ran %v, error %v, want ran %v: %s", ran, isErr, tc.allow, text)
			}
		})
	}
}
