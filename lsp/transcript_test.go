package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
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
	cfg.Args = append(slices.Clone(cfg.Args), fakelsp.Args(scriptFile, e.record)...)
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
