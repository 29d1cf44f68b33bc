package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSafeKeysBounded: every key an untrusted project file may set (the
// safe ones) that is not a switch has a largest value, and no source can
// go past it: a project file nobody trusted, the user file or the
// environment get an error naming the file and line, or the variable, and
// the key; the largest value itself applies.
func TestSafeKeysBounded(t *testing.T) {
	for _, l := range leaves() {
		if l.field.Tag.Get("safe") != "true" || l.field.Type.Kind() == reflect.Bool {
			continue
		}
		t.Run(l.key, func(t *testing.T) {
			hi, over := maxAndOver(t, l)
			section, key, _ := strings.Cut(l.key, ".")
			file := func(v string) string { return fmt.Sprintf("# bounds\n[%s]\n%s = %s\n", section, key, v) }
			for _, tt := range []struct {
				source, value string
				want          string // in the error; "" to load
			}{
				{"project", hi, ""},
				{"project", over, "PROJECT:3: " + l.key + ": "},
				{"user", over, "~/.config/acp-lsp/config.toml:3: " + l.key + ": "},
				{"env", strings.Trim(over, `"`), EnvName(l.key) + ": " + l.key + ": "},
			} {
				f := newFixture(t, "", "")
				switch tt.source {
				case "project":
					f.write(t, filepath.Join(f.workspace, ProjectFileName), file(tt.value))
				case "user":
					f.write(t, filepath.Join(f.home, ".config", "acp-lsp", "config.toml"), file(tt.value))
				case "env":
					f.env[EnvName(l.key)] = tt.value
				}
				loaded, err := f.load(t)
				want := strings.ReplaceAll(tt.want, "PROJECT", filepath.Join(f.workspace, ProjectFileName))
				switch {
				case want == "" && err != nil:
					t.Errorf("%s %s = %s: %v", tt.source, l.key, tt.value, err)
				case want == "":
					if got := formatValue(reflect.ValueOf(loaded.Config).FieldByIndex(l.index).Interface()); got != tt.value {
						t.Errorf("%s %s = %s: got %s", tt.source, l.key, tt.value, got)
					}
				case err == nil:
					t.Errorf("%s %s = %s loaded, want an error", tt.source, l.key, tt.value)
				case !strings.Contains(err.Error(), want+"must be at most "+hi):
					t.Errorf("%s %s = %s: error does not say %q:\n%v", tt.source, l.key, tt.value, want+"must be at most "+hi, err)
				}
			}
		})
	}
}

// maxAndOver returns the largest value of the key as TOML, and one just
// over it. A key with no largest value is an error, and gets an absurd
// value to show that it loads.
func maxAndOver(t *testing.T, l leaf) (hi, over string) {
	m := l.field.Tag.Get("max")
	if l.field.Type == durationType {
		if m == "" {
			t.Errorf("%s has no max tag", l.key)
			return `"5s"`, `"876000h"`
		}
		d, err := time.ParseDuration(m)
		if err != nil {
			t.Fatal(err)
		}
		return formatValue(d), formatValue(d + time.Millisecond)
	}
	if m == "" {
		t.Errorf("%s has no max tag", l.key)
		return "1000", "2000000000"
	}
	n, err := strconv.Atoi(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, strconv.Itoa(n + 1)
}

// TestHostileValues: the values of issue 18 in a project file nobody
// trusted stop the load with an error naming the file, line and key.
func TestHostileValues(t *testing.T) {
	for _, tt := range []struct{ project, want string }{
		{"[diagnostics]\nwait_budget = \"876000h\"\n", `:2: diagnostics.wait_budget: must be at most "5m", got "876000h"`},
		{"[tool]\noutput_budget = 2000000000\n", ":2: tool.output_budget: must be at most 200000, got 2000000000"},
		{"[tool]\noutput_budget = 2e9\n", ":2: tool.output_budget: expected an integer, got float 2e+09"},
	} {
		f := newFixture(t, "", tt.project)
		_, err := f.load(t)
		if want := filepath.Join(f.workspace, ProjectFileName) + tt.want; err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", tt.project, err, want)
		}
	}
}
