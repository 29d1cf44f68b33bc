package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// transcriptEnv runs a built-in registry entry, unchanged but for the
// program, against the fake playing a transcript of the real server
// (testdata/transcripts/NAME.txtar): its initialize answer and a script
// of what it does next.
type transcriptEnv struct {
	m       *Manager
	record  string
	dataDir string
}

func newTranscriptEnv(t *testing.T, name, root string) *transcriptEnv {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "transcripts", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var script fakelsp.Script
	var init json.RawMessage
	for _, f := range ar.Files {
		switch f.Name {
		case "initialize.json":
			init = json.RawMessage(f.Data)
		case "script.json":
			if err := decode(f.Data, &script); err != nil {
				t.Fatalf("%s.txtar: script.json: %v", name, err)
			}
		}
	}
	if len(init) == 0 {
		t.Fatalf("%s.txtar has no initialize.json", name)
	}
	// The fake counts positions in the encoding the answer claims, in
	// either form (offsetEncoding is clangd's, which LuaLS answers too).
	var caps struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
			OffsetEncoding   string `json:"offsetEncoding"`
		} `json:"capabilities"`
	}
	if err := decode(init, &caps); err != nil {
		t.Fatalf("%s.txtar: initialize.json: %v", name, err)
	}
	script.PositionEncoding = cmp.Or(caps.Capabilities.PositionEncoding, caps.Capabilities.OffsetEncoding)
	if script.Methods == nil {
		script.Methods = map[string]fakelsp.Behavior{}
	}
	script.Methods["initialize"] = fakelsp.Behavior{Result: init}
	scriptFile := filepath.Join(t.TempDir(), "script.json")
	if err := fakelsp.WriteScript(scriptFile, script); err != nil {
		t.Fatal(err)
	}
	e := &transcriptEnv{record: filepath.Join(t.TempDir(), "record.jsonl"), dataDir: t.TempDir()}
	i := slices.IndexFunc(DefaultServers(), func(s ServerConfig) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("no built-in server %s", name)
	}
	cfg := DefaultServers()[i]
	cfg.Command = fakeBinary(t)
	// The fake's flags first, then the entry's own arguments as they are
	// ("--lsp", "language-server"), after "--" so they end its flags.
	cfg.Args = append(append(fakelsp.Args(scriptFile, e.record), "--"), cfg.Args...)
	e.m, err = NewManager(Options{Roots: []string{root}, Servers: []ServerConfig{cfg}, DataDir: e.dataDir,
		Timeouts: Timeouts{Request: Duration(time.Minute), Loading: Duration(time.Minute), Shutdown: Duration(300 * time.Millisecond), Idle: Duration(-1)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.m.Close(t.Context()) })
	return e
}

func (e *transcriptEnv) messages(t *testing.T) []fakelsp.Message {
	t.Helper()
	if err := e.m.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	msgs, err := fakelsp.ReadRecord(e.record)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestTranscriptRustAnalyzer: rust-analyzer's entry against its
// transcript: the encoding it picks from acp-lsp's offer (utf-8), its
// file watchers registered, and a hover asked while it indexes, answered
// ContentModified eight times, that returns the real answer once the load
// ends rather than failing after the retries a ContentModified otherwise
// gets; then a document symbol request, answered at once.
func TestTranscriptRustAnalyzer(t *testing.T) {
	ws := disk.Tree(t, map[string]string{"Cargo.toml": "[package]\nname = \"fake\"\n", "src/main.rs": fakeText})
	e := newTranscriptEnv(t, "rust-analyzer", ws)
	file := filepath.Join(ws, "src", "main.rs")
	raw, err := hover(t.Context(), e.m, file, Position{Line: 1, Character: 6})
	if err != nil || !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
		t.Fatalf("hover: %s, %v; want the answer after the load", raw, err)
	}
	syms, err := documentSymbols(t.Context(), e.m, file)
	if err != nil || !strings.Contains(string(syms), `"Foo"`) {
		t.Fatalf("document symbols: %s, %v", syms, err)
	}
	st := e.m.Servers()
	if len(st) != 1 || st[0].Root != ws || st[0].Encoding != "utf-8" || !strings.Contains(string(st[0].Capabilities), `"ssr":true`) {
		t.Fatalf("status %+v: want one rust-analyzer at %s speaking utf-8 with its capabilities", st, ws)
	}
	if len(st[0].Registrations) != 1 || st[0].Registrations[0].Method != "workspace/didChangeWatchedFiles" {
		t.Errorf("registrations %+v, want its file watchers", st[0].Registrations)
	}
	msgs := e.messages(t)
	if n := len(fakelsp.Requests(msgs, "textDocument/hover")); n <= 8 {
		t.Errorf("%d hovers sent, want more than the 8 answered ContentModified", n)
	}
	var p struct {
		InitializationOptions json.RawMessage `json:"initializationOptions"`
	}
	for _, r := range fakelsp.Requests(msgs, "initialize") {
		if err := decode(r.Params, &p); err != nil || string(p.InitializationOptions) != "null" {
			t.Errorf("initializationOptions %s, %v: want null (rust-analyzer's defaults)", p.InitializationOptions, err)
		}
	}
}

