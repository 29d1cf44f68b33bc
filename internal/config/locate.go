package config

import "strings"

// keyLine is one key or table header of a file and its line.
type keyLine struct {
	path []string
	line int
}

// keyIndex lists a file's keys in order, so that many lookups scan the
// text only once; exact paths are found by map.
type keyIndex struct {
	keys  []keyLine
	exact map[string]int
}

// find returns the line of path, or of the deepest key or table enclosing
// it, or of the first key under it; 0 when none is.
func (ix *keyIndex) find(path []string) int {
	if line, ok := ix.exact[strings.Join(path, "\x00")]; ok {
		return line
	}
	bestLine, bestLen := 0, 0
	for _, k := range ix.keys {
		n := matchLen(k.path, path)
		if n > bestLen && (n == len(k.path) || n == len(path)) {
			bestLine, bestLen = k.line, n
			if n == len(path) && n == len(k.path) {
				return bestLine
			}
		}
	}
	return bestLine
}

// indexKeys scans TOML source text for keys and table headers, so that
// find can say on which line (1-based) a key path is defined, or where its
// nearest enclosing table or key is: BurntSushi/toml reports no position
// for undecoded keys or for values it decoded without error. It
// understands [table] and [[array]] headers, dotted and quoted keys, and
// skips multi-line strings; a key inside an inline table resolves to the
// line of the inline table's key.
func indexKeys(src string) *keyIndex {
	ix := &keyIndex{exact: map[string]int{}}
	// A byte order mark would hide the first line's table header.
	src = strings.TrimPrefix(src, "\ufeff")
	var header []string
	inMulti := "" // the closing delimiter of a multi-line string being skipped
	for i, line := range strings.Split(src, "\n") {
		if inMulti != "" {
			if strings.Contains(line, inMulti) {
				inMulti = ""
			}
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		var full []string
		if t[0] == '[' {
			inner := strings.TrimPrefix(t, "[")
			inner = strings.TrimPrefix(inner, "[")
			end := unquotedIndex(inner, ']')
			if end < 0 {
				continue
			}
			h, ok := splitKey(inner[:end])
			if !ok {
				continue
			}
			header = h
			full = h
		} else {
			eq := unquotedIndex(t, '=')
			if eq < 0 {
				continue
			}
			k, ok := splitKey(t[:eq])
			if !ok {
				continue
			}
			full = append(append([]string(nil), header...), k...)
			inMulti = openMulti(t[eq+1:])
		}
		ix.keys = append(ix.keys, keyLine{path: full, line: i + 1})
		if j := strings.Join(full, "\x00"); ix.exact[j] == 0 {
			ix.exact[j] = i + 1
		}
	}
	return ix
}

// openMulti returns the delimiter of a multi-line string that the value
// text s leaves open at the end of its line, "" when none. One-line
// strings and a trailing comment are skipped, so that triple quotes inside
// them do not count.
func openMulti(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '#':
			return ""
		case strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`):
			d := s[i : i+3]
			end := strings.Index(s[i+3:], d)
			if end < 0 {
				return d
			}
			i += 3 + end + 2
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return ""
			}
			i += 1 + end
		}
	}
	return ""
}

func matchLen(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// unquotedIndex finds the first c outside TOML quotes: the ']' that ends
// a table header, the '=' that ends a key.
func unquotedIndex(s string, c byte) int {
	q := byte(0)
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case q != 0:
			if b == q {
				q = 0
			} else if b == '\\' && q == '"' {
				i++
			}
		case b == '"' || b == '\'':
			q = b
		case b == c:
			return i
		}
	}
	return -1
}

// splitKey splits a dotted TOML key, unquoting quoted parts (escapes are
// kept literally, which only affects keys nobody writes).
func splitKey(s string) ([]string, bool) {
	var parts []string
	s = strings.TrimSpace(s)
	for s != "" {
		var part string
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, false
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			part, s = strings.TrimSpace(s[:end]), s[end:]
		}
		parts = append(parts, part)
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if s[0] != '.' {
			return nil, false
		}
		s = strings.TrimSpace(s[1:])
	}
	return parts, len(parts) > 0
}
