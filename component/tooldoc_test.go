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

// toolSearches are what a model looking for the tool types into a client
// that hides MCP tools behind a search (Claude Code's tool search). Every
// term of a search must match for the tool to rank on all of it; args
// marks the searches whose terms the input schema's descriptions carry
// too (the actions, and the errors diagnostics report).
var toolSearches = []struct {
	query string
	args  bool
}{
	{"definition", true}, {"references", true}, {"type errors", true},
	{"diagnostics", true}, {"rename", true}, {"hover", true},
	{"symbols", true}, {"call hierarchy", true}, {"implementation", true},
	{"go to definition", false}, {"find references", false},
	{"compile errors", false}, {"callers", false}, {"language server", false},
}

// TestToolDescriptionKeywords: the words a model searches for find the
// tool. Claude Code's tool search scores a deferred MCP tool by its name's
// parts and by each query term matched at word boundaries in its
// description (not in its input schema), so every term is a whole word of
// the description; searches that index the arguments too (BM25 over name,
// description and arguments, splitting at non-alphanumerics, so
// call_hierarchy is "call hierarchy") find the actions' terms in the
// schema's descriptions as well. The description goes with every request
// the agent makes, so it stays within the size it had before the keywords
// were added.
func TestToolDescriptionKeywords(t *testing.T) {
	const maxDescription = 1055 // bytes, before issue 22
	if len(toolDescription) > maxDescription {
		t.Errorf("the description is %d bytes, more than %d", len(toolDescription), maxDescription)
	}
	schema, err := inputSchema()
	if err != nil {
		t.Fatal(err)
	}
	var args strings.Builder
	for _, p := range schema.Properties {
		args.WriteString(p.Description + "\n")
	}
	inArgs := map[string]bool{}
	for _, w := range regexp.MustCompile(`[a-z0-9]+`).FindAllString(strings.ToLower(args.String()), -1) {
		inArgs[w] = true
	}
	for _, s := range toolSearches {
		for term := range strings.FieldsSeq(s.query) {
			if !regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(term) + `\b`).MatchString(toolDescription) {
				t.Errorf("search %q: %q is not a word of the tool's description", s.query, term)
			}
			if s.args && !inArgs[term] {
				t.Errorf("search %q: %q is not a word of the input schema's descriptions", s.query, term)
			}
		}
	}
}
