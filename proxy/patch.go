package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// The patch helpers change one field of a JSON object and copy every other
// byte unchanged, so a component can edit a message without re-encoding it
// (which would reorder keys, drop unknown fields or change numbers).

// member is one key/value pair of an object, as byte offsets.
type member struct {
	key        string
	valS, valE int
}

// members lists the members of the object starting at b[start:]; only
// whitespace may follow it up to len(b), so trailing garbage after a value
// is an error rather than bytes silently carried into an edited copy.
func members(b []byte, start int) (ms []member, closeAt int, err error) {
	ms, closeAt, err = objectMembers(b, start)
	if err != nil {
		return nil, 0, err
	}
	s := scanner{b: b, i: closeAt + 1}
	s.ws()
	if s.i != len(b) {
		return nil, 0, s.fail("trailing data after the object")
	}
	return ms, closeAt, nil
}

func objectMembers(b []byte, start int) (ms []member, closeAt int, err error) {
	s := scanner{b: b, i: start}
	s.ws()
	if !s.eat('{') {
		return nil, 0, s.fail("expected a JSON object")
	}
	s.ws()
	if s.eat('}') {
		return nil, s.i - 1, nil
	}
	for {
		s.ws()
		ks := s.i
		if err := s.str(); err != nil {
			return nil, 0, err
		}
		k, err := unquote(b[ks:s.i])
		if err != nil {
			return nil, 0, &ParseError{ks, "bad key"}
		}
		s.ws()
		if !s.eat(':') {
			return nil, 0, s.fail("expected ':'")
		}
		s.ws()
		vs := s.i
		if err := s.value(0); err != nil {
			return nil, 0, err
		}
		ms = append(ms, member{k, vs, s.i})
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return ms, s.i - 1, nil
		}
		return nil, 0, s.fail("expected ',' or '}'")
	}
}

func find(ms []member, key string) (member, bool) {
	// The last duplicate wins, as in encoding/json.
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i], true
		}
	}
	return member{}, false
}

// GetPath returns the raw value at path (object keys from the top) in the
// JSON object obj; ok is false when a key is missing or a value on the way
// is not an object.
func GetPath(obj []byte, path ...string) (value json.RawMessage, ok bool) {
	start, end := 0, len(obj)
	for _, key := range path {
		ms, _, err := members(obj[:end], start)
		if err != nil {
			return nil, false
		}
		m, found := find(ms, key)
		if !found {
			return nil, false
		}
		start, end = m.valS, m.valE
	}
	if len(path) == 0 && checkJSON(obj) != nil {
		return nil, false
	}
	s := scanner{b: obj[:end], i: start}
	s.ws()
	return obj[s.i:end:end], true
}

// Fields returns the raw values of the given top-level keys of the JSON
// object obj, in one scan: out[i] is the value of keys[i], nil when absent
// (the last duplicate wins, as in encoding/json). It fails when obj is not
// one valid JSON object.
func Fields(obj []byte, keys ...string) ([]json.RawMessage, error) {
	return fields(obj, keys, false)
}

// StrictFields is Fields for a reader that must take obj as any JSON
// decoder would, whatever that decoder does with escaped or repeated keys
// (the HTTP fast path answers only what the MCP SDK reads the same way):
// it also fails when a key of obj is not spelled exactly as one of keys
// (an escape in it, another case) or comes twice. Bytes that are not
// UTF-8, which decoders read differently, are the caller's to refuse.
func StrictFields(obj []byte, keys ...string) ([]json.RawMessage, error) {
	return fields(obj, keys, true)
}

// fields is Fields, or StrictFields when strict.
func fields(obj []byte, keys []string, strict bool) ([]json.RawMessage, error) {
	s := scanner{b: obj}
	s.ws()
	if !s.eat('{') {
		return nil, s.fail("expected a JSON object")
	}
	out := make([]json.RawMessage, len(keys))
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			ks := s.i
			if err := s.str(); err != nil {
				return nil, err
			}
			kq := obj[ks+1 : s.i-1]
			s.ws()
			if !s.eat(':') {
				return nil, s.fail("expected ':'")
			}
			s.ws()
			vs := s.i
			if err := s.value(0); err != nil {
				return nil, err
			}
			if strict {
				i := slices.Index(keys, string(kq))
				if i < 0 {
					return nil, &ParseError{ks, "unexpected key"}
				}
				if out[i] != nil {
					return nil, &ParseError{ks, "repeated key"}
				}
				out[i] = obj[vs:s.i:s.i]
			} else {
				for i, k := range keys {
					if keyIs(kq, k) {
						out[i] = obj[vs:s.i:s.i]
					}
				}
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return nil, s.fail("expected ',' or '}'")
		}
	}
	s.ws()
	if s.i != len(obj) {
		return nil, s.fail("trailing data after the object")
	}
	return out, nil
}

// keyIs reports whether the quoted key's contents kq (escapes allowed)
// spell k.
func keyIs(kq []byte, k string) bool {
	if string(kq) == k {
		return true
	}
	if bytes.IndexByte(kq, '\\') < 0 {
		return false
	}
	u, err := unquote(append(append([]byte{'"'}, kq...), '"'))
	return err == nil && u == k
}

// DeeperThan reports whether the valid JSON b nests objects and arrays
// more than limit levels deep (b itself, an object, is one level). A
// decoder stricter about nesting than the scan (maxDepth) refuses such a
// text.
func DeeperThan(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			i, _ = skipStr(b, i) // past the string, brackets in it and all
			continue
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
		i++
	}
	return false
}

