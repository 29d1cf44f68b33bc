package config

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Error is one problem in a configuration source: a file (with the line of
// the offending key when known), an environment variable or a flag.
type Error struct {
	// Where names the source: a file path, "ACP_LSP_X" or "-flag".
	Where string
	// Line is the 1-based line in the file, 0 when not a file or unknown.
	Line int
	// Key is the dotted key, empty for syntax errors.
	Key string
	// Message says what is wrong.
	Message string
}

// Error formats the problem as "where:line: message".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Where, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Where, e.Message)
}

// layer decodes one source onto a Config, recording where each value came
// from and every problem found.
type layer struct {
	where   string // display name of the source
	src     string // file text, for locating keys
	index   *keyIndex
	kind    SourceKind
	trusted bool // false: keys without safe:"true" are validated, not applied
	errs    []*Error
	skipped []string
	sources map[string]Source
}

func (l *layer) fail(path []string, format string, args ...any) {
	key := strings.Join(path, ".")
	line := l.line(path)
	l.errs = append(l.errs, &Error{Where: l.where, Line: line, Key: key, Message: fmt.Sprintf(format, args...)})
}

func (l *layer) record(path []string) {
	key := strings.Join(path, ".")
	l.sources[key] = Source{Kind: l.kind, Where: l.where, Line: l.line(path)}
}

// line finds path in the layer's file, indexing it on first use.
func (l *layer) line(path []string) int {
	if l.src == "" {
		return 0
	}
	if l.index == nil {
		l.index = indexKeys(l.src)
	}
	return l.index.find(path)
}

// fieldsOf maps TOML keys to the struct fields of t.
func fieldsOf(t reflect.Type) map[string]reflect.StructField {
	m := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if tag := f.Tag.Get("toml"); tag != "" {
			m[tag] = f
		}
	}
	return m
}

// decodeTable decodes raw onto the struct rv. apply is false when values are
// only validated (an untrusted file's unsafe keys).
func (l *layer) decodeTable(raw map[string]any, rv reflect.Value, path []string, apply bool) {
	fields := fieldsOf(rv.Type())
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		p := append(slices.Clip(path), k)
		f, ok := fields[k]
		if !ok {
			msg := fmt.Sprintf("unknown key %q", strings.Join(p, "."))
			if s := suggest(k, slices.Collect(maps.Keys(fields))); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			l.fail(p, "%s", msg)
			continue
		}
		l.decodeField(raw[k], rv.FieldByIndex(f.Index), f, p, apply)
	}
}

func (l *layer) decodeField(raw any, fv reflect.Value, f reflect.StructField, path []string, apply bool) {
	key := strings.Join(path, ".")
	isServers := fv.Type() == reflect.TypeFor[map[string]Server]()
	if apply && !l.trusted && f.Tag.Get("safe") != "true" && !isStruct(fv.Type()) {
		apply = false
		if t, ok := raw.(map[string]any); ok && isServers {
			for name := range t {
				l.skipped = append(l.skipped, key+"."+name)
			}
		} else {
			l.skipped = append(l.skipped, key)
		}
	}
	switch {
	case isStruct(fv.Type()):
		t, ok := raw.(map[string]any)
		if !ok {
			l.fail(path, "%s: expected a table, got %s", key, describe(raw))
			return
		}
		target := fv
		if !apply {
			target = reflect.New(fv.Type()).Elem()
		}
		l.decodeTable(t, target, path, apply)
	case isServers:
		t, ok := raw.(map[string]any)
		if !ok {
			l.fail(path, "%s: expected a table of servers, got %s", key, describe(raw))
			return
		}
		for _, name := range slices.Sorted(maps.Keys(t)) {
			p := append(slices.Clip(path), name)
			st, ok := t[name].(map[string]any)
			if !ok {
				l.fail(p, "%s: expected a table, got %s", strings.Join(p, "."), describe(t[name]))
				continue
			}
			if apply {
				l.record(p)
			}
			var s Server
			if apply && !fv.IsNil() {
				s = cloneServer(fv.MapIndex(reflect.ValueOf(name)))
			}
			l.decodeTable(st, reflect.ValueOf(&s).Elem(), p, apply)
			if apply {
				if fv.IsNil() {
					fv.Set(reflect.MakeMap(fv.Type()))
				}
				fv.SetMapIndex(reflect.ValueOf(name), reflect.ValueOf(s))
			}
		}
	default:
		v, ok := l.convert(raw, f, path)
		if ok && apply {
			fv.Set(v)
			l.record(path)
		}
	}
}

func isStruct(t reflect.Type) bool { return t.Kind() == reflect.Struct }

func cloneServer(v reflect.Value) Server {
	if !v.IsValid() {
		return Server{}
	}
	return v.Interface().(Server)
}

var durationType = reflect.TypeFor[time.Duration]()

