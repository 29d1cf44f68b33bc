package lsp

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestNoEncodingJSONOnProtocol fails if any file of the package calls
// encoding/json's encoders or decoders: go.lsp.dev/protocol v1 values
// encode wrongly through them, so every value goes through codec.go.
func TestNoEncodingJSONOnProtocol(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	banned := map[string]bool{"Marshal": true, "MarshalIndent": true, "Unmarshal": true, "NewEncoder": true, "NewDecoder": true}
	for _, f := range files {
		if strings.HasSuffix(f, "codec_test.go") {
			continue
		}
		fs := token.NewFileSet()
		af, err := parser.ParseFile(fs, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "json" && banned[sel.Sel.Name] {
				t.Errorf("%s: json.%s used; go through encode/decode in codec.go", fs.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestEncodingJSONBreaksProtocol documents why the seam exists: on this
// toolchain encoding/json writes Optional fields as {}. If it ever stops
// doing so the seam is still right, but this test says the trap moved.
func TestEncodingJSONBreaksProtocol(t *testing.T) {
	v := protocol.PublishDiagnosticsParams{Version: protocol.NewOptional[int32](3), Diagnostics: []protocol.Diagnostic{}}
	bad, _ := json.Marshal(v)
	good, err := encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(good), `"version":3`) {
		t.Fatalf("encode = %s", good)
	}
	if strings.Contains(string(bad), `"version":3`) {
		t.Logf("encoding/json now encodes protocol values correctly: %s", bad)
	}
}

func TestClientCapabilitiesDecode(t *testing.T) {
	var caps protocol.ClientCapabilities
	if err := decode([]byte(clientCapabilities), &caps); err != nil {
		t.Fatal(err)
	}
	out, err := encode(caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"positionEncodings":["utf-8","utf-16"]`, `"versionSupport":true`, `"workDoneProgress":true`, `"hierarchicalDocumentSymbolSupport":true`, `"prepareSupport":true`, `"willRename":true`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("capabilities lack %s: %s", want, out)
		}
	}
}
