package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestWorkspaceQuestionsGoToNeededServers: a workspace symbol query and a
// whole-workspace diagnostics report start the servers the workspace
// needs and no other (two fake servers: "major" with 20 files, "stray"
// with one, 5%), configuration overriding the survey either way; the
// report names the files it left out.
func TestWorkspaceQuestionsGoToNeededServers(t *testing.T) {
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(script, fakelsp.Script{}))
	for _, tt := range []struct {
		name          string
		major, stray  string // their Needed
		started       []string
		notChecked    string // in the report's acp-lsp verdict, "" for none
		symbolFailure string // the workspace symbol error, when no server is needed
	}{
		{"by the survey", "", "", []string{"major"}, "not checked: 1 file of stray", ""},
		{"stray configured needed", "", lsp.NeededYes, []string{"major", "stray"}, "", ""},
		{"major configured not needed", lsp.NeededNo, lsp.NeededAuto, nil, "not checked: 20 files of major, 1 file of stray",
			"no language server is needed for the workspace-wide questions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			for i := range 20 {
				must(t, os.WriteFile(filepath.Join(ws, fmt.Sprintf("m%02d.mj", i)), []byte("fine\n"), 0o644))
			}
			must(t, os.WriteFile(filepath.Join(ws, "s.st"), []byte("fine\n"), 0o644))
			record := filepath.Join(dir, tt.name)
			servers := []lsp.ServerConfig{
				{Name: "major", Command: bin, Args: fakelsp.Args(script, record+".major"), Extensions: []string{"mj"}, Needed: tt.major},
				{Name: "stray", Command: bin, Args: fakelsp.Args(script, record+".stray"), Extensions: []string{"st"}, Needed: tt.stray},
			}
			tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
			tc.initialize(t, "", "")
			tc.newSession(t, ws)
			started := func(when string) {
				t.Helper()
				var got []string
				for _, s := range tc.adapter.Manager().Servers() {
					if s.PID > 0 {
						got = append(got, s.Name)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tt.started) {
					t.Errorf("%s started %v, want %v", when, got, tt.started)
				}
			}
			m := tc.call(t, 1, "_lsp/request", `{"method":"workspace/symbol","params":{"query":"x"}}`, nil)
			if tt.symbolFailure != "" && (m.Error == nil || !strings.Contains(m.Error.Message, tt.symbolFailure)) {
				t.Errorf("workspace symbol: %s", m.Raw)
			}
			started("a workspace symbol query")
			m = tc.call(t, 2, "_lsp/diagnosticReport", `{"wait":60000}`, nil)
			if m.Error != nil || strings.Contains(string(m.Result), "not checked") != (tt.notChecked != "") || !strings.Contains(string(m.Result), tt.notChecked) {
				t.Errorf("report: %.600s", m.Raw)
			}
			started("a whole-workspace report")
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
			proctest.NoLeftovers(t, bin, 5*time.Second)
		})
	}
}
