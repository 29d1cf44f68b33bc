package adapter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// TestNativeResult converts reference-shape editor answers to native LSP
// results: 1-based → 0-based, snake_case → camelCase, lenient where
// editors differ (single object, camelCase fields), errors on wrong
// shapes.
func TestNativeResult(t *testing.T) {
	for _, tt := range []struct {
		name, ref, in, want, wantErr string
	}{
		{"hover", lspext.Hover, `{"contents":"**x**","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":3}}}`,
			`{"contents":{"kind":"markdown","value":"**x**"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}}`, ""},
		{"hover null", lspext.Hover, `null`, `null`, ""},
		{"hover MarkupContent", lspext.Hover, `{"contents":{"kind":"plaintext","value":"v"}}`, `{"contents":{"kind":"markdown","value":"v"}}`, ""},
		{"hover MarkedString list", lspext.Hover, `{"contents":[{"language":"go","value":"func f()"},"doc"]}`,
			`{"contents":{"kind":"markdown","value":"` + "```go\\nfunc f()\\n```\\n\\ndoc" + `"}}`, ""},
		{"hover number", lspext.Hover, `{"contents":5}`, "", "want a markdown string"},
		{"hover array", lspext.Hover, `[1]`, "", "cannot unmarshal"},
		{"definition list", lspext.Definition, `[{"uri":"file:///a","range":{"start":{"line":5,"character":6},"end":{"line":5,"character":9}}}]`,
			`[{"uri":"file:///a","range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`, ""},
		{"definition single object", lspext.Definition, `{"uri":"file:///a","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}}}`,
			`[{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}]`, ""},
		{"definition null", lspext.Definition, `null`, `[]`, ""},
		{"definition zero read as first", lspext.Definition, `[{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}]`,
			`[{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}]`, ""},
		{"location without uri", lspext.References, `[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}}}]`, "", "without uri"},
		{"negative line", lspext.References, `[{"uri":"file:///a","range":{"start":{"line":-1,"character":1},"end":{"line":1,"character":1}}}]`, "", "cannot unmarshal"},
		{"diagnostics", lspext.Diagnostics, `[{"range":{"start":{"line":2,"character":3},"end":{"line":2,"character":4}},"severity":9,"code":42,"message":"m"}]`,
			`[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}},"code":42,"message":"m"}]`, ""},
		{"document symbols, camelCase selection", lspext.DocumentSymbols,
			`[{"name":"f","kind":12,"range":{"start":{"line":1,"character":1},"end":{"line":3,"character":2}},"selectionRange":{"start":{"line":1,"character":6},"end":{"line":1,"character":7}},"children":[{"name":"x","kind":13,"range":{"start":{"line":2,"character":2},"end":{"line":2,"character":3}},"selection_range":{"start":{"line":2,"character":2},"end":{"line":2,"character":3}}}]}]`,
			`[{"name":"f","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"selectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}},"children":[{"name":"x","kind":13,"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"selectionRange":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}}}]}]`, ""},
		{"workspace symbol", lspext.WorkspaceSymbol, `[{"name":"f","kind":12,"location":{"uri":"file:///a","range":{"start":{"line":1,"character":6},"end":{"line":1,"character":7}}}}]`,
			`[{"name":"f","kind":12,"location":{"uri":"file:///a","range":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}}}}]`, ""},
		{"code actions", lspext.CodeActions, `[{"title":"fix","kind":"quickfix","is_preferred":true,"edit":{"changes":{"file:///a":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"new_text":"y"}]}}}]`,
			`[{"title":"fix","kind":"quickfix","isPreferred":true,"edit":{"changes":{"file:///a":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"y"}]}}}]`, ""},
		{"code actions object not list", lspext.CodeActions, `"x"`, "", "cannot unmarshal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nativeResult(tt.ref, json.RawMessage(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %s, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}

// TestReferenceRoundTrip converts native params to reference params (what
// the editor is asked) and native results to reference results (what a
// reference agent gets from local servers).
func TestReferenceRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name, ref, native, want string
	}{
		{"hover", lspext.Hover, `{"textDocument":{"uri":"file:///a"},"position":{"line":0,"character":4}}`, `{"uri":"file:///a","line":1,"character":5}`},
		{"references default includes declaration", lspext.References, `{"textDocument":{"uri":"file:///a"},"position":{"line":2,"character":0}}`,
			`{"uri":"file:///a","line":3,"character":1,"include_declaration":true}`},
		{"references without declaration", lspext.References, `{"textDocument":{"uri":"file:///a"},"position":{"line":2,"character":0},"context":{"includeDeclaration":false}}`,
			`{"uri":"file:///a","line":3,"character":1,"include_declaration":false}`},
		{"workspace symbol", lspext.WorkspaceSymbol, `{"query":"Foo"}`, `{"query":"Foo"}`},
		{"code actions", lspext.CodeActions, `{"textDocument":{"uri":"file:///a"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"context":{"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"code":7,"message":"m"}]}}`,
			`{"uri":"file:///a","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":4}},"diagnostics":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":4}},"code":"7","message":"m"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := referenceParams(tt.ref, json.RawMessage(tt.native))
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tt.want)
			}
			// And back: the reference params as local servers get them.
			call, err := nativeCall(tt.ref, got)
			if err != nil {
				t.Fatal(err)
			}
			if call.method != referenceToNative[tt.ref] {
				t.Errorf("method %s", call.method)
			}
		})
	}
	if _, err := referenceParams(lspext.Hover, json.RawMessage(`{"position":{"line":1,"character":1}}`)); err == nil {
		t.Error("hover without textDocument accepted")
	}

	for _, tt := range []struct {
		name, ref, native, want string
	}{
		{"hover markup", lspext.Hover, `{"contents":{"kind":"markdown","value":"v"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`,
			`{"contents":"v","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}}}`},
		{"definition link", lspext.Definition, `[{"targetUri":"file:///b","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"targetSelectionRange":{"start":{"line":3,"character":5},"end":{"line":3,"character":8}}}]`,
			`[{"uri":"file:///b","range":{"start":{"line":4,"character":6},"end":{"line":4,"character":9}}}]`},
		{"definition single location", lspext.Definition, `{"uri":"file:///b","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`,
			`[{"uri":"file:///b","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}}}]`},
		{"flat symbols", lspext.DocumentSymbols, `[{"name":"f","kind":12,"location":{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}}]`,
			`[{"name":"f","kind":12,"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"selection_range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}}}]`},
		{"workspace symbol without range", lspext.WorkspaceSymbol, `[{"name":"f","kind":12,"location":{"uri":"file:///a"}}]`,
			`[{"name":"f","kind":12,"location":{"uri":"file:///a","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}}}}]`},
		{"code action with documentChanges", lspext.CodeActions, `[{"title":"t","edit":{"documentChanges":[{"textDocument":{"uri":"file:///a","version":1},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"z"}]}]}},{"title":"cmd","command":"x"}]`,
			`[{"title":"t","edit":{"changes":{"file:///a":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"new_text":"z"}]}}},{"title":"cmd"}]`},
	} {
		t.Run("result "+tt.name, func(t *testing.T) {
			got, err := referenceResult(tt.ref, json.RawMessage(tt.native))
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
	if _, err := referenceResult(lspext.CodeActions, json.RawMessage(`[{"title":"mv","edit":{"documentChanges":[{"kind":"rename","oldUri":"file:///a","newUri":"file:///b"}]}}]`)); err == nil {
		t.Error("a file rename in a code action was silently dropped")
	}
}

// FuzzEditorAnswer feeds arbitrary editor answers to every reference
// method's translation: it never panics, and what it accepts is valid
// JSON whose positions are never negative.
func FuzzEditorAnswer(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `{}`, `"x"`, `5`,
		`{"contents":"x","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}}}`,
		`{"contents":[{"language":"go","value":"v"},"d",[1]]}`,
		`[{"uri":"file:///a","range":{"start":{"line":4294967295,"character":0},"end":{"line":0,"character":0}}}]`,
		`[{"name":"f","kind":99,"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}},"children":[{"name":"g","children":[{}]}]}]`,
		`[{"title":"t","edit":{"changes":{"file:///a":[{"range":{},"new_text":"x"}]}},"diagnostics":[{"code":null,"severity":0}]}]`,
		`[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}},"severity":1,"code":{"x":1},"message":"m"}]`,
	} {
		for i := range referenceMethods {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, answer string) {
		ref := referenceMethods[int(which)%len(referenceMethods)]
		out, err := nativeResult(ref, json.RawMessage(answer))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s: invalid JSON %s", ref, out)
		}
		if strings.Contains(string(out), `"line":-`) || strings.Contains(string(out), `"character":-`) {
			t.Fatalf("%s: negative position in %s", ref, out)
		}
		// Whatever was accepted converts back to the reference shape.
		if ref != lspext.Diagnostics {
			if _, err := referenceResult(ref, out); err != nil {
				t.Fatalf("%s: native result %s does not convert back: %v", ref, out, err)
			}
		}
	})
}

// TestParseOffer reads the editor's clientCapabilities._meta.lsp.
func TestParseOffer(t *testing.T) {
	for _, tt := range []struct {
		raw     string
		methods map[string]string
	}{
		{`true`, map[string]string{lspext.Hover: "", lspext.CodeActions: ""}},
		{` true `, map[string]string{lspext.Definition: ""}},
		{`false`, nil},
		{`null`, nil},
		{``, nil},
		{`"yes"`, nil},
		{`1`, nil},
		{`{}`, map[string]string{}},
		{`{"methods":["lsp/hover","_lsp/request","other/x","lsp/"]}`, map[string]string{lspext.Hover: "lsp", lspext.Request: "_lsp"}},
		{`{"methods":"lsp/hover"}`, nil},
	} {
		o := parseOffer(json.RawMessage(tt.raw))
		if tt.methods == nil {
			if o != nil {
				t.Errorf("%s: offer %+v, want none", tt.raw, o)
			}
			continue
		}
		if o == nil {
			t.Errorf("%s: no offer", tt.raw)
			continue
		}
		for m, sp := range tt.methods {
			if got, ok := o.has(m); !ok || got != sp {
				t.Errorf("%s: %s → %q %v, want %q", tt.raw, m, got, ok, sp)
			}
		}
		if tt.raw[0] == '{' && len(o.methods) != len(tt.methods) {
			t.Errorf("%s: methods %v", tt.raw, o.methods)
		}
	}
}

// FuzzOutsideInput feeds arbitrary JSON to every parser of what the
// editor and the agent send: the capability offer, reference params (an
// agent's request) and native params (the component's): no panic, and
// what is accepted converts to valid JSON.
func FuzzOutsideInput(f *testing.F) {
	for _, s := range []string{
		`true`, `{"methods":["lsp/hover"],"notifications":["_lsp/didSave"]}`, `{"methods":[1,null]}`,
		`{"uri":"file:///a","line":0,"character":4294967295}`, `{"uri":"file:///a","range":{"start":{}},"diagnostics":[{"code":1.5}]}`,
		`{"textDocument":{"uri":"file:///a"},"position":{"line":4294967295,"character":0},"context":{"includeDeclaration":null}}`,
		`{"query":""}`, `[]`, `null`,
	} {
		for i := range referenceMethods {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		raw := json.RawMessage(in)
		_ = parseOffer(raw)
		ref := referenceMethods[int(which)%len(referenceMethods)]
		if call, err := nativeCall(ref, raw); err == nil && !json.Valid(call.params) {
			t.Fatalf("%s: invalid native params %s", ref, call.params)
		}
		if ref != lspext.Diagnostics {
			if out, err := referenceParams(ref, raw); err == nil && !json.Valid(out) {
				t.Fatalf("%s: invalid reference params %s", ref, out)
			}
			if out, err := referenceResult(ref, raw); err == nil && !json.Valid(out) {
				t.Fatalf("%s: invalid reference result %s", ref, out)
			}
		}
	})
}
