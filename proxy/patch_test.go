package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSetPath(t *testing.T) {
	tests := []struct {
		in, val string
		path    []string
		want    string
	}{
		{`{"a":1}`, `2`, []string{"a"}, `{"a":2}`},
		{`{"a":1}`, `2`, []string{"b"}, `{"a":1,"b":2}`},
		{`{}`, `true`, []string{"x", "y"}, `{"x":{"y":true}}`},
		{` { "r" : { "agentCapabilities" : {"z":1.10} } } `, `{"m":[]}`, []string{"r", "agentCapabilities", "_meta", "lsp"}, ` { "r" : { "agentCapabilities" : {"z":1.10,"_meta":{"lsp":{"m":[]}}} } } `},
		{`{"a":null}`, `1`, []string{"a", "b"}, `{"a":{"b":1}}`},
		{`{"k\u00e9":1}`, `2`, []string{"ké"}, `{"k\u00e9":2}`},
	}
	for _, tt := range tests {
		got, err := SetPath([]byte(tt.in), json.RawMessage(tt.val), tt.path...)
		if err != nil || string(got) != tt.want {
			t.Errorf("SetPath(%s, %s, %v) = %s, %v; want %s", tt.in, tt.val, tt.path, got, err, tt.want)
		}
	}
	for _, bad := range []struct{ in, val string }{{`{"a":1}`, `x`}, {`[1]`, `1`}, {`{"a":"s"}`, `1`}} {
		if _, err := SetPath([]byte(bad.in), json.RawMessage(bad.val), "a", "b"); err == nil {
			t.Errorf("SetPath(%s, %s): no error", bad.in, bad.val)
		}
	}
}

func TestAppendPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"params":{"cwd":"/","mcpServers":[]}}`, `{"params":{"cwd":"/","mcpServers":[{"n":1}]}}`},
		{`{"params":{"mcpServers":[ {"a":2} ]}}`, `{"params":{"mcpServers":[ {"a":2} ,{"n":1}]}}`},
		{`{"params":{}}`, `{"params":{"mcpServers":[{"n":1}]}}`},
		{`{"params":{"mcpServers":null}}`, `{"params":{"mcpServers":[{"n":1}]}}`},
	}
	for _, tt := range tests {
		got, err := AppendPath([]byte(tt.in), json.RawMessage(`{"n":1}`), "params", "mcpServers")
		if err != nil || string(got) != tt.want {
			t.Errorf("AppendPath(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := AppendPath([]byte(`{"params":{"mcpServers":{}}}`), json.RawMessage(`1`), "params", "mcpServers"); err == nil {
		t.Error("append to an object: no error")
	}
}

// TestPatchRejectsTrailingData: an object followed by anything but
// whitespace is not one JSON value; the helpers must refuse it rather than
// carry the garbage into the edited copy.
func TestPatchRejectsTrailingData(t *testing.T) {
	for _, in := range []string{
		`{"params":{"mcpServers":[]}}x`,
		`{"params":{"mcpServers":[]}} {}`,
		`{"params":{"mcpServers":[]}}]`,
		`{"params":{"mcpServers":[]}},`,
		`{"params":{"mcpServers":[]}}` + "\n\x00",
		`{"params":{"mcpServers":[]}}}`,
	} {
		if out, err := AppendPath([]byte(in), json.RawMessage(`1`), "params", "mcpServers"); err == nil {
			t.Errorf("AppendPath(%q) = %s, want an error", in, out)
		}
		if out, err := SetPath([]byte(in), json.RawMessage(`1`), "params", "x"); err == nil {
			t.Errorf("SetPath(%q) = %s, want an error", in, out)
		}
		if v, ok := GetPath([]byte(in), "params"); ok {
			t.Errorf("GetPath(%q) = %s, want not ok", in, v)
		}
		if v, ok := GetPath([]byte(in)); ok {
			t.Errorf("GetPath(%q) with no path = %s, want not ok", in, v)
		}
	}
	// Whitespace around the object is kept, as every other byte.
	got, err := AppendPath([]byte(" {\"a\":[]} \r\n"), json.RawMessage(`1`), "a")
	if err != nil || string(got) != " {\"a\":[1]} \r\n" {
		t.Errorf("AppendPath with surrounding whitespace = %q, %v", got, err)
	}
}

// FuzzPatchValidates: whatever the input, a helper that succeeds was given
// one valid JSON object and returns one valid JSON value.
func FuzzPatchValidates(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1]}}`), "a", "b")
	f.Add([]byte(`{"a":{"b":[1]}}x`), "a", "b")
	f.Add([]byte(`{"a":{"b":[1]} }`), "a", "b")
	f.Add([]byte(`{"a":1}{"a":2}`), "a", "")
	f.Fuzz(func(t *testing.T, obj []byte, k1, k2 string) {
		valid := json.Valid(obj) && checkJSON(obj) == nil
		path := []string{k1}
		if k2 != "" {
			path = append(path, k2)
		}
		if out, err := AppendPath(obj, json.RawMessage(`{"n":1}`), path...); err == nil {
			if !valid {
				t.Fatalf("AppendPath accepted invalid %q: %q", obj, out)
			}
			if !json.Valid(out) {
				t.Fatalf("AppendPath(%q) = %q, not JSON", obj, out)
			}
		}
		if out, err := SetPath(obj, json.RawMessage(`[true]`), path...); err == nil {
			if !valid {
				t.Fatalf("SetPath accepted invalid %q: %q", obj, out)
			}
			if !json.Valid(out) {
				t.Fatalf("SetPath(%q) = %q, not JSON", obj, out)
			}
		}
		if v, ok := GetPath(obj, path...); ok {
			if !valid {
				t.Fatalf("GetPath accepted invalid %q: %q", obj, v)
			}
			if !json.Valid(v) {
				t.Fatalf("GetPath(%q) = %q, not JSON", obj, v)
			}
		}
	})
}

