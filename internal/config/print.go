package config

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Format renders the effective configuration as TOML, each value followed by
// a comment saying where it came from, for `acp-lsp config`.
func (l *Loaded) Format() string {
	var b strings.Builder
	rv := reflect.ValueOf(l.Config)
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		tag := f.Tag.Get("toml")
		if tag == "servers" {
			continue
		}
		fmt.Fprintf(&b, "[%s]\n", tag)
		l.formatTable(&b, rv.Field(i), tag)
		b.WriteString("\n")
	}
	names := slices.Sorted(maps.Keys(l.Config.Servers))
	if len(names) == 0 {
		b.WriteString("# [servers.NAME]: none configured; built-in servers apply (see 'acp-lsp doctor')\n")
	}
	for _, n := range names {
		prefix := "servers." + quoteKey(n)
		fmt.Fprintf(&b, "[%s]\n", prefix)
		l.formatTable(&b, reflect.ValueOf(l.Config.Servers[n]), "servers."+n)
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func (l *Loaded) formatTable(b *strings.Builder, rv reflect.Value, key string) {
	rt := rv.Type()
	server := strings.HasPrefix(key, "servers.")
	for i := range rt.NumField() {
		f := rt.Field(i)
		tag := f.Tag.Get("toml")
		fv := rv.Field(i)
		k := key + "." + tag
		if f.Type.Kind() == reflect.Struct {
			var parts []string
			var srcs []string
			for j := range f.Type.NumField() {
				sf := f.Type.Field(j)
				if server && fv.Field(j).IsZero() {
					continue
				}
				st := sf.Tag.Get("toml")
				parts = append(parts, quoteKey(st)+" = "+formatValue(fv.Field(j).Interface()))
				srcs = append(srcs, l.Source(k+"."+st).String())
			}
			if len(parts) > 0 {
				line := fmt.Sprintf("%s = { %s }", tag, strings.Join(parts, ", "))
				fmt.Fprintf(b, "%-44s # %s\n", line, strings.Join(slices.Compact(srcs), ", "))
			}
			continue
		}
		if server && fv.IsZero() {
			continue
		}
		line := quoteKey(tag) + " = " + formatValue(fv.Interface())
		fmt.Fprintf(b, "%-44s # %s\n", line, l.Source(k))
	}
}

func quoteKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return tomlQuote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// formatValue writes v as a TOML value.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlQuote(x)
	case time.Duration:
		return tomlQuote(FormatDuration(x))
	case bool, int, int64:
		return fmt.Sprint(x)
	case float64:
		switch {
		case math.IsNaN(x):
			return "nan"
		case math.IsInf(x, 1):
			return "inf"
		case math.IsInf(x, -1):
			return "-inf"
		}
		f := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(f, ".e") {
			f += ".0" // stays a float when read back
		}
		return f
	case time.Time:
		// BurntSushi/toml marks local date-times by zone name.
		switch x.Location().String() {
		case "datetime-local":
			return x.Format("2006-01-02T15:04:05.999999999")
		case "date-local":
			return x.Format("2006-01-02")
		case "time-local":
			return x.Format("15:04:05.999999999")
		}
		return x.Format(time.RFC3339Nano)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = tomlQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []map[string]any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return formatValue(m)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quoteKey(k) + " = " + formatValue(x[k])
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// FormatDuration writes d the way a person would in a config file: "10m"
// rather than Go's "10m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// tomlQuote writes s as a TOML basic string (Go's %q escapes such as \x00
// are not TOML).
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
