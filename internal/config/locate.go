package config

import "strings"

// locate finds the line (1-based) where the key path is defined in TOML
// source text, or where its nearest enclosing table or key is, because
// BurntSushi/toml reports no position for undecoded keys or for values it
// decoded without error. It understands [table] and [[array]] headers,
// dotted and quoted keys, and skips multi-line strings; a key inside an
// inline table resolves to the line of the inline table's key. 0 means not
// found.
func locate(src string, path []string) int {
	var header []string
	bestLine, bestLen := 0, -1
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
			end := closingBracket(inner)
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
			eq := keyEnd(t)
			if eq < 0 {
				continue
			}
			k, ok := splitKey(t[:eq])
			if !ok {
				continue
			}
			full = append(append([]string(nil), header...), k...)
			rest := t[eq+1:]
			for _, d := range []string{`"""`, `'''`} {
				if strings.Count(rest, d)%2 == 1 {
					inMulti = d
				}
			}
		}
		n := matchLen(full, path)
		if n > bestLen && (n == len(full) || n == len(path)) {
			bestLine, bestLen = i+1, n
			if n == len(path) && n == len(full) {
				return bestLine
			}
		}
	}
	if bestLen <= 0 {
		return 0
	}
	return bestLine
}

func matchLen(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// closingBracket finds the ']' that ends a table header, outside quotes.
func closingBracket(s string) int {
	q := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '"' || c == '\'':
			q = c
		case c == ']':
			return i
		}
	}
	return -1
}

// keyEnd finds the '=' that ends a key, outside quotes.
func keyEnd(s string) int {
	q := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '"' || c == '\'':
			q = c
		case c == '=':
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
