package lsp

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestAskNativeKeepsServerPositions: a server that negotiated utf-8 is
// asked about Foo, which follows a character outside the BMP (4 bytes in
// utf-8, 2 code units in utf-16). Ask takes and gives utf-16 columns;
// AskNative passes the server's own utf-8 columns both ways, unconverted.
func TestAskNativeKeepsServerPositions(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{PositionEncoding: "utf-8"}, nil)
	e.write("package fake\n/*😀*/func Foo() {}\n")
	e.prewarm()
	if st := e.status(); st.Encoding != "utf-8" {
		t.Fatalf("negotiated %q, want utf-8", st.Encoding)
	}
	// Foo starts at byte 13 of its line, utf-16 unit 11.
	const utf8Col, utf16Col = 13, 11
	params := func(col int) json.RawMessage {
		b, _ := encode(map[string]any{"textDocument": map[string]string{"uri": edit.URIFromPath(e.file)},
			"position": map[string]int{"line": 1, "character": col}})
		return b
	}
	type hoverResult struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
		Range struct {
			Start Position `json:"start"`
			End   Position `json:"end"`
		} `json:"range"`
	}
	for _, tt := range []struct {
		name      string
		native    bool
		col       int
		wantWord  bool
		wantStart uint32
	}{
		{"Ask in utf-16", false, utf16Col, true, utf16Col},
		{"AskNative in utf-8", true, utf8Col, true, utf8Col},
		// The utf-16 column read as utf-8 lands inside "func": not Foo.
		{"AskNative given utf-16", true, utf16Col, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ask := e.m.Ask
			if tt.native {
				ask = e.m.AskNative
			}
			ans, err := ask(t.Context(), e.file, "textDocument/hover", params(tt.col))
			if err != nil {
				t.Fatal(err)
			}
			var h hoverResult
			if err := decode(ans.Result, &h); err != nil {
				t.Fatalf("%v: %s", err, ans.Result)
			}
			if got := h.Contents.Value == fakelsp.HoverPrefix+"Foo"; got != tt.wantWord {
				t.Fatalf("hover at %d: %s", tt.col, ans.Result)
			}
			if tt.wantWord && (h.Range.Start.Character != tt.wantStart || h.Range.End.Character != tt.wantStart+3) {
				t.Errorf("hover range %+v, want from %d to %d", h.Range, tt.wantStart, tt.wantStart+3)
			}
		})
	}
}