func TestMessageWith(t *testing.T) {
	m, err := Parse([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := AppendPath(m.Params(), json.RawMessage(`{"name":"lsp"}`), "mcpServers")
	if err != nil {
		t.Fatal(err)
	}
	n, err := m.WithParams(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"lsp"}]}}`; string(n.Raw) != want {
		t.Fatalf("got %s", n.Raw)
	}
	if v, ok := GetPath(n.Raw, "params", "mcpServers"); !ok || string(v) != `[{"name":"lsp"}]` {
		t.Fatalf("GetPath: %s %v", v, ok)
	}
	r, err := n.WithMethod("_proxy/initialize")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"method":"_proxy/initialize","params":{"cwd":"/w","mcpServers":[{"name":"lsp"}]}}`; string(r.Raw) != want || r.Method != "_proxy/initialize" || r.Kind != KindRequest {
		t.Fatalf("WithMethod: %s (%q, %v)", r.Raw, r.Method, r.Kind)
	}
}

// FuzzSetPath checks that SetPath changes exactly the one field: decoding
// before and after differ only there.
func FuzzSetPath(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[1,2]}`), "a", "b", []byte(`{"x":null}`))
	f.Add([]byte(`{}`), "q", "r", []byte(`[]`))
	f.Add([]byte(`{"a":{}}`), "a", "b", []byte(`2`+strings.Repeat("0", 400)))
	f.Fuzz(func(t *testing.T, obj []byte, k1, k2 string, val []byte) {
		var before map[string]any
		if unmarshalNumbers(obj, &before) != nil || before == nil || !json.Valid(val) {
			return
		}
		if checkJSON(obj) != nil || checkJSON(val) != nil || !utf8.ValidString(k1) || !utf8.ValidString(k2) {
			return // invalid UTF-8 and the like: encoding/json is laxer
		}
		out, err := SetPath(obj, val, k1, k2)
		if err != nil {
			if inner, ok := before[k1]; ok && inner != nil {
				if _, isObj := inner.(map[string]any); !isObj {
					return
				}
			}
			t.Fatalf("SetPath(%s, %q, %q, %s): %v", obj, k1, k2, val, err)
		}
		var after map[string]any
		if err := unmarshalNumbers(out, &after); err != nil {
			t.Fatalf("result %s is not JSON: %v", out, err)
		}
		var v any
		unmarshalNumbers(val, &v)
		inner, _ := before[k1].(map[string]any)
		if inner == nil {
			inner = map[string]any{}
		}
		inner[k2] = v
		before[k1] = inner
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("SetPath(%s, %q, %q, %s) = %s", obj, k1, k2, val, out)
		}
	})
}

func FuzzAppendPath(f *testing.F) {
	f.Add([]byte(`{"mcpServers":[1]}`), []byte(`{"n":1}`))
	f.Fuzz(func(t *testing.T, obj, elem []byte) {
		// Numbers stay json.Number: a valid number too large for a float64
		// (1e400) is still JSON that AppendPath must carry unchanged.
		var before map[string]any
		if unmarshalNumbers(obj, &before) != nil || before == nil || checkJSON(obj) != nil || checkJSON(elem) != nil {
			return
		}
		out, err := AppendPath(obj, elem, "mcpServers")
		arr, isArr := before["mcpServers"].([]any)
		if err != nil {
			if isArr || before["mcpServers"] == nil {
				t.Fatalf("AppendPath(%s, %s): %v", obj, elem, err)
			}
			return
		}
		var v any
		unmarshalNumbers(elem, &v)
		before["mcpServers"] = append(arr, v)
		var after map[string]any
		if err := unmarshalNumbers(out, &after); err != nil || !reflect.DeepEqual(before, after) {
			t.Fatalf("AppendPath(%s, %s) = %s (%v)", obj, elem, out, err)
		}
	})
}

// unmarshalNumbers decodes b into v keeping numbers as json.Number.
func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}

func TestFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string // values of a, b, c; "-" when absent
		err  bool
	}{
		{in: `{"a":1,"b":{"x":[1,2]},"z":null}`, want: []string{"1", `{"x":[1,2]}`, "-"}},
		{in: ` { "c" : "s" , "a":true, "a" : false } `, want: []string{"false", "-", `"s"`}},
		{in: `{"\u0061":2}`, want: []string{"2", "-", "-"}},
		{in: `{}`, want: []string{"-", "-", "-"}},
		{in: `{"a":1}x`, err: true},
		{in: `{"a":}`, err: true},
		{in: `[1]`, err: true},
	}
	for _, tt := range tests {
		got, err := Fields([]byte(tt.in), "a", "b", "c")
		if tt.err {
			if err == nil {
				t.Errorf("Fields(%s): no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("Fields(%s): %v", tt.in, err)
			continue
		}
		for i, w := range tt.want {
			if (w == "-") != (got[i] == nil) || (w != "-" && string(got[i]) != w) {
				t.Errorf("Fields(%s)[%d] = %s, want %s", tt.in, i, got[i], w)
			}
		}
	}
}

// FuzzFields: Fields agrees with GetPath on every key, and with
// encoding/json on validity.
func FuzzFields(f *testing.F) {
	f.Add([]byte(`{"method":"m","params":{"a":1},"_meta":{}}`), "method")
	f.Add([]byte(`{"k\u00e9":1,"k\u00e9":2}`), "ké")
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		got, err := Fields(obj, key)
		v, ok := GetPath(obj, key)
		if err != nil {
			if ok {
				t.Fatalf("Fields(%q) failed (%v), GetPath found %q", obj, err, v)
			}
			return
		}
		if !json.Valid(obj) {
			t.Fatalf("Fields accepted invalid %q", obj)
		}
		if ok != (got[0] != nil) || (ok && string(v) != string(got[0])) {
			t.Fatalf("Fields(%q, %q) = %q, GetPath = %q %v", obj, key, got[0], v, ok)
		}
	})
}
