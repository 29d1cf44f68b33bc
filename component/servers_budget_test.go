package component

import (
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// TestStatusSaysOverBudget: the status action says when a server alone
// exceeds the memory budget, next to its memory, and says nothing of the
// budget otherwise.
func TestStatusSaysOverBudget(t *testing.T) {
	for _, tt := range []struct {
		over bool
		want string
	}{
		{true, "rss=3072MB (alone over the memory budget)"},
		{false, "rss=3072MB"},
	} {
		got := renderServers("status", []lspext.ServerInfo{{Name: "rust-analyzer", Source: "local", State: "ready", PID: 7, RSS: 3 << 30, OverBudget: tt.over}})
		if !strings.Contains(got, tt.want) || (!tt.over && strings.Contains(got, "budget")) {
			t.Errorf("over budget %v: %q, want %q", tt.over, got, tt.want)
		}
	}
}
