package component_test

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
)

// TestZeroConfigIsTheConfiguredDefault: a zero component.Config (tests,
// the benchmarks, embedders) behaves as acp-lsp does with no
// configuration at all. Each default the component fills in equals the
// configuration's default for the same option; they once differed
// (budget 12000 against 20000, page size 100 against 50), so numbers
// measured on a zero Config were not what users got.
func TestZeroConfigIsTheConfiguredDefault(t *testing.T) {
	got, err := component.Filled(component.Config{})
	if err != nil {
		t.Fatal(err)
	}
	def := config.Defaults()
	for _, tt := range []struct {
		key               string
		component, config any
	}{
		{"tool.output_budget", got.Budget, def.Tool.OutputBudget},
		{"tool.page_size", got.PageSize, def.Tool.PageSize},
		{"tool.structured_content", got.StructuredContent, def.Tool.StructuredContent},
		// diagnostics.wait_budget: a zero wait is sent as "the backend's
		// default"; lsp's TestZeroConfigIsTheConfiguredDefault pins it.
		{"diagnostics.wait_budget (sent as the backend's default)", got.DiagnosticsWait, time.Duration(0)},
		{"diagnostics.cache_files", got.CacheFiles, def.Diagnostics.CacheFiles},
		{"diagnostics.per_file", got.CachePerFile, def.Diagnostics.PerFile},
		{"diagnostics.injection_budget", got.InjectBudget, def.Diagnostics.InjectionBudget},
		{"timeouts.permission", got.PermissionWait, def.Timeouts.Permission},
		{"mcp.connect_warning", got.ConnectWarning, def.MCP.ConnectWarning},
	} {
		t.Run(tt.key, func(t *testing.T) {
			if tt.component != tt.config {
				t.Errorf("zero component.Config gives %v, the configuration's default is %v", tt.component, tt.config)
			}
		})
	}
}

// TestDefaultsAsStated: the tool's schema and docs/tool.md state the
// defaults the code has.
func TestDefaultsAsStated(t *testing.T) {
	doc, err := os.ReadFile("../docs/tool.md")
	if err != nil {
		t.Fatal(err)
	}
	limit, _ := reflect.TypeFor[component.Input]().FieldByName("Limit")
	for _, tt := range []struct {
		where, text, want string
	}{
		{"the schema of limit", limit.Tag.Get("jsonschema"), fmt.Sprintf("(default %d, acp-lsp's tool.page_size)", component.DefaultPageSize)},
		{"docs/tool.md on paging", string(doc), fmt.Sprintf("default limit %d, configuration `tool.page_size`", component.DefaultPageSize)},
		{"docs/tool.md on the budget", string(doc), "(`tool.output_budget`, default " + thousands(component.DefaultBudget)},
	} {
		t.Run(tt.where, func(t *testing.T) {
			if !strings.Contains(tt.text, tt.want) {
				t.Errorf("%s does not say %q", tt.where, tt.want)
			}
		})
	}
}

// thousands writes n with comma thousands separators, as the docs do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
