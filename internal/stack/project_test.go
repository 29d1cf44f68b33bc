package stack

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/proxy"
)

func TestProjectCheckWarnsOncePerForeignProjectFile(t *testing.T) {
	root := t.TempDir()
	started := filepath.Join(root, "started")
	other := filepath.Join(root, "other")
	bare := filepath.Join(root, "bare")
	for _, d := range []string{started, other, bare} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{started, other} {
		if err := os.WriteFile(filepath.Join(d, config.ProjectFileName), []byte("[tool]\npage_size = 5\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(started, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		method string
		cwd    string
		warn   bool
	}{
		{"the folder acp-lsp started in", "session/new", started, false},
		{"the same folder through a symlink", "session/new", link, false},
		{"a folder without a project file", "session/new", bare, false},
		{"another project", "session/new", other, true},
		{"another project again: warned already", "session/load", other, false},
	}
	var logs bytes.Buffer
	p := &projectCheck{workspace: started, log: slog.New(slog.NewTextHandler(&logs, nil)), warned: map[string]bool{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			params, _ := json.Marshal(map[string]any{"cwd": tt.cwd, "mcpServers": []any{}})
			m := proxy.NewRequest(json.RawMessage(`1`), tt.method, params)
			p.check(m)
			warned := strings.Contains(logs.String(), "is not applied")
			if warned != tt.warn {
				t.Errorf("warned %v, want %v; log: %s", warned, tt.warn, logs.String())
			}
			if warned && !strings.Contains(logs.String(), filepath.Join(other, config.ProjectFileName)) {
				t.Errorf("warning does not name the file: %s", logs.String())
			}
		})
	}
}
