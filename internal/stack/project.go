package stack

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// sessionKeys are the options one session can have of its own: they
// shape that session's tool calls and prompts only. Every other option
// (servers, timeouts, caches, the transport, logging) belongs to the
// process and its shared language servers.
var sessionKeys = []string{
	"tool.allow_mutating", "tool.allow_raw_request", "tool.output_budget", "tool.page_size",
	"tool.structured_content",
	"diagnostics.wait_budget", "diagnostics.inject_context", "diagnostics.include_warnings",
	"diagnostics.injection_budget",
}

// projectSettings gives a session whose folder is not the one acp-lsp
// was started in the settings of that folder's own .acp-lsp.toml, as far
// as one session can have settings of its own (sessionKeys). acp-lsp
// loads its configuration once, for the folder it starts in; without
// this, a session in another project would silently run without its
// project file. What the file sets that cannot apply to one session is
// named in a warning, once per content of the file.
type projectSettings struct {
	workspace string
	reload    func(workspace string) (*config.Loaded, error)
	log       *slog.Logger
	opts      Options

	mu   sync.Mutex
	told map[string]string // project file → the last report logged for it
}

// forSession implements component.Config.ForSession.
func (p *projectSettings) forSession(root string, base component.Config) component.Config {
	if sameDir(root, p.workspace) {
		return base
	}
	file := filepath.Join(root, config.ProjectFileName)
	if _, err := os.Stat(file); err != nil {
		// No file of its own. Inside the start folder (a package of the
		// project) the project's settings are its settings; elsewhere
		// they are another project's, and a trusted file's unsafe keys
		// (raw requests) must not follow a session into a folder nobody
		// trusted: it gets the settings without any project file.
		if within(p.workspace, root) {
			return base
		}
		file = ""
	}
	loaded, err := p.reload(root)
	if err != nil {
		p.once(file, slog.LevelError, "project config of this session's folder does not load, so the session runs with the settings acp-lsp started with", "file", file, "err", err)
		return base
	}
	cc, err := ToolConfig(loaded.Config, p.log, p.opts)
	if err != nil {
		p.once(file, slog.LevelError, "project config of this session's folder does not apply, so the session runs with the settings acp-lsp started with", "file", file, "err", err)
		return base
	}
	out := base.WithSessionSettings(cc)
	if file == "" {
		if _, err := os.Stat(filepath.Join(p.workspace, config.ProjectFileName)); err == nil {
			p.once(filepath.Join(root, config.ProjectFileName), slog.LevelInfo, "this session's folder has no project config of its own, and the one of the folder acp-lsp started in does not apply outside that folder: the session has the settings of the user file, environment and flags", "folder", root, "started_in", p.workspace)
		}
		return out
	}

	var applied, process []string
	for key, src := range loaded.Sources {
		if src.Kind != config.SourceProject {
			continue
		}
		if slices.Contains(sessionKeys, key) {
			applied = append(applied, key)
		} else {
			process = append(process, key)
		}
	}
	slices.Sort(applied)
	slices.Sort(process)
	msg := fmt.Sprintf("project config of this session's folder applies to its sessions (%s)", listOrNone(applied))
	if len(process) > 0 {
		msg += fmt.Sprintf("; its other settings (%s) are not applied: they belong to the whole acp-lsp process, which loaded its configuration for the folder it was started in; start acp-lsp in the session's folder to use them", strings.Join(process, ", "))
	}
	for _, w := range loaded.Warnings {
		msg += "; " + w
	}
	level := slog.LevelInfo
	if len(process) > 0 || len(loaded.Warnings) > 0 {
		level = slog.LevelWarn
	}
	p.once(file, level, msg, "file", file, "loaded_for", p.workspace)
	return out
}

// once logs msg for file unless the last report for file was the same.
func (p *projectSettings) once(file string, level slog.Level, msg string, args ...any) {
	key := msg + fmt.Sprint(args...)
	p.mu.Lock()
	seen := p.told[file] == key
	p.told[file] = key
	p.mu.Unlock()
	if !seen {
		p.log.Log(context.Background(), level, msg, args...)
	}
}

func listOrNone(keys []string) string {
	if len(keys) == 0 {
		return "none of its settings"
	}
	return strings.Join(keys, ", ")
}

// within reports whether dir is base or below it, after resolving
// symlinks (lexically when either cannot be resolved).
func within(base, dir string) bool {
	rb, errB := filepath.EvalSymlinks(base)
	rd, errD := filepath.EvalSymlinks(dir)
	if errB != nil || errD != nil {
		rb, rd = base, dir
	}
	return edit.Within(rb, rd)
}

// sameDir compares two folders after resolving symlinks.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
