package adapter

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// call sends a request from the agent side and returns its answer;
// notifications arriving meanwhile are collected in notes.
func (tc *testChain) call(t testing.TB, id int, method, params string, notes *[]msg) msg {
	t.Helper()
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	for {
		m := tc.Agent.Next(t)
		if m.Method == "" && string(m.ID) == fmt.Sprint(id) {
			return m
		}
		if notes != nil {
			*notes = append(*notes, m)
		}
	}
}

// TestLocalMethods sends every method the component uses (both
// spellings), reference methods an agent may send itself, and bad
// requests, straight to the adapter over a chain, answered by a real
// gopls: results, JSON-RPC error codes, and gopls's diagnostics arriving
// downstream as native _lsp/publishDiagnostics.
func TestLocalMethods(t *testing.T) {
	peers.Require(t, "gopls")
	root, main := goWorkspace(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "notes.xyz"), []byte("x"), 0o644))
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	uri := edit.URIFromPath(main)
	var notes []msg

	type check func(t *testing.T, m msg)
	result := func(wants ...string) check {
		return func(t *testing.T, m msg) {
			t.Helper()
			if m.Error != nil {
				t.Fatalf("error %+v", m.Error)
			}
			for _, w := range wants {
				if !strings.Contains(string(m.Result), w) {
					t.Fatalf("result lacks %q: %s", w, m.Result)
				}
			}
		}
	}
	rpcErr := func(code int, want string) check {
		return func(t *testing.T, m msg) {
			t.Helper()
			if m.Error == nil || m.Error.Code != code || !strings.Contains(m.Error.Message, want) {
				t.Fatalf("want error %d %q, got %s", code, want, m.Raw)
			}
		}
	}
	// Line 8 (1-based) is "\tfmt.Println(add(1, 2), add(3))".
	line8 := strings.Split(brokenGo, "\n")[7]
	call2 := strings.LastIndex(line8, "add") // 0-based UTF-16 (ASCII)
	cases := []struct {
		name, method, params string
		check                check
	}{
		{"diagnosticReport", "_lsp/diagnosticReport", fmt.Sprintf(`{"uris":[%q],"wait":90000}`, uri),
			result(`"verdict":"fresh"`, "not enough arguments in call to add", `"server":"gopls"`)},
		{"request hover, bare spelling", "lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":4,"character":5}}}`, uri, uri),
			result("func add(a int, b int) int")},
		{"request definition", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/definition","params":{"textDocument":{"uri":%q},"position":{"line":7,"character":%d}}}`, uri, uri, call2),
			result(`"line":4,"character":5`)},
		{"workspace symbol without uri", "_lsp/request", `{"method":"workspace/symbol","params":{"query":"add"}}`, result(`"name":"add"`)},
		{"servers for uri", "_lsp/servers", fmt.Sprintf(`{"uri":%q}`, uri), result(`"name":"gopls"`, `"source":"local"`, `"state":"ready"`)},
		{"status", "lsp/status", `{}`, result(`"name":"gopls"`, `"root":`+mustJSON(root))},
		{"reference hover", "_lsp/hover", fmt.Sprintf(`{"uri":%q,"line":5,"character":6}`, uri), result(`"contents":"`, "func add(a int, b int) int")},
		{"reference definition, 1-based", "lsp/definition", fmt.Sprintf(`{"uri":%q,"line":8,"character":%d}`, uri, call2+1),
			result(fmt.Sprintf(`[{"uri":%q,"range":{"start":{"line":5,"character":6}`, uri))},
		{"reference references", "_lsp/references", fmt.Sprintf(`{"uri":%q,"line":5,"character":6,"include_declaration":false}`, uri),
			result(fmt.Sprintf(`"start":{"line":8,"character":%d}`, call2+1))},
		{"reference diagnostics", "_lsp/diagnostics", fmt.Sprintf(`{"uri":%q}`, uri), result(`"message":"not enough arguments in call to add`, `"start":{"line":8,`)},
		{"reference document symbols", "_lsp/documentSymbols", fmt.Sprintf(`{"uri":%q}`, uri), result(`"name":"add","kind":12`, `"selection_range"`)},
		{"reference workspace symbol", "_lsp/workspaceSymbol", `{"query":"main"}`, result(`"name":"main"`)},
		{"file outside every root", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{}}`, edit.URIFromPath(filepath.Join(other, "x.go"))),
			rpcErr(proxy.CodeInvalidParams, "outside every workspace root")},
		{"no server for the file type", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{}}`, edit.URIFromPath(filepath.Join(root, "notes.xyz"))),
			rpcErr(proxy.CodeInternalError, "no language server handles this file type")},
		{"no method", "_lsp/request", `{"uri":"file:///x.go"}`, rpcErr(proxy.CodeInvalidParams, "method is missing")},
		{"malformed params", "_lsp/request", `[1,2]`, rpcErr(proxy.CodeInvalidParams, "params")},
		{"not a file uri", "_lsp/hover", `{"uri":"https://example.com/x.go","line":1,"character":1}`, rpcErr(proxy.CodeInvalidParams, "only file://")},
		{"unknown extension method", "_lsp/frobnicate", `{}`, rpcErr(proxy.CodeMethodNotFound, "_lsp/frobnicate")},
		{"unknown server", "_lsp/restart", `{"server":"nosuch"}`, rpcErr(proxy.CodeInvalidParams, "nosuch")},
		{"willRenameFiles through the Manager", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"workspace/willRenameFiles","params":{"files":[{"oldUri":%q,"newUri":%q}]}}`,
			uri, uri, edit.URIFromPath(filepath.Join(root, "main2.go"))), result()},
		{"LSP notification passed to local servers", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"workspace/didRenameFiles","params":{"files":[{"oldUri":%q,"newUri":%q}]}}`,
			uri, edit.URIFromPath(filepath.Join(root, "gone.go")), edit.URIFromPath(filepath.Join(root, "new.go"))), result("null")},
		{"didChangeWatchedFiles", "_lsp/request", fmt.Sprintf(`{"method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":%q,"type":2}]}}`, uri), result("null")},
		{"document sync is acp-lsp's", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/didOpen","params":{}}`, uri), rpcErr(proxy.CodeInvalidParams, "keeps documents")},
		{"server method not found", "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"acme/unknown","params":{}}`, uri), rpcErr(proxy.CodeMethodNotFound, "acme/unknown")},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, tc.call(t, 100+i, c.method, c.params, &notes))
		})
	}
	// Restart by name: a new process answers.
	before := serverPIDs(tc.adapter.Manager())
	if m := tc.call(t, 400, "_lsp/restart", `{"server":"gopls"}`, &notes); m.Error != nil || string(m.Result) != "null" {
		t.Errorf("restart: %s", m.Raw)
	}
	after := serverPIDs(tc.adapter.Manager())
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Errorf("gopls pids before restart %v, after %v", before, after)
	}
	if alive, _ := fakelsp.Alive(before[0]); len(alive) > 0 {
		t.Errorf("old gopls group still has %v", alive)
	}

	// What gopls published arrived downstream, native and attributed.
	found := false
	for _, n := range notes {
		if n.Method != lspext.PublishDiagnostics {
			t.Errorf("agent got %s", n.Raw)
			continue
		}
		var p lspext.PublishDiagnosticsParams
		must(t, json.Unmarshal(n.Params, &p))
		if p.URI == uri && p.Native && p.Server == "gopls" && strings.Contains(string(p.Diagnostics), "not enough arguments in call to add") &&
			strings.Contains(string(p.Diagnostics), `"line":7`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no native publishDiagnostics of main.go from gopls among %d notifications", len(notes))
	}

	// The tool fixes the file and says so: local servers resync, and the
	// next report is clean and fresh.
	must(t, os.WriteFile(main, []byte(strings.Replace(brokenGo, "add(3)", "add(3, 4)", 1)), 0o644))
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","method":"_lsp/filesChanged","params":{"changes":[{"uri":%q,"type":2}]}}`, uri)
	m := tc.call(t, 500, "_lsp/diagnosticReport", fmt.Sprintf(`{"uris":[%q],"wait":90000}`, uri), nil)
	if m.Error != nil || strings.Contains(string(m.Result), "not enough arguments") || !strings.Contains(string(m.Result), `"verdict":"fresh"`) {
		t.Errorf("after the fix: %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMissingServer: a configured server whose program is not installed
// is named, with its install hint, both in _lsp/servers and in the error
// a request about one of its files gets; nothing is started.
func TestMissingServer(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	file := filepath.Join(root, "a.zz")
	must(t, os.WriteFile(file, []byte("zz"), 0o644))
	uri := edit.URIFromPath(file)
	servers := []lsp.ServerConfig{{Name: "zz-ls", Command: "acp-lsp-test-no-such-program", Extensions: []string{"zz"}, Language: "zz", InstallHint: "pip install zz-ls"}}
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	m := tc.call(t, 1, "_lsp/servers", fmt.Sprintf(`{"uri":%q}`, uri), nil)
	want := `{"servers":[{"name":"zz-ls","source":"local","languages":["zz"],"state":"not_installed","lastError":"language server zz-ls: program \"acp-lsp-test-no-such-program\" not found on PATH; install it with: pip install zz-ls"}]}`
	if m.Error != nil || string(m.Result) != want {
		t.Errorf("servers: %s\nwant %s", m.Raw, want)
	}
	m = tc.call(t, 2, "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}}`, uri, uri), nil)
	if m.Error == nil || m.Error.Code != proxy.CodeInternalError || !strings.Contains(m.Error.Message, "install it with: pip install zz-ls") {
		t.Errorf("request: %s", m.Raw)
	}
	m = tc.call(t, 3, "_lsp/request", `{"method":"workspace/symbol","params":{"query":"x"}}`, nil)
	if m.Error == nil || !strings.Contains(m.Error.Message, "is handled by an installed language server") {
		t.Errorf("workspace symbol with nothing installed: %s", m.Raw)
	}
	if s := tc.adapter.Manager().Servers(); len(s) > 1 || (len(s) == 1 && s[0].PID != 0) {
		t.Errorf("servers %+v", s)
	}
	tc.cancel()
	if err := tc.adapter.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestWorkspaceDiagnosticsBounded: a workspace-wide report checks every
// file a server handles, up to maxWorkspaceFiles, and when the workspace
// holds more says how many it left unchecked (verdict unchecked) instead
// of implying the rest is clean.
func TestWorkspaceDiagnosticsBounded(t *testing.T) {
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(script, fakelsp.Script{}))
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	for _, tt := range []struct {
		name      string
		files     int
		unchecked int
	}{{"all checked", 3, 0}, {"more than the bound", maxWorkspaceFiles + 5, 5}} {
		t.Run(tt.name, func(t *testing.T) {
			ws := filepath.Join(root, tt.name)
			must(t, os.MkdirAll(ws, 0o755))
			for i := range tt.files {
				text := "fine\n"
				if i == 0 {
					text = "one ERROR here\n"
				}
				must(t, os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%03d.fk", i)), []byte(text), 0o644))
			}
			servers := []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(script, filepath.Join(dir, tt.name+".record")), Extensions: []string{"fk"}}}
			tc := startChain(t, Config{LSP: lsp.Options{Servers: servers, MaxOpenDocuments: 1000}}, false)
			tc.initialize(t, "", "")
			tc.newSession(t, ws)
			m := tc.call(t, 1, "_lsp/diagnosticReport", `{"wait":60000}`, nil)
			var rep lspext.DiagnosticReportResult
			must(t, json.Unmarshal(m.Result, &rep))
			want := min(tt.files, maxWorkspaceFiles)
			if len(rep.Files) != want || !strings.Contains(string(m.Result), fakelsp.DiagnosticMessage) {
				t.Errorf("%d files in the report, want %d: %.300s", len(rep.Files), want, m.Raw)
			}
			last := rep.Servers[len(rep.Servers)-1]
			said := 0
			if last.Verdict == lspext.VerdictUnchecked && strings.Contains(last.Detail, fmt.Sprintf("%d files not checked", last.Unchecked)) {
				said = last.Unchecked
			}
			if said != tt.unchecked {
				t.Errorf("%d files said unchecked, want %d: %+v", said, tt.unchecked, last)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
			proctest.NoLeftovers(t, bin, 5*time.Second)
		})
	}
}

// TestSessionRoots: the cwd of session/new, load, resume and fork (both
// fork spellings: every request the component gives the lsp tool in)
// becomes a workspace root (a file there is routed, not refused as
// outside), the request reaching the agent byte for byte; a relative cwd
// adds nothing.
func TestSessionRoots(t *testing.T) {
	tc := startChain(t, Config{}, false)
	tc.initialize(t, "", "")
	methods := []string{"session/new", "session/load", "session/resume", "session/fork", "session/unstable_fork", "session/new"}
	relative := len(methods) - 1
	for i, method := range methods {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		must(t, err)
		cwd := dir
		if i == relative {
			cwd = "relative/dir"
		}
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"cwd":%q,"sessionId":"S","mcpServers":[]}}`, 10+i, method, cwd)
		tc.Editor.Sendf(t, "%s", line)
		if m := tc.Agent.Next(t); strings.TrimRight(m.Raw, "\n") != line {
			t.Errorf("agent got %s, want %s", m.Raw, line)
		}
		if want, raw := i != relative, tc.probeRoot(t, 100+i, dir); raw != want {
			t.Errorf("%s %s: root %v, want %v", method, cwd, raw, want)
		}
	}
}

// TestSessionAdditionalRoots: a session's additionalDirectories become
// workspace roots as its cwd does; relative or empty entries, and a value
// that is not a list, add nothing; the request reaches the agent byte for
// byte.
func TestSessionAdditionalRoots(t *testing.T) {
	tc := startChain(t, Config{}, false)
	tc.initialize(t, "", "")
	dir := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		must(t, err)
		return d
	}
	cwd, extraA, extraB, notAList := dir(), dir(), dir(), dir()
	tests := []struct {
		method, extra string
		roots, others []string
	}{
		{"session/new", fmt.Sprintf(`[%q,"relative/dir","",%q]`, extraA, extraB), []string{cwd, extraA, extraB}, nil},
		{"session/load", fmt.Sprintf(`{"dir":%q}`, notAList), nil, []string{notAList}},
	}
	for i, tt := range tests {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"cwd":%q,"additionalDirectories":%s,"sessionId":"S","mcpServers":[]}}`, 10+i, tt.method, cwd, tt.extra)
		tc.Editor.Sendf(t, "%s", line)
		if m := tc.Agent.Next(t); strings.TrimRight(m.Raw, "\n") != line {
			t.Errorf("agent got %s, want %s", m.Raw, line)
		}
		check := func(dir string, want bool) {
			if got := tc.probeRoot(t, 100+i, dir); got != want {
				t.Errorf("%s: %s root %v, want %v", tt.method, dir, got, want)
			}
		}
		for _, d := range tt.roots {
			check(d, true)
		}
		for _, d := range tt.others {
			check(d, false)
		}
	}
}

// probeRoot reports whether dir is a workspace root of the adapter, by
// asking about a file there no server handles: inside a root that is the
// refusal, outside every root the other; anything else fails the test.
func (tc *testChain) probeRoot(t *testing.T, id int, dir string) bool {
	t.Helper()
	probe := edit.URIFromPath(filepath.Join(dir, "x.nolang"))
	m := tc.call(t, id, "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{}}`, probe), nil)
	inside := m.Error != nil && strings.Contains(m.Error.Message, "no language server handles this file type")
	outside := m.Error != nil && strings.Contains(m.Error.Message, "outside every workspace root")
	if inside == outside {
		t.Fatalf("probe of %s: %s", dir, m.Raw)
	}
	return inside
}
