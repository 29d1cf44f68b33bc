package proxy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/bits"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		kind   Kind
		id     string
		method string
		params string
		err    bool
	}{
		{in: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"a":[1,2]}}`, kind: KindRequest, id: "0", method: "initialize", params: `{"a":[1,2]}`},
		{in: `{"jsonrpc":"2.0","id":"x\"y","method":"a\u00e9","params":null}`, kind: KindRequest, id: `"x\"y"`, method: "aé", params: "null"},
		{in: `{"id":123456789012345678901234567890,"result":{}}`, kind: KindResponse, id: "123456789012345678901234567890"},
		{in: ` {"method":"session/update","params":{"x":"\n"}} `, kind: KindNotification, method: "session/update", params: `{"x":"\n"}`},
		{in: `{"id":null,"error":{"code":-32700,"message":"x"}}`, kind: KindResponse, id: "null"},
		{in: `{"id":1.5e3,"result":null}`, kind: KindResponse, id: "1.5e3"},
		{in: `{"method":1}`, err: true},
		{in: `{"id":1}`, err: true},
		{in: `[1]`, err: true},
		{in: `{"id":1,"result":{}`, err: true},
		{in: `{"id":1,"result":{}} x`, err: true},
		{in: `{"id":01,"result":1}`, err: true},
		{in: `{"id":1,"result":tru}`, err: true},
		{in: `{"id":1,"result":"a` + "\x01" + `"}`, err: true},
		{in: `{"id":1,"result":[1,]}`, err: true},
		{in: `{"id":1,"result":"\x"}`, err: true},
	}
	for _, tt := range tests {
		m, err := Parse([]byte(tt.in))
		if tt.err {
			if err == nil {
				t.Errorf("Parse(%s): no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.in, err)
			continue
		}
		if m.Kind != tt.kind || string(m.ID) != tt.id || m.Method != tt.method || string(m.Params()) != tt.params {
			t.Errorf("Parse(%s) = kind %v id %s method %q params %s", tt.in, m.Kind, m.ID, m.Method, m.Params())
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":0,"method":"x","params":{}}`, `{"id":"a","result":[1,{"b":null}]}`, `{"method":"a\ud800"}`, `{"id":-0.0e+1,"error":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err == nil || m != nil {
			// Our scanner accepted the syntax: encoding/json must agree.
			if !json.Valid(b) {
				t.Fatalf("Parse accepted invalid JSON %q", b)
			}
		} else if json.Valid(b) {
			var v map[string]any
			if json.Unmarshal(b, &v) == nil {
				if _, ok := v["method"].(string); !ok && v["method"] != nil {
					return
				}
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("unexpected error type %v", err)
				}
			}
		}
		if err == nil {
			// A map, not a struct: encoding/json matches struct fields
			// case-insensitively ("Id" would be the id), JSON-RPC does not.
			var v map[string]json.RawMessage
			if json.Unmarshal(b, &v) == nil {
				var method string
				if json.Unmarshal(v["method"], &method) == nil && method != m.Method {
					t.Fatalf("method %q, encoding/json says %q", m.Method, method)
				}
				if id := v["id"]; id != nil && !bytes.Equal(bytes.TrimSpace(id), m.ID) {
					t.Fatalf("id %s, encoding/json says %s", m.ID, id)
				}
			}
		}
		// A reader's hint, the last method it read, changes nothing.
		var plain Message
		perr := plain.parse(b, "")
		for _, hint := range []string{"x", "ab", "a\ufffd", plain.Method} {
			if strings.Contains(hint, `\`) {
				continue // never a hint (Stream.Read)
			}
			var h Message
			herr := h.parse(b, hint)
			if (herr == nil) != (perr == nil) || h.Method != plain.Method || h.Kind != plain.Kind {
				t.Fatalf("hint %q: method %q kind %v err %v, without it %q %v %v", hint, h.Method, h.Kind, herr, plain.Method, plain.Kind, perr)
			}
		}
	})
}

// TestParseMethodHint: a method is taken as the hint (a method parse
// returned before, without a backslash) only when spelled exactly as it;
// escapes and invalid UTF-8 are still decoded.
func TestParseMethodHint(t *testing.T) {
	for _, tc := range []struct{ raw, hint, want string }{
		{`{"method":"session/update"}`, "session/update", "session/update"},
		{`{"method":"session/update"}`, "session/prompt", "session/update"},
		{`{"method":"a\u0062"}`, "ab", "ab"},
		{`{"method":"ab"}`, "a", "ab"},
		{"{\"method\":\"a\xff\"}", "a\ufffd", "a\ufffd"},
		{`{"method":"a\ufffd"}`, "a\ufffd", "a\ufffd"},
		{`{"method":""}`, "", ""},
	} {
		var m Message
		if err := m.parse([]byte(tc.raw), tc.hint); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if m.Method != tc.want {
			t.Errorf("%s with hint %q: method %q, want %q", tc.raw, tc.hint, m.Method, tc.want)
		}
	}
}

// TestStreamMethodHint: a Stream's reader decodes every method as
// encoding/json does, whatever method came before: one whose name holds a
// backslash is never the hint, as its raw spelling may decode otherwise.
func TestStreamMethodHint(t *testing.T) {
	lines := []string{
		`{"method":"session/update"}`,
		`{"method":"session/update"}`,
		`{"method":"a\\nb"}`, // a, backslash, n, b
		`{"method":"a\nb"}`,  // a, newline, b
		`{"method":"a\u0062"}`,
		`{"method":"ab"}`,
	}
	s := NewStream(strings.NewReader(strings.Join(lines, "\n")+"\n"), io.Discard, StreamOptions{})
	for _, line := range lines {
		var want struct{ Method string }
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		m, err := s.Read()
		if err != nil {
			t.Fatal(err)
		}
		if m.Method != want.Method {
			t.Errorf("%s: method %q, want %q", line, m.Method, want.Method)
		}
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 1000)
	in := "a\r\n\n  \n" + big + "\n" + "b" + "\n" + strings.Repeat("y", 5000) + "\nc\nlast"
	lr := NewLineReader(strings.NewReader(in), 2000)
	want := []string{"a", big, "b", "", "c", "last"}
	for i, w := range want {
		got, err := lr.ReadLine()
		if w == "" {
			if !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("line %d: err %v, want ErrLineTooLong", i, err)
			}
			continue
		}
		if err != nil || string(got) != w {
			t.Fatalf("line %d: %.20q %v, want %.20q", i, got, err, w)
		}
	}
	if _, err := lr.ReadLine(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func TestLineReader64MiB(t *testing.T) {
	line := bytes.Repeat([]byte("z"), 64<<20)
	in := io.MultiReader(bytes.NewReader(line), strings.NewReader("\nok\n"))
	lr := NewLineReader(in, 0)
	got, err := lr.ReadLine()
	if err != nil || len(got) != len(line) {
		t.Fatalf("64 MiB line: %d bytes, %v", len(got), err)
	}
	got, err = lr.ReadLine()
	if err != nil || string(got) != "ok" {
		t.Fatalf("after: %q %v", got, err)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\r\n\nccc"), 2)
	f.Add([]byte(strings.Repeat("x", 100)+"\ny"), 10)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		// Reference: split on \n, trim \r, drop blank lines.
		var want []string
		var tooLong []bool
		segs := strings.Split(string(in), "\n")
		for i, l := range segs {
			raw := len(l)
			if i < len(segs)-1 {
				raw++
			}
			l = strings.TrimRight(l, "\r\n")
			long := raw > max+2 || len(l) > max
			if !long && strings.TrimSpace(l) == "" {
				continue
			}
			want = append(want, l)
			tooLong = append(tooLong, long)
		}
		lr := NewLineReader(&oneByte{in}, max)
		for i := 0; ; i++ {
			got, err := lr.ReadLine()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("got %d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("extra line %q %v", got, err)
			}
			if tooLong[i] {
				if !errors.Is(err, ErrLineTooLong) {
					t.Fatalf("line %d (%d bytes, max %d): %v", i, len(want[i]), max, err)
				}
				continue
			}
			if err != nil || string(got) != want[i] {
				t.Fatalf("line %d: %q %v, want %q", i, got, err, want[i])
			}
		}
	})
}

// oneByte reads a byte at a time, to exercise buffer boundaries.
type oneByte struct{ b []byte }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, io.EOF
	}
	p[0] = o.b[0]
	o.b = o.b[1:]
	return 1, nil
}

// TestSpecial8 checks that special8's lowest mark is the first byte that
// ends a plain run of a string (a quote, a backslash, a control
// character), and that it marks nothing in a word of plain bytes, whatever
// the bytes around: one or two bytes of every value at every position.
func TestSpecial8(t *testing.T) {
	plain := func(c byte) bool { return c != '"' && c != '\\' && c >= 0x20 }
	check := func(w []byte) {
		t.Helper()
		first := -1
		for i, x := range w {
			if !plain(x) {
				first = i
				break
			}
		}
		got := special8(binary.LittleEndian.Uint64(w))
		switch {
		case first < 0 && got != 0:
			t.Fatalf("special8(%q) = %#x, want 0", w, got)
		case first >= 0 && (got == 0 || bits.TrailingZeros64(got) != 8*first+7):
			t.Fatalf("special8(%q) = %#x, want the lowest mark at byte %d", w, got, first)
		}
	}
	edges := []byte{0, 0x01, 0x1f, 0x20, 0x21, '"', '\\', 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xe0, 0xff}
	for _, fill := range []byte{'a', 0x7f, 0x80, 0xff, ' ', '"', '\\', 0, 0x1f} {
		for pos := range 8 {
			for c := range 256 {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(c)
				check(w)
				for pos2 := range 8 {
					for _, c2 := range edges {
						w2 := bytes.Clone(w)
						w2[pos2] = c2
						check(w2)
					}
				}
			}
		}
	}
}

// TestLineReaderLinesIndependent: small lines share a slab, but appending
// to one never changes the next.
func TestLineReaderLinesIndependent(t *testing.T) {
	lr := NewLineReader(strings.NewReader("aaa\nbbb\nccc\n"), 0)
	a, _ := lr.ReadLine()
	b, _ := lr.ReadLine()
	_ = append(a, "XXXX"...)
	c, _ := lr.ReadLine()
	if string(a) != "aaa" || string(b) != "bbb" || string(c) != "ccc" {
		t.Fatalf("lines %q %q %q", a, b, c)
	}
}