// TestTranscriptJdtls: jdtls's entry against its transcript: two Maven
// projects in one workspace start two jdtls, each with a -data folder of
// its own under the data folder, named for jdtls and never the same, and
// each answers for its own files.
func TestTranscriptJdtls(t *testing.T) {
	ws := disk.Tree(t, map[string]string{
		"a/pom.xml": "<project/>\n", "a/src/main/java/A.java": fakeText,
		"b/pom.xml": "<project/>\n", "b/src/main/java/B.java": fakeText,
	})
	e := newTranscriptEnv(t, "jdtls", ws)
	for _, f := range []string{"a/src/main/java/A.java", "b/src/main/java/B.java"} {
		syms, err := documentSymbols(t.Context(), e.m, filepath.Join(ws, f))
		if err != nil || !strings.Contains(string(syms), `"Foo"`) {
			t.Fatalf("%s: document symbols %s, %v", f, syms, err)
		}
	}
	st := e.m.Servers()
	if len(st) != 2 || st[0].Root != filepath.Join(ws, "a") || st[1].Root != filepath.Join(ws, "b") {
		t.Fatalf("servers %+v: want jdtls at a and at b", st)
	}
	var dirs []string
	for _, m := range e.messages(t) {
		if m.Kind != "start" {
			continue
		}
		var s fakelsp.Start
		if err := decode(m.Params, &s); err != nil {
			t.Fatal(err)
		}
		i := slices.Index(s.Args, "-data")
		if i < 0 || i+1 >= len(s.Args) {
			t.Fatalf("started with %q, want -data DIR", s.Args)
		}
		dirs = append(dirs, s.Args[i+1])
	}
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Fatalf("-data folders %q: want two, one per root", dirs)
	}
	for _, d := range dirs {
		if !strings.HasPrefix(d, filepath.Join(e.dataDir, "jdtls")+string(filepath.Separator)) {
			t.Errorf("-data %s: want a folder under %s", d, filepath.Join(e.dataDir, "jdtls"))
		}
	}
}

// transcriptText is the file every table case asks about: a declaration
// to list and find, and a word and an error after non-ASCII letters, so a
// position sent in UTF-16 lands on the word, and the error's comes back
// right, only when converted to and from the server's encoding.
const transcriptText = "package fake\nfunc Foo() {}\nvar é, y = Foo\nvar ü = ERROR\n"

