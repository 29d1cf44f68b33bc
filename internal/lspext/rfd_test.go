package lspext

import (
	"encoding/json"
	"testing"
)

// TestRFDOffered: the RFD is offered by `lsp` in v1's clientCapabilities or
// v2's capabilities, present and neither null nor false; `_meta.lsp` is
// the other dialect.
func TestRFDOffered(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		want         bool
	}{
		{"v1 object", `{"protocolVersion":1,"clientCapabilities":{"lsp":{}}}`, true},
		{"v2 object", `{"protocolVersion":2,"capabilities":{"lsp":{"x":1}}}`, true},
		{"v1 true", `{"clientCapabilities":{"lsp":true}}`, true},
		{"v1 null", `{"clientCapabilities":{"lsp":null}}`, false},
		{"v1 false", `{"clientCapabilities":{"lsp":false}}`, false},
		{"absent", `{"clientCapabilities":{"fs":{}}}`, false},
		{"meta only", `{"clientCapabilities":{"_meta":{"lsp":{}}}}`, false},
		{"v1 malformed, v2 offered", `{"clientCapabilities":[1],"capabilities":{"lsp":{}}}`, true},
		{"not an object", `[1]`, false},
		{"empty", ``, false},
		{"null", `null`, false},
	} {
		if got := RFDOffered(json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("%s: RFDOffered(%s) = %v, want %v", tc.name, tc.params, got, tc.want)
		}
	}
}

// TestRFDPositionEncoding: a server's positionEncoding, utf-16 when absent.
func TestRFDPositionEncoding(t *testing.T) {
	for _, tc := range []struct{ caps, want string }{
		{`{"positionEncoding":"utf-8"}`, "utf-8"},
		{`{"positionEncoding":"utf-32","hoverProvider":true}`, "utf-32"},
		{`{"hoverProvider":true}`, "utf-16"},
		{`{"positionEncoding":""}`, "utf-16"},
		{`{"positionEncoding":3}`, "utf-16"},
		{`null`, "utf-16"},
		{``, "utf-16"},
	} {
		if got := RFDPositionEncoding(json.RawMessage(tc.caps)); got != tc.want {
			t.Errorf("RFDPositionEncoding(%s) = %q, want %q", tc.caps, got, tc.want)
		}
	}
}

// TestParseRFDErrorData reads the reasons and what goes with them.
func TestParseRFDErrorData(t *testing.T) {
	for _, tc := range []struct {
		data          string
		ok            bool
		reason, state string
	}{
		{`{"reason":"server_not_running","serverId":"gopls@/p","state":"starting"}`, true, RFDServerNotRunning, RFDStateStarting},
		{`{"reason":"unknown_server","servers":[{"serverId":"a","name":"a","workspacePath":"/","state":"running"}]}`, true, RFDUnknownServer, ""},
		{`{"reason":"method_not_forwarded","availableMethods":["textDocument/hover"]}`, true, RFDMethodNotForwarded, ""},
		{`{"code":-32801,"message":"content modified"}`, true, "", ""},
		{`"text"`, false, "", ""},
		{`{"reason":5}`, false, "", ""},
		{``, false, "", ""},
	} {
		d, ok := ParseRFDErrorData(json.RawMessage(tc.data))
		if ok != tc.ok || d.Reason != tc.reason || d.State != tc.state {
			t.Errorf("ParseRFDErrorData(%s) = %+v, %v; want reason %q state %q, %v", tc.data, d, ok, tc.reason, tc.state, tc.ok)
		}
	}
}

// TestRFDNeverForwarded: lifecycle, sync, server→client, file operations,
// the four editor features and every notification are refused; the
// questions the tool asks are not.
func TestRFDNeverForwarded(t *testing.T) {
	for _, m := range []string{"initialize", "shutdown", "textDocument/didOpen", "textDocument/didSave",
		"workspace/didChangeWatchedFiles", "workspace/applyEdit", "client/registerCapability",
		"workspace/willRenameFiles", "textDocument/foldingRange", "textDocument/onTypeFormatting",
		"$/progress", "$/cancelRequest"} {
		if !RFDNeverForwarded(m) {
			t.Errorf("RFDNeverForwarded(%q) = false", m)
		}
	}
	for _, m := range []string{"textDocument/hover", "textDocument/definition", "textDocument/references",
		"textDocument/documentSymbol", "workspace/symbol", "textDocument/diagnostic", "textDocument/rename",
		"textDocument/prepareRename", "textDocument/codeAction", "workspace/executeCommand"} {
		if RFDNeverForwarded(m) {
			t.Errorf("RFDNeverForwarded(%q) = true", m)
		}
	}
}

// FuzzRFDParsers: no input panics the parsers of editor answers and
// initialize params, and a servers answer read back round-trips.
func FuzzRFDParsers(f *testing.F) {
	for _, s := range []string{
		`{"clientCapabilities":{"lsp":{}}}`, `{"capabilities":{"lsp":null}}`,
		`{"positionEncoding":"utf-8"}`, `{"reason":"server_not_running","state":"starting"}`,
		`{"servers":[{"serverId":"g","name":"gopls","workspacePath":"/w","fileExtensions":["go"],"state":"running","capabilities":{}}],"availableMethods":["textDocument/hover"]}`,
		`{"lspResult":null}`, ``, `[`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		raw := json.RawMessage(b)
		RFDOffered(raw)
		RFDPositionEncoding(raw)
		ParseRFDErrorData(raw)
		var r RFDServersResult
		if json.Unmarshal(b, &r) == nil {
			again, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("marshal %+v: %v", r, err)
			}
			var r2 RFDServersResult
			if err := json.Unmarshal(again, &r2); err != nil {
				t.Fatalf("read back %s: %v", again, err)
			}
		}
	})
}
