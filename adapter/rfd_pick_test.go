package adapter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestPickRFDServer: the server for a file, as the RFD advises: root
// holds the file, extension (or language) matches, capability present,
// running first, most specific root.
func TestPickRFDServer(t *testing.T) {
	hover := json.RawMessage(`{"hoverProvider":true,"definitionProvider":{"workDoneProgress":true}}`)
	srv := func(id, root, lang, state string, exts ...string) lspext.RFDServerInfo {
		return lspext.RFDServerInfo{ServerID: id, Name: strings.Split(id, "@")[0], WorkspacePath: root, LanguageID: lang, FileExtensions: exts, State: state, Capabilities: hover}
	}
	gopls := srv("gopls@/w", "/w", "go", "running", "go")
	goplsSub := srv("gopls@/w/sub", "/w/sub", "go", "running", "go")
	goplsStarting := srv("gopls@/w/sub", "/w/sub", "go", "starting", "go")
	pyright := srv("pyright@/w", "/w", "python", "running", "py", "pyi")
	vague := srv("any@/w", "/w", "", "running")
	byLang := srv("golsp@/w", "/w", "go", "running")
	noHover := gopls
	noHover.ServerID, noHover.Capabilities = "bare@/w", json.RawMessage(`{"hoverProvider":false,"definitionProvider":null}`)
	for _, tc := range []struct {
		name    string
		servers []lspext.RFDServerInfo
		path    string
		method  string
		want    string
		miss    rfdMiss
	}{
		{"extension", []lspext.RFDServerInfo{pyright, gopls}, "/w/a.go", "textDocument/hover", "gopls@/w", rfdFound},
		{"other extension", []lspext.RFDServerInfo{pyright, gopls}, "/w/a.py", "textDocument/hover", "pyright@/w", rfdFound},
		{"outside every root", []lspext.RFDServerInfo{gopls}, "/x/a.go", "textDocument/hover", "", rfdUncovered},
		{"root is a prefix, not a parent", []lspext.RFDServerInfo{gopls}, "/wx/a.go", "textDocument/hover", "", rfdUncovered},
		{"no server of the language", []lspext.RFDServerInfo{pyright}, "/w/a.go", "textDocument/hover", "", rfdUncovered},
		{"most specific root", []lspext.RFDServerInfo{gopls, goplsSub}, "/w/sub/a.go", "textDocument/hover", "gopls@/w/sub", rfdFound},
		{"running before specific", []lspext.RFDServerInfo{goplsStarting, gopls}, "/w/sub/a.go", "textDocument/hover", "gopls@/w", rfdFound},
		{"only one starting", []lspext.RFDServerInfo{goplsStarting}, "/w/sub/a.go", "textDocument/hover", "gopls@/w/sub", rfdNotRunning},
		{"extension match before a vague one", []lspext.RFDServerInfo{vague, gopls}, "/w/a.go", "textDocument/hover", "gopls@/w", rfdFound},
		{"a vague server covers", []lspext.RFDServerInfo{vague}, "/w/a.rs", "textDocument/hover", "any@/w", rfdFound},
		{"language id without extensions", []lspext.RFDServerInfo{byLang}, "/w/a.go", "textDocument/hover", "golsp@/w", rfdFound},
		{"capability missing", []lspext.RFDServerInfo{noHover}, "/w/a.go", "textDocument/hover", "", rfdIncapable},
		{"capability false or null", []lspext.RFDServerInfo{noHover}, "/w/a.go", "textDocument/definition", "", rfdIncapable},
		{"capability object", []lspext.RFDServerInfo{gopls}, "/w/a.go", "textDocument/definition", "gopls@/w", rfdFound},
		{"capability of another server", []lspext.RFDServerInfo{noHover, gopls}, "/w/a.go", "textDocument/hover", "gopls@/w", rfdFound},
		{"capability absent from the map: tried", []lspext.RFDServerInfo{gopls}, "/w/a.go", "textDocument/someExtension", "gopls@/w", rfdFound},
		{"capability needed, none", []lspext.RFDServerInfo{gopls}, "/w/a.go", "textDocument/diagnostic", "", rfdIncapable},
		{"no servers", nil, "/w/a.go", "textDocument/hover", "", rfdUncovered},
		{"go.mod by the server's language", []lspext.RFDServerInfo{pyright, gopls}, "/w/go.mod", "textDocument/hover", "gopls@/w", rfdFound},
		{"a language server of another language", []lspext.RFDServerInfo{srv("ts@/w", "/w", "typescript", "running")}, "/w/a.go", "textDocument/hover", "", rfdUncovered},
		{"unknown state", []lspext.RFDServerInfo{srv("gopls@/w", "/w", "go", "crashed", "go")}, "/w/a.go", "textDocument/hover", "gopls@/w", rfdNotRunning},
	} {
		langs := map[string][]string{".go": {"go"}, ".py": {"python"}, ".mod": {"go.mod", "go"}}[extOf(tc.path)]
		got, miss := pickRFDServer(tc.servers, tc.path, langs, tc.method, "")
		if got.ServerID != tc.want || miss != tc.miss {
			t.Errorf("%s: picked %q (%d), want %q (%d)", tc.name, got.ServerID, miss, tc.want, tc.miss)
		}
	}
	if got, _ := pickRFDServer([]lspext.RFDServerInfo{gopls, goplsSub}, "/w/sub/a.go", []string{"go"}, "textDocument/hover", "editor:gopls"); got.ServerID != "gopls@/w/sub" {
		t.Errorf("by name: %q", got.ServerID)
	}
	if got, _ := pickRFDServer([]lspext.RFDServerInfo{gopls, goplsSub}, "/w/sub/a.go", []string{"go"}, "textDocument/hover", "gopls@/w"); got.ServerID != "gopls@/w" {
		t.Errorf("by id: %q", got.ServerID)
	}
}

