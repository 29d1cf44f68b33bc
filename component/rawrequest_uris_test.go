package component

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestRawRequestURIs: a raw request is checked as the file argument is,
// for every file: URI its params hold, wherever it is (a known key, a
// nested object, an array, an odd key, an object key) and however it is
// spelled (percent-encoded dots, a host, the scheme in capitals, JSON
// escapes, a link inside the workspace that points out): a URI outside
// every workspace root refuses the call, naming the URI, and nothing is
// sent, without asking the user. Other schemes are passed on unchecked;
// params nesting too deep or holding too many URIs are refused.
func TestRawRequestURIs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{filepath.Join(root, "main.go"): mainGo, filepath.Join(outside, "secret.go"): "package secret\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	inside := edit.URIFromPath(filepath.Join(root, "main.go"))
	secret := edit.URIFromPath(filepath.Join(outside, "secret.go"))
	// climb reaches the secret from the workspace with ".." spelled %2e%2e.
	climb := edit.URIFromPath(root) + "/%2e%2e/" + filepath.Base(outside) + "/secret.go"
	deep := strings.Repeat("[", maxParamsDepth+1) + strings.Repeat("]", maxParamsDepth+1)
	many := make([]string, maxParamsURIs+1)
	for i := range many {
		many[i] = edit.URIFromPath(filepath.Join(root, fmt.Sprintf("f%d.go", i)))
	}
	manyJSON, _ := json.Marshal(map[string]any{"uris": many})

	for _, tc := range []struct {
		name   string
		method string
		// params is the raw params JSON, passed as a string.
		params string
		// refused, when set, must be in the error; "" means the request
		// is sent.
		refused string
	}{
		{"inside", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}`, inside), ""},
		{"textDocument.uri outside", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, secret), secret},
		{"targetUri nested in an array", "textDocument/hover", fmt.Sprintf(`{"a":{"b":[1,{"targetUri":%q}]}}`, secret), secret},
		{"array of URIs, the second outside", "workspace/willRenameFiles", fmt.Sprintf(`{"files":[%q,%q]}`, inside, secret), secret},
		{"odd key", "textDocument/hover", fmt.Sprintf(`{"zzz":%q}`, secret), secret},
		{"object key", "codeAction/resolve", fmt.Sprintf(`{"edit":{"changes":{%q:[]}}}`, secret), secret},
		{"rootUri of the file system", "textDocument/hover", `{"rootUri":"file:///"}`, "file:///"},
		{"percent-encoded dots", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, climb), climb},
		{"remote host", "textDocument/hover", `{"textDocument":{"uri":"file://host/etc/passwd"}}`, "file://host/etc/passwd"},
		{"localhost", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":"file://localhost%s"}}`, filepath.ToSlash(filepath.Join(outside, "secret.go"))), "file://localhost"},
		{"scheme in capitals", "textDocument/hover", fmt.Sprintf(`{"uri":"FILE://%s"}`, filepath.ToSlash(filepath.Join(outside, "secret.go"))), "FILE://"},
		{"leading space", "textDocument/hover", fmt.Sprintf(`{"uri":" %s"}`, secret), secret},
		{"JSON escapes", "textDocument/hover", fmt.Sprintf(`{"uri":"file:\u002f\u002f%s"}`, filepath.ToSlash(filepath.Join(outside, "secret.go"))), secret},
		{"relative file URI", "textDocument/hover", `{"uri":"file:etc/passwd"}`, "file:etc/passwd"},
		{"link to a folder outside", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, edit.URIFromPath(filepath.Join(root, "out", "secret.go"))), "out/secret.go"},
		{"link to a file outside", "textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, edit.URIFromPath(filepath.Join(root, "link.go"))), "link.go"},
		{"command argument, refused before asking", "workspace/executeCommand", fmt.Sprintf(`{"command":"x.read","arguments":[%q]}`, secret), secret},
		{"untitled and http are not files", "textDocument/hover", `{"textDocument":{"uri":"untitled:Untitled-1"},"link":"http://example.com/x"}`, ""},
		{"too deep", "textDocument/hover", `{"a":` + deep + `}`, "nest deeper than"},
		{"too many URIs", "textDocument/hover", string(manyJSON), "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			fb := newFake()
			_, s := startSession(t, Config{AllowMutating: map[string]bool{"request": true}, AskPermission: func(ctx context.Context, sid, title, shown string) (bool, error) {
				asked = append(asked, title)
				return true, nil
			}}, fb, root)
			cs := connect(t, s)
			fb.set(tc.method, `{"ok":true}`)
			text, isErr := callTool(t, cs, map[string]any{"action": "request", "file": "main.go", "method": tc.method, "params": tc.params})
			sent := slices.ContainsFunc(fb.requests, func(r string) bool { return strings.HasPrefix(r, tc.method+" ") })
			if tc.refused == "" {
				if isErr || !sent {
					t.Errorf("not sent (error %v): %s", isErr, text)
				}
				return
			}
			if !isErr || sent || !strings.Contains(text, tc.refused) {
				t.Errorf("sent %v, error %v, want refused naming %q: %s", sent, isErr, tc.refused, text)
			}
			if len(asked) > 0 {
				t.Errorf("the user was asked about a refused request: %q", asked)
			}
		})
	}
}

// FuzzParamFileURIs: the walk of raw params finds every string, object
// keys included, that a plain decode of the same JSON holds and that names
// a file: URI, and nothing else, or refuses the params; it never panics.
func FuzzParamFileURIs(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///a"}}`, `{"files":[{"oldUri":"file:///a","newUri":"FILE:///b"}]}`,
		`{"changes":{"file:///a":[]}}`, `[[[["file:x"]]]]`, `{"a":" \tfile:///c","b":"untitled:1"}`,
		`"file:///s"`, `{"a":"file:\u002f\u002f\u002fe"}`, `{`, `[1,2.5,true,null,{}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := paramFileURIs(b)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			if len(got) > 0 {
				t.Fatalf("URIs %q from invalid JSON %q", got, b)
			}
			return
		}
		want := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if isFileURI(v) {
					want[v] = true
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for k, e := range v {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
		// A key given twice keeps one value in the decode, so the walk
		// may find more (a server may read either): every one must be a
		// file URI, and none of the decode's missed.
		for _, u := range got {
			if !isFileURI(u) {
				t.Fatalf("%q is no file URI (in %s)", u, b)
			}
			delete(want, u)
		}
		if len(want) > 0 {
			t.Fatalf("missed %q in %s (found %q)", slices.Sorted(maps.Keys(want)), b, got)
		}
	})
}
