package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

func TestServersFor(t *testing.T) {
	tests := []struct {
		path, want, lang string
	}{
		{"/w/a.go", "gopls", "go"},
		{"/w/go.mod", "gopls", "go.mod"},
		{"/w/a.py", "pyright", "python"},
		{"/w/a.tsx", "typescript-language-server", "typescriptreact"},
		{"/w/a.cpp", "clangd", "cpp"},
		{"/w/a.rs", "rust-analyzer", "rust"},
		{"/w/x.sh", "bash-language-server", "shellscript"},
		{"/w/x.yml", "yaml-language-server", "yaml"},
		{"/w/x.json", "vscode-json-language-server", "json"},
		{"/w/README", "", ""},
	}
	for _, tc := range tests {
		got := ServersFor(DefaultServers(), tc.path)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: got %s", tc.path, got[0].Name)
			}
			continue
		}
		if len(got) == 0 || got[0].Name != tc.want || got[0].LanguageID(tc.path) != tc.lang {
			t.Errorf("%s: got %v", tc.path, got)
		}
	}
}

func TestMergeServers(t *testing.T) {
	got, err := MergeServers(DefaultServers(), []ServerConfig{
		{Name: "gopls", Args: []string{"-remote=auto"}, Timeouts: Timeouts{Request: Duration(5 * time.Second)}},
		{Name: "zz-ls", Command: "zz-ls", Extensions: []string{"zz"}},
		{Name: "pyright", Disabled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := ServersFor(got, "/a.go")[0]; s.Args[0] != "-remote=auto" || s.Command != "gopls" || s.Timeouts.Request.d().Seconds() != 5 {
		t.Errorf("gopls override: %+v", s)
	}
	if s := ServersFor(got, "/a.zz"); len(s) != 1 || s[0].Name != "zz-ls" {
		t.Errorf("added server: %+v", s)
	}
	if s := ServersFor(got, "/a.py"); len(s) == 0 || s[0].Name != "pylsp" || slices.ContainsFunc(s, func(c ServerConfig) bool { return c.Name == "pyright" }) {
		t.Errorf("disabled pyright: %+v", s)
	}
	if _, err := MergeServers(DefaultServers(), []ServerConfig{{Name: "new"}}); err == nil {
		t.Error("new server without command accepted")
	}
}

func TestFindRoot(t *testing.T) {
	ws := t.TempDir()
	mk := func(p string) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), nil, 0o644)
	}
	mk("go.mod")
	mk("sub/go.mod")
	mk("sub/pkg/a.go")
	mk("other/b.go")
	tests := []struct{ file, ceiling, want string }{
		{"sub/pkg/a.go", ws, "sub"},
		{"other/b.go", ws, "."},
		{"sub/pkg/a.go", filepath.Join(ws, "sub/pkg"), "sub/pkg"}, // never above the ceiling
	}
	for _, tc := range tests {
		got := FindRoot(filepath.Join(ws, tc.file), tc.ceiling, []string{"go.mod"})
		if got != filepath.Join(ws, tc.want) {
			t.Errorf("FindRoot(%s) = %s, want %s", tc.file, got, tc.want)
		}
	}
}

func TestConverter(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.go")
	os.WriteFile(f, []byte("x := \"日本😀\"; y\n"), 0o644)
	uri := "file://" + f
	// "y" is at byte 17 (UTF-8) and UTF-16 unit 11.
	in := `{"uri":"` + uri + `","range":{"start":{"line":0,"character":17},"end":{"line":0,"character":18}},"data":{"line":0,"character":17}}`
	c := newConverter(position.UTF8, position.UTF16, nil, DefaultMaxFileSize)
	out, err := c.convert([]byte(in), "")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Range position.Range    `json:"range"`
		Data  position.Position `json:"data"`
	}
	if err := decode(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Range.Start.Character != 11 || v.Range.End.Character != 12 || v.Data.Character != 17 {
		t.Fatalf("converted %s", out)
	}
	back, _ := newConverter(position.UTF16, position.UTF8, nil, DefaultMaxFileSize).convert(out, "")
	if err := decode(back, &v); err != nil || v.Range.Start.Character != 17 {
		t.Fatalf("round trip %s", back)
	}
	// LocationLink: origin in the request's document, target in targetUri.
	link := `[{"originSelectionRange":{"start":{"line":0,"character":17},"end":{"line":0,"character":17}},"targetUri":"` + uri + `","targetRange":{"start":{"line":0,"character":17},"end":{"line":0,"character":17}},"targetSelectionRange":{"start":{"line":0,"character":17},"end":{"line":0,"character":17}}}]`
	out, err = newConverter(position.UTF8, position.UTF16, nil, DefaultMaxFileSize).convert([]byte(link), uri)
	if err != nil || string(out) == link {
		t.Fatalf("link %s %v", out, err)
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":99}}}`), "héllo 😀\nx")
	f.Add([]byte(`[{"changes":{"file:///x":[{"range":{"start":{"line":5,"character":1}}}]}}]`), "")
	f.Fuzz(func(t *testing.T, raw []byte, text string) {
		doc := position.NewDocumentString(text)
		c := newConverter(position.UTF8, position.UTF16, func(string) *position.Document { return doc }, DefaultMaxFileSize)
		_, _ = c.convert(raw, "file:///doc")
	})
}

// TestLoadSignals: every built-in server's load signals compile, and
// pyright's done log matches the lines pyright 1.1.414 writes when it has
// listed the workspace's files, not the lines before.
func TestLoadSignals(t *testing.T) {
	for _, c := range DefaultServers() {
		if _, err := c.Loading.compile(c.Name); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	r, err := pyrightDone.compile("pyright")
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]bool{
		"Found 3002 source files":                          true,
		"Found 1 source file":                              true,
		"No source files found.":                           true,
		"Loading pyproject.toml file at /w/pyproject.toml": false,
		"No include entries specified; assuming /w":        false,
		"Found 3002 source files in /w":                    false,
	} {
		if got := r.doneLog.MatchString(line); got != want {
			t.Errorf("pyright done log on %q: %v, want %v", line, got, want)
		}
	}
	if _, err := (LoadSignals{DoneLog: "("}).compile("x"); err == nil {
		t.Error("a bad expression compiled")
	}
}
