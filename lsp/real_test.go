package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// copyDir copies a testdata workspace into a fresh temporary folder.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real
	}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// at returns the UTF-16 position of the n-th (1-based) occurrence of name
// on the first line containing marker; n = -1 means the last one.
func at(t testing.TB, path, marker, name string, n int) Position {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, marker) {
			continue
		}
		offs, _ := position.Occurrences(line, name)
		if n < 0 {
			n = len(offs)
		}
		if n == 0 || len(offs) < n {
			t.Fatalf("%s: line %q has %d occurrences of %q", path, line, len(offs), name)
		}
		return Position{Line: uint32(i), Character: uint32(position.ByteToColumn(line, offs[n-1], position.UTF16))}
	}
	t.Fatalf("%s: no line contains %q", path, marker)
	return Position{}
}

type realCase struct {
	server, peer, dir, file string
	wantMsg                 string // exact message of the known error
	undefined, fixed        string // the undefined name and its replacement
	defMarker               string // a line with the definition of greet
	cjkMarker               string // the non-ASCII line calling greet
	// encoding the server negotiates: clangd's is UTF-8, so its case
	// checks the UTF-8 ↔ UTF-16 conversion through a real server.
	encoding position.Encoding
}

var realCases = []realCase{
	{"gopls", "gopls", "go", "main.go", "undefined: undefinedVar", "undefinedVar", `"y"`, "func greet", "日本語", ""},
	{"pyright", "pyright-langserver", "python", "main.py", `"undefined_name" is not defined`, "undefined_name", `"y"`, "def greet", "日本語", ""},
	{"typescript-language-server", "typescript-language-server", "typescript", "main.ts", "Cannot find name 'undefinedThing'.", "undefinedThing", `"y"`, "function greet", "日本語", ""},
	{"clangd", "clangd", "c", "main.c", "Use of undeclared identifier 'undefined_var'", "undefined_var", "0", "static const char", "日本語", position.UTF8},
}

func newRealManager(t testing.TB, root string, tweaks ...func(*Options)) *Manager {
	t.Helper()
	// Generous bounds: the machine running the tests may be loaded many
	// times over, and these tests are about answers, not speed.
	o := Options{Roots: []string{root}, Env: peers.Env(), MaxOpenDocuments: 2000,
		Timeouts: Timeouts{Initialize: Duration(3 * time.Minute), Request: Duration(3 * time.Minute), Diagnostics: Duration(3 * time.Minute)}}
	for _, tweak := range tweaks {
		tweak(&o)
	}
	m, err := NewManager(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func messages(t testing.TB, raw json.RawMessage) []string {
	t.Helper()
	var ds []struct {
		Message string `json:"message"`
	}
	if err := decode(raw, &ds); err != nil {
		t.Fatalf("diagnostics %s: %v", raw, err)
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.Message)
	}
	return out
}

func TestRealServers(t *testing.T) {
	for _, tc := range realCases {
		t.Run(tc.server, func(t *testing.T) {
			peers.Require(t, tc.peer)
			root := copyDir(t, filepath.Join("testdata", tc.dir))
			file := filepath.Join(root, tc.file)
			m := newRealManager(t, root)
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			closed := false
			defer func() {
				if !closed {
					m.Close(context.Background())
				}
			}()

			// Diagnostics of the known error, exact message.
			rep, err := m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{Timeout: 3 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			fd := rep.Files[0]
			if fd.Verdict != Fresh || fd.Server != tc.server {
				st, _ := encode(m.Servers())
				t.Logf("status %s", st)
				t.Fatalf("diagnostics verdict %s server %s (%s)", fd.Verdict, fd.Server, fd.Detail)
			}
			if msgs := messages(t, fd.Diagnostics); !slices.Contains(msgs, tc.wantMsg) {
				t.Fatalf("diagnostics %q lack %q", msgs, tc.wantMsg)
			}
			var ds []protocol.Diagnostic
			if err := decode(fd.Diagnostics, &ds); err != nil {
				t.Fatal(err)
			}

			// Definition from the call on the non-ASCII line lands on the
			// definition line, in UTF-16.
			call := at(t, file, tc.cjkMarker, "greet", -1) // after the emoji
			def := at(t, file, tc.defMarker, "greet", 1)
			raw, err := definition(ctx, m, file, call)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), fmt.Sprintf(`"line":%d`, def.Line)) {
				t.Fatalf("definition %s does not name line %d", raw, def.Line)
			}
			locs := locations(t, raw)
			if len(locs) == 0 || locs[0].Range.Start != def {
				t.Fatalf("definition %s, want start %v", raw, def)
			}

			// References include the call on the non-ASCII line at its
			// UTF-16 column.
			raw, err = references(ctx, m, file, def, true)
			if err != nil {
				t.Fatal(err)
			}
			refs := locations(t, raw)
			found := false
			for _, r := range refs {
				if r.Range.Start == call {
					found = true
				}
			}
			if !found || len(refs) < 3 {
				t.Fatalf("references %s lack %v or are too few", raw, call)
			}

			raw, err = hover(ctx, m, file, call)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), "greet") {
				t.Fatalf("hover %s does not mention greet", raw)
			}

			raw, err = documentSymbols(ctx, m, file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"name":"greet"`) && !strings.Contains(string(raw), `"name":"greet(`) {
				t.Fatalf("document symbols %s lack greet", raw)
			}

			// Rename returns an edit; apply it on disk with lsp/edit.
			raw, err = rename(ctx, m, file, def, "welcome")
			if err != nil {
				t.Fatal(err)
			}
			we, err := edit.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := edit.Apply(ctx, we, edit.Options{Encoding: position.UTF16, Root: root}); err != nil {
				t.Fatalf("apply rename %s: %v", raw, err)
			}
			b, _ := os.ReadFile(file)
			if strings.Contains(string(b), "greet(") || strings.Count(string(b), "welcome(") < 3 {
				t.Fatalf("after rename:\n%s", b)
			}

			// Edit the file, then diagnostics show the new state.
			fixed := strings.Replace(string(b), tc.undefined, tc.fixed, 1)
			if err := os.WriteFile(file, []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err = m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{Timeout: 3 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			fd = rep.Files[0]
			if fd.Verdict != Fresh {
				t.Fatalf("diagnostics after edit: %s (%s)", fd.Verdict, fd.Detail)
			}
			for _, msg := range messages(t, fd.Diagnostics) {
				if strings.Contains(msg, tc.undefined) {
					t.Fatalf("diagnostics after edit still report %q: %s", msg, fd.Diagnostics)
				}
			}

			st := m.Servers()
			if len(st) != 1 || st[0].State != StateRunning || st[0].PID == 0 {
				t.Fatalf("status %+v", st)
			}
			if tc.encoding != "" && st[0].Encoding != tc.encoding {
				t.Fatalf("negotiated %s, want %s", st[0].Encoding, tc.encoding)
			}
			pid := st[0].PID
			closed = true
			if err := m.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if left := groupMembers(pid); len(left) > 0 {
				t.Fatalf("processes left in group %d: %v", pid, left)
			}
		})
	}
}

