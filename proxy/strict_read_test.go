package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestStrictFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string // values of a, b; "-" when absent
		err  bool
	}{
		{in: `{"a":1,"b":{"x":[1,2]}}`, want: []string{"1", `{"x":[1,2]}`}},
		{in: ` { "b" : "s" } `, want: []string{"-", `"s"`}},
		{in: `{}`, want: []string{"-", "-"}},
		{in: `{"a":1,"a":2}`, err: true},
		{in: `{"\u0061":1}`, err: true},
		{in: `{"A":1}`, err: true},
		{in: `{"a":1,"z":null}`, err: true},
		{in: `{"a":1}x`, err: true},
		{in: `{"a":}`, err: true},
		{in: `[1]`, err: true},
		{in: ``, err: true},
	}
	for _, tt := range tests {
		got, err := StrictFields([]byte(tt.in), "a", "b")
		if tt.err {
			if err == nil {
				t.Errorf("StrictFields(%s): no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("StrictFields(%s): %v", tt.in, err)
			continue
		}
		for i, w := range tt.want {
			if (w == "-") != (got[i] == nil) || (w != "-" && string(got[i]) != w) {
				t.Errorf("StrictFields(%s)[%d] = %s, want %s", tt.in, i, got[i], w)
			}
		}
	}
}

// topKeys returns the keys of the JSON object obj as encoding/json
// decodes them, in order, repeats included.
func topKeys(obj []byte) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// FuzzStrictFields: StrictFields takes only what Fields takes, with the
// same values, when encoding/json finds each key once and among those
// asked for; it refuses what Fields takes only for a key outside them, a
// repeated key or an escape.
func FuzzStrictFields(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[2]}`, `{"a":1,"a":2}`, `{"\u0061":1}`, `{"é":{"a":1}}`, `{"A":1}`, `{"b":"\"a\":"}`} {
		f.Add([]byte(s), "é")
	}
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		asked := []string{"a", "b", key}
		got, err := StrictFields(obj, asked...)
		loose, lerr := Fields(obj, asked...)
		if lerr != nil {
			if err == nil {
				t.Fatalf("StrictFields took %q, Fields refused it: %v", obj, lerr)
			}
			return
		}
		if err == nil {
			for i := range asked {
				if !bytes.Equal(got[i], loose[i]) {
					t.Fatalf("StrictFields(%q)[%d] = %q, Fields %q", obj, i, got[i], loose[i])
				}
			}
		}
		if !utf8.Valid(obj) || !utf8.ValidString(key) {
			return // decoders differ on such bytes: the caller refuses them
		}
		keys, kerr := topKeys(obj)
		if kerr != nil {
			t.Fatalf("Fields took %q, encoding/json reads no object: %v", obj, kerr)
		}
		distinct := len(slices.Compact(slices.Sorted(slices.Values(keys)))) == len(keys)
		known := !slices.ContainsFunc(keys, func(k string) bool { return !slices.Contains(asked, k) })
		switch {
		case err == nil && !(distinct && known):
			t.Fatalf("StrictFields took %q: keys %q, asked %q", obj, keys, asked)
		case err != nil && distinct && known && bytes.IndexByte(obj, '\\') < 0:
			t.Fatalf("StrictFields refused %q (%v): keys %q", obj, err, keys)
		}
	})
}

func TestDeeperThan(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  bool
	}{
		{`{}`, 1, false},
		{`{}`, 0, true},
		{`1`, 0, false},
		{`"[[["`, 0, false},
		{`[[]]`, 1, true},
		{`[[],[],{}]`, 2, false},
		{`{"a":"]]]","b":[[1]]}`, 3, false},
		{`{"a":"]]]","b":[[1]]}`, 2, true},
		{`{"a":"\"[[","b":"\\"}`, 1, false},
	} {
		if got := DeeperThan([]byte(tc.in), tc.limit); got != tc.want {
			t.Errorf("DeeperThan(%s, %d) = %v, want %v", tc.in, tc.limit, got, tc.want)
		}
	}
}

// depthRef is how deep encoding/json finds the valid JSON b nesting.
func depthRef(b []byte) int {
	d := json.NewDecoder(bytes.NewReader(b))
	depth, deepest := 0, 0
	for {
		tok, err := d.Token()
		if err != nil {
			return deepest // io.EOF: b is valid
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// FuzzDeeperThan: on valid JSON DeeperThan says what encoding/json's
// tokens say; on anything else it returns.
func FuzzDeeperThan(f *testing.F) {
	for _, s := range []string{`{"a":[[1]],"b":"]\"["}`, `[[[[]]]]`, `"{"`, `{"a":"\u005b"}`} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, b []byte, limit uint8) {
		got := DeeperThan(b, int(limit))
		if !json.Valid(b) {
			return
		}
		if want := depthRef(b) > int(limit); got != want {
			t.Fatalf("DeeperThan(%q, %d) = %v, encoding/json says %v", b, limit, got, want)
		}
	})
}
