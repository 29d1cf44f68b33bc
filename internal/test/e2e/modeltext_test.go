package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
)

// TestModelReadsTheText: what the model behind a real agent receives from
// the lsp tool is the tool's text, once, byte for byte, and not JSON: for a
// small answer (diagnostics of one file) and a large one (a page of 50 of
// 123 references in 42 files, with their source lines and the note to page
// on). The tool's text is what acp-lsp's scripted agent, an MCP client,
// reads as the result's text content; opencode's fake model records the
// tool messages it is sent. Agents that find structuredContent beside the
// text give the model that JSON instead, or both (docs/tool.md, Output);
// the component's TestResultIsTheText checks that the raw result carries
// none.
func TestModelReadsTheText(t *testing.T) {
	dir := workspace(t)
	// 40 files each calling Add three times: with calc.go's declaration
	// and use and broken.go's, 123 references.
	for i := range 40 {
		text := fmt.Sprintf("package calc\n\n// Use%02d adds n to three numbers.\nfunc Use%02d(n int) int {\n\ttotal := Add(n, 1) + Add(n, 2) + Add(n, 3) // n+1, n+2 and n+3, summed into total\n\treturn total\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("use%02d.go", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []step{
		{"small: diagnostics", `{"action":"diagnostics","file":"broken.go"}`,
			[]string{"broken.go:5:17", wantDiagnostic, "gopls: fresh"}},
		{"large: references", `{"action":"references","file":"calc.go","line":4,"symbol":"Add"}`,
			[]string{"references: 123 (showing 1-50)", "use00.go:5:11", "    total := Add(n, 1)", "note: more results: call again with offset=50"}},
	}

	// The tool's text, as an MCP client reads it.
	env := peerrun.NewEnv(t)
	writeUserConfig(t, env)
	d := startDirect(t, env, dir)
	var texts []string
	for _, s := range steps {
		out := d.turn("lsp " + s.args)
		texts = append(texts, strings.TrimSuffix(out, "\n")) // the agent ends each report with a newline
	}
	d.stop()
	checkNoLeftovers(t, env)
	checkAnswers(t, steps, texts)

	// What opencode's model receives for the same calls.
	received, _, ocEnv := runOpencode(t, fronts[0], dir, steps)
	checkNoLeftovers(t, ocEnv)
	if len(received) != len(steps) {
		t.Fatalf("the model received %d tool results, want %d:\n%s", len(received), len(steps), strings.Join(received, "\n---\n"))
	}
	for i, s := range steps {
		got, text := received[i], texts[i]
		t.Logf("%s: the model received %d bytes; the tool's text is %d", s.name, len(got), len(text))
		if json.Valid([]byte(strings.TrimSpace(got))) {
			t.Errorf("%s: the model received JSON:\n%s", s.name, got)
		}
		header, _, _ := strings.Cut(text, "\n")
		if n := strings.Count(got, header); n != 1 {
			t.Errorf("%s: the model received the answer's first line %q %d times, want once:\n%s", s.name, header, n, got)
		}
		if got != text {
			t.Errorf("%s: the model received\n%s\nwant the tool's text\n%s", s.name, got, text)
		}
	}
}