// TestTranscripts runs each scripted transcript of a server that cannot
// be installed here (testdata/transcripts/NAME.txtar, whose header says
// what it is scripted from) through its registry entry, with only the
// program replaced: the file routes to the server and its root marker
// makes the project folder its root; initialize negotiates the encoding
// the server claims, and positions are converted to it; while the
// server's load progress runs its answers read as loading, with its
// title (or, for a server that reports no progress, until its entry's
// LoadSignals.DoneLog line), and once it ends as ready (work the entry's LoadSignals call no
// load, such as lua-language-server's workspace diagnosis, leaves it
// ready); its dynamic registrations are in force and its
// workspace/configuration requests answered; and hover, definition and
// documentSymbol are answered and its diagnostics arrive.
func TestTranscripts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		marker  string // root marker, in proj/
		file    string // the file asked about, in proj/
		enc     string
		loading string   // title of its load progress; "" when it reports none
		loads   bool     // whether it loads at all
		regs    []string // methods it registers
		configs int      // workspace/configuration requests it sends
	}{
		{"csharp-ls", "App.csproj", "Program.cs", "utf-16", `Loading workspace folder "/src/proj"..`, true, []string{
			"textDocument/prepareCallHierarchy", "textDocument/codeAction", "textDocument/completion", "textDocument/definition",
			"textDocument/diagnostic", "textDocument/formatting", "textDocument/documentSymbol", "workspace/executeCommand",
			"textDocument/hover", "textDocument/implementation", "textDocument/references", "textDocument/rename",
			"textDocument/signatureHelp", "textDocument/didOpen", "textDocument/didChange", "textDocument/didSave",
			"textDocument/didClose", "textDocument/typeDefinition", "textDocument/prepareTypeHierarchy",
			"workspace/didChangeWatchedFiles", "workspace/symbol",
		}, 1},
		{"ruby-lsp", "Gemfile", "lib/app.rb", "utf-8", "Ruby LSP: indexing files", true, []string{"workspace/didChangeWatchedFiles", "workspace/didChangeWatchedFiles"}, 0},
		{"kotlin-language-server", "settings.gradle.kts", "src/main/kotlin/App.kt", "utf-16", "Indexing", true, nil, 0},
		{"sourcekit-lsp", "Package.swift", "Sources/App/main.swift", "utf-16", "Indexing", true, []string{"workspace/didChangeWatchedFiles"}, 0},
		{"lua-language-server", ".luarc.json", "init.lua", "utf-8", "Loading workspace", true, []string{"workspace/didChangeConfiguration"}, 1},
		{"elixir-ls", "mix.exs", "lib/app.ex", "utf-16", "", true, []string{"workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles"}, 1},
		{"haskell-language-server", "cabal.project", "src/Main.hs", "utf-16", "Setting up proj (for src/Main.hs)", true, nil, 1},
		{"ocamllsp", "dune-project", "bin/main.ml", "utf-8", "", false, nil, 0},
		{"zls", "build.zig", "src/main.zig", "utf-8", "Loading build configuration", true, []string{"workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles"}, 1},
		{"dart", "pubspec.yaml", "lib/main.dart", "utf-16", "Analyzing…", true, []string{
			"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/completion",
			"textDocument/hover", "textDocument/signatureHelp", "textDocument/references", "textDocument/documentHighlight",
			"textDocument/formatting", "textDocument/rangeFormatting", "textDocument/definition", "textDocument/codeAction",
			"textDocument/rename", "textDocument/typeDefinition", "textDocument/prepareCallHierarchy",
			"textDocument/prepareTypeHierarchy", "workspace/willRenameFiles",
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := disk.Tree(t, map[string]string{"proj/" + tc.marker: "\n", "proj/" + tc.file: transcriptText})
			root, file := filepath.Join(ws, "proj"), filepath.Join(ws, "proj", tc.file)
			if got := ServersFor(DefaultServers(), file); len(got) == 0 || got[0].Name != tc.name {
				t.Fatalf("%s routes to %v, want %s first", tc.file, got, tc.name)
			}
			e := newTranscriptEnv(t, tc.name, ws)
			ctx := t.Context()
			uri := mustString(edit.URIFromPath(file))
			symbols := json.RawMessage(`{"textDocument":{"uri":` + uri + `}}`)

			// The first request lands in the load, which ends after it.
			a, err := e.m.Ask(ctx, file, "textDocument/documentSymbol", symbols)
			if err != nil {
				t.Fatalf("document symbols while loading: %v", err)
			}
			titles := func(r Readiness) []string {
				var out []string
				for _, p := range r.Progress {
					out = append(out, p.Title)
				}
				return out
			}
			switch {
			case tc.loads && (a.Readiness.State != ReadyLoading || tc.loading != "" && !slices.Contains(titles(a.Readiness), tc.loading)):
				t.Errorf("first answer %s %q, want loading with %q", a.Readiness.State, titles(a.Readiness), tc.loading)
			case !tc.loads && (a.Readiness.State != Ready || !strings.Contains(string(a.Result), `"Foo"`)):
				t.Errorf("first answer %s %s, want ready and complete (it loads nothing)", a.Readiness.State, a.Result)
			}
			// A guard against hanging on a server never read as ready.
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if r, err := e.m.WaitReady(wctx, file); err != nil {
				t.Fatalf("wait ready: %v; last %s %q", err, r.State, titles(r))
			}

			// y follows é: 7 UTF-16 units in, 8 bytes.
			hov, err := e.m.Ask(ctx, file, "textDocument/hover", json.RawMessage(`{"textDocument":{"uri":`+uri+`},"position":{"line":2,"character":7}}`))
			if err != nil || hov.Readiness.State != Ready || !strings.Contains(string(hov.Result), fakelsp.HoverPrefix+"y") {
				t.Errorf("hover on y: %s %s, %v; want the hover of y, ready", hov.Readiness.State, hov.Result, err)
			}
			def, err := definition(ctx, e.m, file, Position{Line: 2, Character: 11})
			var locs []struct {
				URI   string `json:"uri"`
				Range struct {
					Start Position `json:"start"`
				} `json:"range"`
			}
			if err == nil {
				err = decode(def, &locs)
			}
			if err != nil || len(locs) != 1 || `"`+locs[0].URI+`"` != uri || locs[0].Range.Start != (Position{Line: 1, Character: 5}) {
				t.Errorf("definition of Foo: %s, %v; want func Foo at 1:5", def, err)
			}
			if a, err = e.m.Ask(ctx, file, "textDocument/documentSymbol", symbols); err != nil || a.Readiness.State != Ready || !strings.Contains(string(a.Result), `"Foo"`) {
				t.Errorf("document symbols once ready: %s %s, %v", a.Readiness.State, a.Result, err)
			}

			// Pushed or pulled, as the server offers (statically or by
			// registration); ERROR is 8 UTF-16 units in, 9 bytes.
			rep, err := e.m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			var diags []struct {
				Range struct {
					Start Position `json:"start"`
				} `json:"range"`
			}
			if fd := rep.Files[0]; fd.Verdict != Fresh || decode(fd.Diagnostics, &diags) != nil || len(diags) != 1 || diags[0].Range.Start != (Position{Line: 3, Character: 8}) {
				t.Errorf("diagnostics: %s %s (%s); want one, fresh, at 3:8", fd.Verdict, fd.Diagnostics, fd.Detail)
			}

			st := e.m.Servers()
			if len(st) != 1 {
				t.Fatalf("%d servers, want one", len(st))
			}
			if st[0].Name != tc.name || st[0].Root != root || string(st[0].Encoding) != tc.enc {
				t.Fatalf("%s at %s speaking %s, want %s at %s speaking %s", st[0].Name, st[0].Root, st[0].Encoding, tc.name, root, tc.enc)
			}
			var regs []string
			for _, r := range st[0].Registrations {
				regs = append(regs, r.Method)
			}
			slices.Sort(regs)
			if !slices.Equal(regs, slices.Sorted(slices.Values(tc.regs))) {
				t.Errorf("registrations %q, want %q", regs, tc.regs)
			}
			configs := 0
			for _, m := range e.messages(t) {
				if m.Kind != "response" {
					continue
				}
				if len(m.Error) > 0 {
					t.Errorf("%s answered with error %s", m.Method, m.Error)
				}
				if m.Method == "workspace/configuration" {
					configs++
				}
			}
			if configs != tc.configs {
				t.Errorf("%d workspace/configuration answered, want %d", configs, tc.configs)
			}
		})
	}
}
