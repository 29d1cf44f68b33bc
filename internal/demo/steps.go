package demo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/scriptagent"
)

// Step is one tool call of the demo: a prompt line the scripted agent runs.
type Step struct {
	// Title says what the step shows.
	Title string
	// Line is the prompt line, `lsp {json arguments}`.
	Line string
}

// toolLine formats a call of the lsp tool as the scripted agent reads it.
// Keys keep the order given, so the printed line reads naturally.
func toolLine(kv ...any) string {
	var b strings.Builder
	b.WriteString("lsp {")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		b.Write(k)
		b.WriteString(":")
		b.Write(v)
	}
	b.WriteString("}")
	return b.String()
}

// SampleSteps returns the demo's steps over the sample workspace:
// diagnostics (the deliberate error), definition, references, hover and a
// rename preview. Line numbers are looked up in the sample itself.
func SampleSteps() ([]Step, error) {
	call, err := sampleLine("main.go", "fmt.Println(Area(small), Area(big))")
	if err != nil {
		return nil, err
	}
	decl, err := sampleLine("shapes.go", "func Area(")
	if err != nil {
		return nil, err
	}
	return []Step{
		{"diagnostics: what is wrong in main.go", toolLine("action", "diagnostics", "file", "main.go")},
		{"definition: where Area, called in main.go, is declared", toolLine("action", "definition", "file", "main.go", "line", call, "symbol", "Area")},
		{"references: every use of Area", toolLine("action", "references", "file", "shapes.go", "line", decl, "symbol", "Area")},
		{"hover: Area's signature and documentation", toolLine("action", "hover", "file", "main.go", "line", call, "symbol", "Area")},
		{"rename preview: Area to CircleArea (nothing is written)", toolLine("action", "rename", "file", "shapes.go", "line", decl, "symbol", "Area", "new_name", "CircleArea")},
	}, nil
}

// WorkspaceSteps are the steps over a workspace given with --workspace and
// no script: the servers' diagnostics for every file, then their status.
func WorkspaceSteps() []Step {
	return []Step{
		{"diagnostics: every file", toolLine("action", "diagnostics", "file", "*")},
		{"status: the language servers acp-lsp runs", toolLine("action", "status")},
	}
}

// ParseScript reads steps from a script: one tool line per step (`lsp
// {json}`), blank lines skipped, a `# comment` line titling the step that
// follows it. Any other line is an error naming its number, so a typo does
// not turn into a step that silently echoes text.
func ParseScript(r io.Reader) ([]Step, error) {
	var steps []Step
	title := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			title = strings.TrimSpace(strings.TrimPrefix(text, "#"))
			continue
		}
		l := scriptagent.ParseLine(text)
		if l.Tool == "" {
			return nil, fmt.Errorf("parse script: line %d: want a tool call like lsp {\"action\":\"hover\",...}, got %q", n, text)
		}
		if title == "" {
			title = actionOf(l.Arguments)
		}
		steps = append(steps, Step{Title: title, Line: text})
		title = ""
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("parse script: no tool calls")
	}
	return steps, nil
}

// actionOf names a step after its action argument.
func actionOf(args json.RawMessage) string {
	var a struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(args, &a) == nil && a.Action != "" {
		return a.Action
	}
	return "tool call"
}
