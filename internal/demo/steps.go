package demo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/scriptagent"
	"github.com/acp-lsp/acp-lsp/lsp"
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

// maxLanguages bounds the languages WorkspaceSteps looks at, and maxWalk
// the files it reads names of, so that a huge tree answers quickly.
const (
	maxLanguages = 3
	maxWalk      = 20000
)

// skipDir reports folders no project's sources live in.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "target", "dist", "build", "__pycache__", "venv":
		return true
	}
	return strings.HasPrefix(name, ".") && name != "."
}

// WorkspaceSteps are the steps over a workspace given with -workspace and
// no script: for each of the first few file extensions found that a
// built-in language server handles (each server once, with its most
// common extension; only installed servers, unless none is), the
// diagnostics of every such file and the symbols of the first one; then
// the servers' status.
func WorkspaceSteps(dir string) ([]Step, error) {
	servers := lsp.DefaultServers()
	// Per extension: how many files, the first one, and its server.
	type extInfo struct {
		count         int
		first, server string
		installed     bool
	}
	exts := map[string]*extInfo{}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable folders are skipped, not fatal
		}
		if d.IsDir() {
			if p != dir && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxWalk {
			return filepath.SkipAll
		}
		ext := strings.TrimPrefix(filepath.Ext(p), ".")
		if ext == "" {
			return nil
		}
		if e := exts[ext]; e != nil {
			e.count++
			return nil
		}
		e := &extInfo{count: 1}
		exts[ext] = e
		// The server that would serve it: the first installed one in
		// priority order, else the first (whose step then says how to
		// install it).
		for _, srv := range lsp.ServersFor(servers, p) {
			if !slices.Contains(srv.Extensions, ext) {
				continue
			}
			_, err := lsp.LookPath(srv.Command, nil)
			if e.server == "" || err == nil {
				rel, _ := filepath.Rel(dir, p)
				e.first, e.server, e.installed = filepath.ToSlash(rel), srv.Name, err == nil
			}
			if err == nil {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("workspace steps: %w", err)
	}
	// Each server once, with its most common extension; the servers with
	// the most files first.
	type lang struct {
		ext string
		extInfo
	}
	best := map[string]lang{}
	for ext, e := range exts {
		if e.server == "" {
			continue
		}
		if b, ok := best[e.server]; !ok || e.count > b.count || (e.count == b.count && ext < b.ext) {
			best[e.server] = lang{ext, *e}
		}
	}
	// Languages whose server is installed, when there are any: a demo
	// shows answers; with none installed it shows what to install.
	anyInstalled := false
	for _, l := range best {
		anyInstalled = anyInstalled || l.installed
	}
	var langs []lang
	for _, l := range best {
		if l.installed || !anyInstalled {
			langs = append(langs, l)
		}
	}
	slices.SortFunc(langs, func(a, b lang) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return strings.Compare(a.server, b.server)
	})
	if len(langs) > maxLanguages {
		langs = langs[:maxLanguages]
	}
	if len(langs) == 0 {
		return nil, fmt.Errorf("workspace steps: no file in %s has a built-in language server (run acp-lsp doctor %s, or give -script)", dir, dir)
	}
	var steps []Step
	for _, l := range langs {
		steps = append(steps,
			Step{fmt.Sprintf("diagnostics: every .%s file (%s)", l.ext, l.server), toolLine("action", "diagnostics", "file", "**/*."+l.ext)},
			Step{fmt.Sprintf("symbols: %s", l.first), toolLine("action", "symbols", "file", l.first)},
		)
	}
	steps = append(steps, Step{"status: the language servers acp-lsp started", toolLine("action", "status")})
	return steps, nil
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
