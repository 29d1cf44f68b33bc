package edit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// stdioLSP is the smallest LSP client that can drive a real server through
// a rename: synchronous calls, server requests answered inline. It exists
// so this package's tests do not depend on package lsp.
type stdioLSP struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startLSP(t *testing.T, dir string, argv ...string) *stdioLSP {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = peers.Env()
	reap.OwnGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &stdioLSP{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		// The server was asked to exit; end the group in case it did not.
		_ = reap.KillGroup(cmd.Process)
		_ = cmd.Wait()
	})
	return c
}

func (c *stdioLSP) write(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *stdioLSP) read() map[string]json.RawMessage {
	c.t.Helper()
	n := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("read from server: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.out, body); err != nil {
		c.t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

func (c *stdioLSP) notify(method string, params any) {
	c.write(map[string]any{"method": method, "params": params})
}

// call sends a request and returns its raw result, answering the server's
// own requests (configuration, progress, registration) while waiting.
func (c *stdioLSP) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	id := c.id
	c.write(map[string]any{"id": id, "method": method, "params": params})
	for {
		m := c.read()
		if _, isReq := m["method"]; isReq {
			if rid, ok := m["id"]; ok {
				var result any
				if string(m["method"]) == `"workspace/configuration"` {
					var p struct{ Items []any }
					_ = json.Unmarshal(m["params"], &p)
					result = make([]any, len(p.Items))
				}
				c.write(map[string]any{"id": rid, "result": result})
			}
			continue
		}
		if string(m["id"]) != strconv.Itoa(id) {
			continue
		}
		if e, ok := m["error"]; ok {
			c.t.Fatalf("%s: %s", method, e)
		}
		return m["result"]
	}
}

// renameCase is one real-server rename with non-ASCII text before the
// renamed identifier on the same line, where encodings disagree.
type renameCase struct {
	name   string
	server string
	args   []string
	files  map[string]string
	open   string
	lang   string
	// alsoOpen are opened too before the request: tsserver only renames in
	// files its project has loaded.
	alsoOpen []string
	line     int
	symbol   string
	newName  string
	// offer is put in general.positionEncodings and, for clangd 14 which
	// predates it, in its offsetEncoding extension.
	offer []string
	// want is the encoding the server must choose; "" accepts any.
	want position.Encoding
	// expect holds the exact content of files after the rename.
	expect map[string]string
	// contains holds substrings of files after the rename.
	contains map[string]string
}

var renameCases = []renameCase{
	{
		name: "gopls utf-16", server: "gopls", lang: "go",
		files: map[string]string{
			"go.mod": "module example.com/m\n\ngo 1.21\n",
			"a.go":   "package m\n\n// Greet says hello.\nfunc Greet(name string) string { return \"こんにちは \" + name }\n",
			"b.go":   "package m\n\nvar s = \"😀😀\" + Greet(\"日本\") + /* 語 */ Greet(\"y\")\n",
		},
		open: "b.go", line: 3, symbol: "Greet#2", newName: "Salute",
		offer: []string{"utf-16"}, want: position.UTF16,
		expect:   map[string]string{"b.go": "package m\n\nvar s = \"😀😀\" + Salute(\"日本\") + /* 語 */ Salute(\"y\")\n"},
		contains: map[string]string{"a.go": "func Salute(name string) string { return \"こんにちは \" + name }\n"},
	},
	{
		// gopls v0.23 answers utf-16 even when offered only utf-8: the
		// client must use what the server chose, not what it asked for.
		name: "gopls offered utf-8", server: "gopls", lang: "go",
		files: map[string]string{
			"go.mod": "module example.com/m\n\ngo 1.21\n",
			"a.go":   "package m\n\nfunc Greet(name string) string { return \"こんにちは \" + name }\n",
			"b.go":   "package m\n\nvar s = \"😀😀\" + Greet(\"日本\") + /* 語 */ Greet(\"y\")\n",
		},
		open: "b.go", line: 3, symbol: "Greet", newName: "Salute",
		offer:  []string{"utf-8"},
		expect: map[string]string{"b.go": "package m\n\nvar s = \"😀😀\" + Salute(\"日本\") + /* 語 */ Salute(\"y\")\n"},
	},
	{
		name: "clangd utf-8", server: "clangd", lang: "c",
		files: map[string]string{
			"main.c": "// 😀 日本\nstatic int counter(int x) { return x; }\nint main(void) { const char *s = \"😀日本\"; return counter(1) + /* 語 */ counter(2); }\n",
		},
		open: "main.c", line: 3, symbol: "counter#2", newName: "tally",
		offer: []string{"utf-8"}, want: position.UTF8,
		expect: map[string]string{"main.c": "// 😀 日本\nstatic int tally(int x) { return x; }\nint main(void) { const char *s = \"😀日本\"; return tally(1) + /* 語 */ tally(2); }\n"},
	},
	{
		name: "clangd utf-16", server: "clangd", lang: "c",
		files: map[string]string{
			"main.c": "static int counter(int x) { return x; }\nint main(void) { const char *s = \"😀日本\"; return counter(1) + /* 語 */ counter(2); }\n",
		},
		open: "main.c", line: 2, symbol: "counter", newName: "tally",
		offer: []string{"utf-16"}, want: position.UTF16,
		expect: map[string]string{"main.c": "static int tally(int x) { return x; }\nint main(void) { const char *s = \"😀日本\"; return tally(1) + /* 語 */ tally(2); }\n"},
	},
	{
		name: "pyright utf-16", server: "pyright-langserver", args: []string{"--stdio"}, lang: "python",
		files: map[string]string{
			"m.py":   "def greet(name):\n    return \"こんにちは \" + name\n",
			"use.py": "from m import greet\n\ns = \"😀😀\" + greet(\"日本\") + greet(\"y\")  # 語\n",
		},
		open: "use.py", line: 3, symbol: "greet#2", newName: "salute",
		offer: []string{"utf-16"}, want: position.UTF16,
		expect: map[string]string{
			"use.py": "from m import salute\n\ns = \"😀😀\" + salute(\"日本\") + salute(\"y\")  # 語\n",
			"m.py":   "def salute(name):\n    return \"こんにちは \" + name\n",
		},
	},
	{
		name: "typescript-language-server utf-16", server: "typescript-language-server", args: []string{"--stdio"}, lang: "typescript",
		files: map[string]string{
			"tsconfig.json": "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"*.ts\"]}\n",
			"m.ts":          "export function greet(name: string): string { return \"こんにちは \" + name; }\n",
			"use.ts":        "import { greet } from \"./m\";\nconst s = \"😀😀\" + greet(\"日本\") + /* 語 */ greet(\"y\");\nconsole.log(s);\n",
		},
		// Renaming at a use of an imported name only renames a local alias
		// in tsserver ("greet as salute"): the alias edit on a line with
		// emoji before it is what this case checks.
		open: "use.ts", line: 2, symbol: "greet#2", newName: "salute",
		offer: []string{"utf-16"}, want: position.UTF16,
		expect: map[string]string{
			"use.ts": "import { greet as salute } from \"./m\";\nconst s = \"😀😀\" + salute(\"日本\") + /* 語 */ salute(\"y\");\nconsole.log(s);\n",
			"m.ts":   "export function greet(name: string): string { return \"こんにちは \" + name; }\n",
		},
	},
	{
		name: "typescript-language-server across files", server: "typescript-language-server", args: []string{"--stdio"}, lang: "typescript",
		files: map[string]string{
			"tsconfig.json": "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"*.ts\"]}\n",
			"m.ts":          "/* 😀 */ export function greet(name: string): string { return \"こんにちは \" + name; }\n",
			"use.ts":        "import { greet } from \"./m\";\nconst s = \"😀😀\" + greet(\"日本\") + /* 語 */ greet(\"y\");\nconsole.log(s);\n",
		},
		open: "m.ts", alsoOpen: []string{"use.ts"}, line: 1, symbol: "greet", newName: "salute",
		offer: []string{"utf-16"}, want: position.UTF16,
		expect: map[string]string{
			"m.ts":   "/* 😀 */ export function salute(name: string): string { return \"こんにちは \" + name; }\n",
			"use.ts": "import { salute } from \"./m\";\nconst s = \"😀😀\" + salute(\"日本\") + /* 語 */ salute(\"y\");\nconsole.log(s);\n",
		},
	},
}

// TestRealServerRenameApplied asks real language servers (gopls, clangd)
// for renames on lines where emoji and CJK precede the identifier, in each
// position encoding they negotiate, and applies the edits on disk.
func TestRealServerRenameApplied(t *testing.T) {
	for _, tc := range renameCases {
		t.Run(tc.name, func(t *testing.T) {
			bin := peers.Require(t, tc.server)
			dir := tree(t, tc.files)
			c := startLSP(t, dir, append([]string{bin}, tc.args...)...)
			var init struct {
				Capabilities struct {
					PositionEncoding string `json:"positionEncoding"`
				} `json:"capabilities"`
				OffsetEncoding string `json:"offsetEncoding"`
			}
			raw := c.call("initialize", map[string]any{
				"processId": os.Getpid(),
				"rootUri":   URIFromPath(dir),
				"capabilities": map[string]any{
					"general": map[string]any{"positionEncodings": tc.offer},
					"workspace": map[string]any{
						"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
						"configuration": true,
					},
					"offsetEncoding": tc.offer,
				},
				"workspaceFolders": []map[string]any{{"uri": URIFromPath(dir), "name": "m"}},
			})
			if err := json.Unmarshal(raw, &init); err != nil {
				t.Fatal(err)
			}
			chosen := init.Capabilities.PositionEncoding
			if chosen == "" {
				chosen = init.OffsetEncoding
			}
			enc, err := position.ParseEncoding(chosen)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && enc != tc.want {
				t.Fatalf("%s chose %s; want %s", tc.server, enc, tc.want)
			}
			c.notify("initialized", map[string]any{})
			openPath := filepath.Join(dir, tc.open)
			text := read(t, dir, tc.open)
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": URIFromPath(openPath), "languageId": tc.lang, "version": 1, "text": text}})

			for _, name := range tc.alsoOpen {
				c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
					"uri": URIFromPath(filepath.Join(dir, name)), "languageId": tc.lang, "version": 1, "text": read(t, dir, name)}})
			}

			// Point at the symbol as a model would: line + name#N.
			pos, err := position.NewDocumentString(text).FromSymbol(tc.line, tc.symbol, enc)
			if err != nil {
				t.Fatal(err)
			}
			// Hover first: the range the server gives back must start where
			// FromSymbol pointed, in the server's encoding. It also waits
			// for analysis: pyright answers a rename sent right after
			// didOpen with null.
			hov := c.call("textDocument/hover", map[string]any{
				"textDocument": map[string]any{"uri": URIFromPath(openPath)},
				"position":     pos,
			})
			var h struct {
				Range *position.Range `json:"range"`
			}
			if err := json.Unmarshal(hov, &h); err != nil {
				t.Fatalf("hover %s: %v", hov, err)
			}
			if h.Range != nil && h.Range.Start != pos {
				t.Errorf("hover range %v does not start at %v: %s", h.Range, pos, hov)
			}
			raw = c.call("textDocument/rename", map[string]any{
				"textDocument": map[string]any{"uri": URIFromPath(openPath)},
				"position":     pos,
				"newName":      tc.newName,
			})
			we, err := Parse(raw)
			if err != nil {
				t.Fatalf("parse %s: %v", raw, err)
			}
			res, err := Apply(context.Background(), we, Options{
				Encoding: enc, Root: dir, Strict: true,
				DocumentVersion: func(p string) (int32, bool) { return 1, p == openPath },
			})
			if err != nil {
				t.Fatalf("apply %s: %v", raw, err)
			}
			for name, want := range tc.expect {
				if got := read(t, dir, name); got != want {
					t.Errorf("%s = %q; want %q\nedit: %s", name, got, want, raw)
				}
			}
			for name, want := range tc.contains {
				if got := read(t, dir, name); !strings.Contains(got, want) {
					t.Errorf("%s = %q; want it to contain %q", name, got, want)
				}
			}
			if !strings.Contains(res.Summary(dir), "edit "+tc.open+": ") {
				t.Errorf("summary = %q", res.Summary(dir))
			}
			c.call("shutdown", nil)
			c.notify("exit", nil)
			if err := c.cmd.Wait(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Logf("%s exit: %v", tc.server, err)
			}
		})
	}
}
