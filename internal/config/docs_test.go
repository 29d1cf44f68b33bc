package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestDocsCoverEveryOption checks that docs/configuration.md has a row for
// every key, in its section, showing the real default and largest value.
func TestDocsCoverEveryOption(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	section := func(heading string) string {
		i := strings.Index(doc, heading)
		if i < 0 {
			t.Fatalf("docs/configuration.md has no heading %q", heading)
		}
		rest := doc[i+len(heading):]
		if j := strings.Index(rest, "\n## "); j >= 0 {
			rest = rest[:j]
		}
		if j := strings.Index(rest, "\n### "); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	def := reflect.ValueOf(Defaults())
	for _, l := range leaves() {
		sec, tag, _ := strings.Cut(l.key, ".")
		body := section("### `[" + sec + "]`")
		row := ""
		for line := range strings.SplitSeq(body, "\n") {
			if strings.HasPrefix(line, "| `"+tag+"` |") {
				row = line
			}
		}
		if row == "" {
			t.Errorf("docs: no row for %s", l.key)
			continue
		}
		v := def.FieldByIndex(l.index).Interface()
		if list, ok := v.([]string); ok {
			for _, e := range list {
				if !strings.Contains(body, "`"+e+"`") {
					t.Errorf("docs: default of %s lacks %q", l.key, e)
				}
			}
			continue
		}
		if want := "`" + formatValue(v) + "`"; !strings.Contains(row, want) {
			t.Errorf("docs: row of %s does not show default %s: %s", l.key, want, row)
		}
		if m := l.field.Tag.Get("max"); m != "" {
			hi := m
			if d, err := time.ParseDuration(m); err == nil {
				hi = formatValue(d)
			}
			if want := "at most `" + hi + "`"; !strings.Contains(strings.ToLower(row), want) {
				t.Errorf("docs: row of %s does not say %s: %s", l.key, want, row)
			}
		}
		if l.field.Tag.Get("safe") == "true" && sec == "tool" && !strings.Contains(row, "| yes |") {
			t.Errorf("docs: %s is safe but its row does not say so", l.key)
		}
	}
	servers := section("## Servers")
	for tag := range fieldsOf(reflect.TypeFor[Server]()) {
		if !strings.Contains(servers, "| `"+tag+"` |") {
			t.Errorf("docs: no row for servers.NAME.%s", tag)
		}
	}
}

// TestDocsNameFileCap checks that docs/configuration.md states the size cap
// of configuration files that MaxFileBytes sets.
func TestDocsNameFileCap(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("at most %d MiB (`config.MaxFileBytes`)", MaxFileBytes>>20); !strings.Contains(string(data), want) {
		t.Errorf("docs/configuration.md does not say %q", want)
	}
}