// convert checks a decoded TOML value against the field's type and tags.
func (l *layer) convert(raw any, f reflect.StructField, path []string) (reflect.Value, bool) {
	key := strings.Join(path, ".")
	t := f.Type
	switch {
	case t == durationType:
		s, ok := raw.(string)
		if !ok {
			l.fail(path, "%s: expected a duration string like \"10s\", got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		d, msg := parseDuration(s)
		if msg == "" {
			msg = checkDuration(f, d)
		}
		if msg != "" {
			l.fail(path, "%s: %s", key, msg)
			return reflect.Value{}, false
		}
		return reflect.ValueOf(d), true
	case t.Kind() == reflect.String:
		s, ok := raw.(string)
		if !ok {
			l.fail(path, "%s: expected a string, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		if msg := checkEnum(f, s); msg != "" {
			l.fail(path, "%s: %s", key, msg)
			return reflect.Value{}, false
		}
		return reflect.ValueOf(s), true
	case t.Kind() == reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			l.fail(path, "%s: expected true or false, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		return reflect.ValueOf(b), true
	case t.Kind() == reflect.Int:
		n, ok := raw.(int64)
		if !ok {
			l.fail(path, "%s: expected an integer, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		if msg := checkInt(f, n); msg != "" {
			l.fail(path, "%s: %s", key, msg)
			return reflect.Value{}, false
		}
		return reflect.ValueOf(int(n)), true
	case t == reflect.TypeFor[[]string]():
		arr, ok := raw.([]any)
		if !ok {
			l.fail(path, "%s: expected an array of strings, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		out := make([]string, 0, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				l.fail(path, "%s[%d]: expected a string, got %s", key, i, describe(e))
				return reflect.Value{}, false
			}
			out = append(out, s)
		}
		if f.Tag.Get("min") == "1" && len(out) == 0 {
			l.fail(path, "%s: must not be empty", key)
			return reflect.Value{}, false
		}
		return reflect.ValueOf(out), true
	case t == reflect.TypeFor[map[string]string]():
		m, ok := raw.(map[string]any)
		if !ok {
			l.fail(path, "%s: expected a table of strings, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		out := make(map[string]string, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				l.fail(append(slices.Clip(path), k), "%s.%s: expected a string, got %s", key, k, describe(e))
				return reflect.Value{}, false
			}
			out[k] = s
		}
		return reflect.ValueOf(out), true
	case t == reflect.TypeFor[map[string]any]():
		m, ok := raw.(map[string]any)
		if !ok {
			l.fail(path, "%s: expected a table, got %s", key, describe(raw))
			return reflect.Value{}, false
		}
		return reflect.ValueOf(m), true
	}
	l.fail(path, "%s: unsupported option type %s", key, t)
	return reflect.Value{}, false
}

// parseDuration parses a Go duration string, returning a message on error.
func parseDuration(s string) (time.Duration, string) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Sprintf("invalid duration %q (write a number and a unit, like \"500ms\", \"10s\" or \"2m\")", s)
	}
	if d < 0 {
		return 0, fmt.Sprintf("duration %q must not be negative", s)
	}
	return d, ""
}

// checkDuration checks d against the field's min ("1": positive) and max
// (a duration) tags.
func checkDuration(f reflect.StructField, d time.Duration) string {
	if f.Tag.Get("min") == "1" && d <= 0 {
		return fmt.Sprintf("duration must be positive, got %q", d.String())
	}
	if m := f.Tag.Get("max"); m != "" {
		hi, _ := time.ParseDuration(m)
		if d > hi {
			return fmt.Sprintf("must be at most %q, got %q", FormatDuration(hi), FormatDuration(d))
		}
	}
	return ""
}

// checkInt checks n against the field's min and max tags.
func checkInt(f reflect.StructField, n int64) string {
	if n > math.MaxInt32 {
		return fmt.Sprintf("%d is too large", n)
	}
	if m := f.Tag.Get("min"); m != "" {
		lo, _ := strconv.ParseInt(m, 10, 64)
		if n < lo {
			return fmt.Sprintf("must be at least %d, got %d", lo, n)
		}
	}
	if m := f.Tag.Get("max"); m != "" {
		hi, _ := strconv.ParseInt(m, 10, 64)
		if n > hi {
			return fmt.Sprintf("must be at most %d, got %d", hi, n)
		}
	}
	return ""
}

func checkEnum(f reflect.StructField, s string) string {
	e := f.Tag.Get("enum")
	if e == "" {
		return ""
	}
	allowed := strings.Split(e, ",")
	if slices.Contains(allowed, s) {
		return ""
	}
	return fmt.Sprintf("invalid value %q (one of %s)", s, strings.Join(allowed, ", "))
}

// describe names a decoded TOML value's type for messages, with the value
// when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:37] + "..."
		}
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return "a date or time"
}

// suggest returns the candidate closest to k when it is close enough to be
// a likely typo.
func suggest(k string, candidates []string) string {
	sort.Strings(candidates)
	best, bestD := "", 3
	if len(k) <= 4 {
		bestD = 2
	}
	for _, c := range candidates {
		if d := editDistance(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