type loc struct {
	URI   string         `json:"uri"`
	Range position.Range `json:"range"`
}

// locations reads Location, Location[] or LocationLink[] results.
func locations(t testing.TB, raw json.RawMessage) []loc {
	t.Helper()
	var arr []map[string]json.RawMessage
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
		raw = json.RawMessage("[" + string(raw) + "]")
	}
	if err := decode(raw, &arr); err != nil {
		t.Fatalf("locations %s: %v", raw, err)
	}
	var out []loc
	for _, o := range arr {
		var l loc
		if r, ok := o["targetSelectionRange"]; ok {
			_ = decode(o["targetUri"], &l.URI)
			_ = decode(r, &l.Range)
		} else {
			_ = decode(o["uri"], &l.URI)
			_ = decode(o["range"], &l.Range)
		}
		out = append(out, l)
	}
	return out
}

// groupMembers lists live (non-zombie) processes in process group pgid.
func groupMembers(pgid int) []string {
	procs, _ := procfs.Table()
	var out []string
	for _, pid := range slices.Sorted(maps.Keys(procs)) {
		if p := procs[pid]; p.Pgrp == pgid && !p.Gone() {
			out = append(out, fmt.Sprintf("%d (%s)", p.Pid, p.Comm))
		}
	}
	return out
}

// freshDiagnostics returns a function that asks m for path's diagnostics,
// fails the test unless the answer is fresh for the current content, and
// returns the messages; what names the moment in the failure.
func freshDiagnostics(ctx context.Context, t *testing.T, m *Manager, path string) func(what string) []string {
	return func(what string) []string {
		t.Helper()
		rep, _ := m.Diagnostics(ctx, []string{path}, DiagnosticsOptions{})
		fd := rep.Files[0]
		if fd.Verdict != Fresh {
			t.Fatalf("%s %s: %s %s", filepath.Base(path), what, fd.Verdict, fd.Detail)
		}
		return messages(t, fd.Diagnostics)
	}
}