// SetPath returns a copy of the JSON object obj with the value at path set
// to value (valid JSON), creating missing objects on the way and replacing a
// null on the way with an object. Every other byte is copied unchanged.
func SetPath(obj []byte, value json.RawMessage, path ...string) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("set path: empty path")
	}
	if err := checkJSON(value); err != nil {
		return nil, fmt.Errorf("set path %v: value: %w", path, err)
	}
	return edit(obj, path, func(old json.RawMessage) (json.RawMessage, error) { return value, nil })
}

// AppendPath returns a copy of the JSON object obj with elem (valid JSON)
// appended to the array at path; a missing or null array becomes [elem].
func AppendPath(obj []byte, elem json.RawMessage, path ...string) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("append path: empty path")
	}
	if err := checkJSON(elem); err != nil {
		return nil, fmt.Errorf("append path %v: element: %w", path, err)
	}
	return edit(obj, path, func(old json.RawMessage) (json.RawMessage, error) {
		if old == nil || string(old) == "null" {
			return append(append([]byte{'['}, elem...), ']'), nil
		}
		if old[0] != '[' {
			return nil, fmt.Errorf("append path %v: value is not an array", path)
		}
		// old is a valid array: find its closing bracket and whether it is empty.
		closeAt := len(old) - 1
		inner := scanner{b: old[:closeAt], i: 1}
		inner.ws()
		out := make([]byte, 0, len(old)+len(elem)+1)
		out = append(out, old[:closeAt]...)
		if inner.i != closeAt {
			out = append(out, ',')
		}
		out = append(out, elem...)
		return append(out, ']'), nil
	})
}

func checkJSON(v []byte) error {
	s := scanner{b: v}
	s.ws()
	if err := s.value(0); err != nil {
		return err
	}
	s.ws()
	if s.i != len(v) {
		return s.fail("trailing data")
	}
	return nil
}

// edit replaces the value at path with f(old); old is nil when missing.
func edit(obj []byte, path []string, f func(old json.RawMessage) (json.RawMessage, error)) ([]byte, error) {
	start := 0
	// spans of replacements: we rebuild only along the path.
	var walk func(start, end int, path []string) (json.RawMessage, error)
	walk = func(start, end int, path []string) (json.RawMessage, error) {
		ms, closeAt, err := members(obj[:end], start)
		if err != nil {
			return nil, fmt.Errorf("edit %v: %w", path, err)
		}
		key := path[0]
		m, found := find(ms, key)
		var repl json.RawMessage
		if len(path) == 1 {
			var old json.RawMessage
			if found {
				old = obj[m.valS:m.valE]
			}
			repl, err = f(old)
		} else if found && obj[m.valS] == '{' {
			repl, err = walk(m.valS, m.valE, path[1:])
		} else if !found || string(obj[m.valS:m.valE]) == "null" {
			repl, err = build(path[1:], f)
		} else {
			return nil, fmt.Errorf("edit: %q is not an object", key)
		}
		if err != nil {
			return nil, err
		}
		s := scanner{b: obj[:end], i: start}
		s.ws()
		objStart := s.i
		out := make([]byte, 0, end-start+len(repl)+len(key)+8)
		if found {
			out = append(out, obj[objStart:m.valS]...)
			out = append(out, repl...)
			out = append(out, obj[m.valE:end]...)
			return out, nil
		}
		out = append(out, obj[objStart:closeAt]...)
		if len(ms) > 0 {
			out = append(out, ',')
		}
		out = appendKey(out, key)
		out = append(out, repl...)
		out = append(out, obj[closeAt:end]...)
		return out, nil
	}
	s := scanner{b: obj}
	s.ws()
	start = s.i
	inner, err := walk(start, len(obj), path)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(obj)+len(inner))
	out = append(out, obj[:start]...)
	return append(out, inner...), nil
}

func build(path []string, f func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	if len(path) == 0 {
		return f(nil)
	}
	inner, err := build(path[1:], f)
	if err != nil {
		return nil, err
	}
	out := appendKey([]byte{'{'}, path[0])
	out = append(out, inner...)
	return append(out, '}'), nil
}

func appendKey(b []byte, key string) []byte {
	if isASCIIPlain(key) {
		b = strconv.AppendQuote(b, key)
	} else {
		q, _ := json.Marshal(key)
		b = append(b, q...)
	}
	return append(b, ':')
}

// WithParams returns a copy of m with params replaced (added when absent).
func (m *Message) WithParams(params json.RawMessage) (*Message, error) {
	return m.withField("params", params)
}

// WithResult returns a copy of the response m with result replaced.
func (m *Message) WithResult(result json.RawMessage) (*Message, error) {
	return m.withField("result", result)
}

// WithMethod returns a copy of the request or notification m with its
// method replaced.
func (m *Message) WithMethod(method string) (*Message, error) {
	return m.withField("method", appendJSONString(nil, method))
}

// WithID returns a copy of m with its id replaced.
func (m *Message) WithID(id json.RawMessage) (*Message, error) {
	return m.withField("id", id)
}

func (m *Message) withField(key string, v json.RawMessage) (*Message, error) {
	raw, err := SetPath(m.Raw, v, key)
	if err != nil {
		return nil, err
	}
	n, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	if m.Kind == KindResponse {
		n.Method = m.Method
	}
	n.req = m.req
	return n, nil
}
