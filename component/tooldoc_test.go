package component

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestToolDocInputs checks that docs/tool.md's Inputs table names every
// argument of the tool and nothing else, and that its Actions section
// names every action the schema lists.
func TestToolDocInputs(t *testing.T) {
	data, err := os.ReadFile("../docs/tool.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	inputs, _, _ := strings.Cut(doc[strings.Index(doc, "## Inputs"):], "\n## Actions")
	documented := map[string]bool{}
	for line := range strings.SplitSeq(inputs, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		names, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for n := range strings.SplitSeq(names, ", ") {
			documented[strings.Trim(n, "`")] = true
		}
	}
	for _, f := range inputFields() {
		if !documented[f] {
			t.Errorf("docs/tool.md: no row for argument %s", f)
		}
		delete(documented, f)
	}
	for f := range documented {
		t.Errorf("docs/tool.md documents %s, which the tool does not take", f)
	}

	field, _ := reflect.TypeFor[Input]().FieldByName("Action")
	actions := regexp.MustCompile(`\b[a-z][a-z_]*\b`).FindAllString(strings.SplitN(field.Tag.Get("jsonschema"), "Read:", 2)[1], -1)
	section, _, _ := strings.Cut(doc[strings.Index(doc, "## Actions"):], "\n## Output")
	for _, a := range actions {
		if a == "asks" || a == "the" || a == "user" || a == "first" || a == "with" || a == "apply" {
			continue
		}
		if !strings.Contains(section, "`"+a+"`") {
			t.Errorf("docs/tool.md: action %s is not in the Actions section", a)
		}
	}
}

// TestToolOffErrorsNameConfigKeys: a call refused by the configuration
// names a key that docs/configuration.md documents, so the user can find
// the switch.
func TestToolOffErrorsNameConfigKeys(t *testing.T) {
	conf, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, cs := setup(t, Config{})
	text, isErr := callTool(t, cs, map[string]any{"action": "request", "method": "textDocument/foldingRange"})
	if !isErr || !strings.Contains(text, "(tool.allow_raw_request)") {
		t.Errorf("request off: %v %s; want the key tool.allow_raw_request named", isErr, text)
	}
	if !strings.Contains(string(conf), "| `allow_raw_request` |") {
		t.Errorf("docs/configuration.md has no row for tool.allow_raw_request")
	}
}