func extOf(path string) string {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[i:]
	}
	return ""
}

// TestRFDErrorMapping: the editor's RFD errors are told apart by reason;
// others are not RFD errors; a server not running is answered with its
// state, "starting" never reading as an empty result.
func TestRFDErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		reason string
		ok     bool
	}{
		{"unknown server", &proxy.Error{Code: -32602, Message: "x", Data: json.RawMessage(`{"reason":"unknown_server","servers":[]}`)}, lspext.RFDUnknownServer, true},
		{"not running", &proxy.Error{Code: -32602, Message: "x", Data: json.RawMessage(`{"reason":"server_not_running","state":"starting"}`)}, lspext.RFDServerNotRunning, true},
		{"not forwarded", &proxy.Error{Code: -32602, Message: "x", Data: json.RawMessage(`{"reason":"method_not_forwarded","availableMethods":["textDocument/hover"]}`)}, lspext.RFDMethodNotForwarded, true},
		{"invalid params without reason", &proxy.Error{Code: -32602, Message: "bad uri"}, "", false},
		{"reason under another code", &proxy.Error{Code: -32603, Data: json.RawMessage(`{"reason":"unknown_server"}`)}, "", false},
		{"an LSP error passed on", &proxy.Error{Code: -32801, Data: json.RawMessage(`{"code":-32801,"message":"content modified"}`)}, "", false},
		{"data not an object", &proxy.Error{Code: -32602, Data: json.RawMessage(`"unknown_server"`)}, "", false},
		{"not a JSON-RPC error", errString("boom"), "", false},
	} {
		d, ok := rfdReason(tc.err)
		if ok != tc.ok || d.Reason != tc.reason {
			t.Errorf("%s: rfdReason = %q, %v; want %q, %v", tc.name, d.Reason, ok, tc.reason, tc.ok)
		}
	}
	gopls := lspext.RFDServerInfo{ServerID: "gopls@/w", Name: "gopls", State: "running"}
	for _, tc := range []struct {
		state string
		want  []string
	}{
		{"starting", []string{"editor:gopls", "is still starting", "unknown, not empty"}},
		{"not_running", []string{"editor:gopls", "is not running (not_running)", "unknown, not empty"}},
		{"", []string{"is not running (running)"}},
		{"crashed", []string{"is not running (crashed)", "ask again"}},
	} {
		msg := notRunningError(gopls, tc.state).Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("notRunningError(%q) = %q, want %q in it", tc.state, msg, w)
			}
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestPulledItems: a pulled report's items; gopls's kind "" taken as
// full; "unchanged" and malformed answers are errors, never "no
// diagnostics".
func TestPulledItems(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"kind":"full","items":[{"message":"m"}]}`, `[{"message":"m"}]`, true},
		{`{"kind":"","items":[{"message":"m"}]}`, `[{"message":"m"}]`, true},
		{`{"kind":"full","items":null}`, `[]`, true},
		{`{"kind":"full"}`, `[]`, true},
		{`{"kind":"unchanged","resultId":"3"}`, "", false},
		{`{"kind":"full","items":5}`, "", false},
		{`{"kind":"full","items":{"message":"m"}}`, "", false},
		{`null`, "", false},
		{`[1]`, "", false},
	} {
		got, err := pulledItems(json.RawMessage(tc.in))
		if (err == nil) != tc.ok || string(got) != tc.want {
			t.Errorf("pulledItems(%s) = %s, %v; want %s, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzRFDAnswers: no editor answer panics the adapter's readers of it, and
// a server picked is one of those listed, whose root holds the file.
func FuzzRFDAnswers(f *testing.F) {
	f.Add([]byte(`{"servers":[{"serverId":"g","name":"gopls","workspacePath":"/w","fileExtensions":["go"],"state":"running","capabilities":{"hoverProvider":true}}]}`), "/w/a.go", "textDocument/hover")
	f.Add([]byte(`{"kind":"","items":[]}`), "/w", "textDocument/diagnostic")
	f.Add([]byte(`{"servers":[{"serverId":"g","workspacePath":"/","state":"starting","capabilities":null}]}`), "/a", "x")
	f.Fuzz(func(t *testing.T, b []byte, path, method string) {
		pulledItems(b)
		hasCapability(b, method)
		var r lspext.RFDServersResult
		if json.Unmarshal(b, &r) != nil {
			return
		}
		s, miss := pickRFDServer(r.Servers, path, nil, method, "")
		if miss == rfdFound || miss == rfdNotRunning {
			found := false
			for _, x := range r.Servers {
				found = found || x.ServerID == s.ServerID
			}
			if !found || (miss == rfdFound) != s.Running() {
				t.Fatalf("picked %+v (%d) from %s", s, miss, b)
			}
		}
	})
}

// TestRFDSessions: the session a file belongs to, learnt from setup
// requests and their answers: new and fork by the answer's id, load and
// resume by the one they name; a refused setup is not recorded; the
// deepest folder holding the file wins, the newest of equals.
func TestRFDSessions(t *testing.T) {
	a, err := New(Config{NoLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.rfd = rfdState{on: true, pending: map[string]rfdSession{}, lists: map[string]*lspext.RFDServersResult{}, refused: map[string]bool{}}
	setup := func(id, method, params, answer string, dirs ...string) {
		t.Helper()
		req, err := proxy.Parse([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`))
		if err != nil {
			t.Fatal(err)
		}
		a.rfdSetupRequested(req, dirs)
		resp, err := proxy.Parse([]byte(`{"jsonrpc":"2.0","id":` + id + `,` + answer + `}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Method = method
		a.rfdSetupAnswered(resp)
	}
	setup(`1`, "session/new", `{"cwd":"/w"}`, `"result":{"sessionId":"A"}`, "/w")
	setup(`"x"`, "session/load", `{"sessionId":"B","cwd":"/w/sub"}`, `"result":{}`, "/w/sub")
	setup(`3`, "session/new", `{"cwd":"/refused"}`, `"error":{"code":-32603,"message":"no"}`, "/refused")
	setup(`4`, "session/unstable_fork", `{"sessionId":"A","cwd":"/v"}`, `"result":{"sessionId":"C"}`, "/v", "/extra")
	for _, tc := range []struct {
		path, want string
		ok         bool
	}{
		{"/w/a.go", "A", true},
		{"/w/sub/a.go", "B", true},
		{"/v/a.go", "C", true},
		{"/extra/x/a.go", "C", true},
		{"/refused/a.go", "", false},
		{"/elsewhere/a.go", "", false},
		{"", "C", true},
	} {
		if got, ok := a.rfdSessionFor(tc.path); got != tc.want || ok != tc.ok {
			t.Errorf("rfdSessionFor(%q) = %q, %v; want %q, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	setup(`5`, "session/resume", `{"sessionId":"A","cwd":"/w"}`, `"result":null`, "/w")
	if got, _ := a.rfdSessionFor(""); got != "A" {
		t.Errorf("after resuming A the newest session is %q", got)
	}
}
