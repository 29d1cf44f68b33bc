package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/internal/logging"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// doctorCmd reports which languages a folder holds and whether their
// language servers are installed and answer initialize.
type doctorCmd struct {
	maxFiles int
	timeout  time.Duration
	// agent is an agent's command line to probe (-agent); agentWait how
	// long it may take to open the lsp tool.
	agent     string
	agentWait time.Duration
	// configFile names the user configuration file (-config).
	configFile string
}

func (*doctorCmd) Name() string     { return "doctor" }
func (*doctorCmd) Synopsis() string { return "check the language servers a folder needs" }
func (*doctorCmd) Usage() string {
	return `Usage: acp-lsp doctor [flags] [DIR]

Walks DIR (default: the current folder; .git, node_modules, vendor and other
hidden or dependency folders are skipped, at most -max-files files), lists
the languages found and the servers that handle them, whether each is
installed (path and version) or how to install it, and starts each installed
server once to check that it answers initialize. Then it lists every
registered server, installed (path and version) or not (how to install it).
The registry is the effective configuration's for DIR (built-in servers with
the user's [servers.NAME] tables merged in; see 'acp-lsp config'). Programs
are looked up on PATH.

With -agent "COMMAND ARGS", it also runs that agent behind acp-lsp in DIR,
as an editor would, opens one session (no prompt is sent) and reports
whether the agent opened the lsp tool acp-lsp gave it, and over which
transport: several ACP agents drop the MCP servers of a session. The
command line is split at spaces (no quoting).

Exits 1 when a language found has no installed server, or the agent did
not open the lsp tool within -agent-wait.

Examples:
  acp-lsp doctor ~/src/project
  acp-lsp doctor -agent "opencode acp" ~/src/project
`
}

func (c *doctorCmd) SetFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.maxFiles, "max-files", 20000, "stop walking after this many files")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "bound for each server's initialize probe")
	fs.StringVar(&c.agent, "agent", "", "an ACP agent's `command line` to run behind acp-lsp: does it open the lsp tool?")
	fs.DurationVar(&c.agentWait, "agent-wait", 10*time.Second, "how long the agent may take to open the lsp tool after session/new")
	fs.StringVar(&c.configFile, "config", "", "user configuration `file` (default acp-lsp/config.toml in $XDG_CONFIG_HOME or the platform's config folder)")
}

var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, "__pycache__": true, "target": true, ".venv": true, "venv": true, "dist": true, "build": true}

func (c *doctorCmd) Run(ctx context.Context, io Stdio, args []string) error {
	if len(args) > 1 {
		return UsageErrorf("doctor: at most one folder")
	}
	// Limits that cannot work would report a healthy setup as broken (every
	// probe times out at once) or a folder with code as empty.
	if c.timeout <= 0 {
		return UsageErrorf("doctor: -timeout must be positive")
	}
	if c.maxFiles < 1 {
		return UsageErrorf("doctor: -max-files must be at least 1")
	}
	if c.agent != "" && c.agentWait <= 0 {
		return UsageErrorf("doctor: -agent-wait must be positive")
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return UsageErrorf("doctor: %s is not a folder", dir)
	}
	flags := &config.Flags{}
	if c.configFile != "" {
		flags.SetUserFile(c.configFile)
	}
	loaded, err := flags.Load(dir)
	if err != nil {
		return UsageErrorf("doctor: %w", err)
	}
	for _, w := range loaded.Warnings {
		fmt.Fprintf(io.Err, "acp-lsp doctor: warning: %s\n", w)
	}
	servers, err := loaded.Config.LSPServers(os.Environ())
	if err != nil {
		return UsageErrorf("doctor: %w", err)
	}
	env := loaded.Config.BaseEnv(os.Environ())
	// language → a sample file and a count.
	type lang struct {
		sample string
		files  int
		cands  []lsp.ServerConfig
	}
	langs := map[string]*lang{}
	n := 0
	errStop := errors.New("stop")
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > c.maxFiles {
			return errStop
		}
		cands := lsp.ServersFor(servers, p)
		if len(cands) == 0 {
			return nil
		}
		name := cands[0].Language
		l := langs[name]
		if l == nil {
			l = &lang{sample: p, cands: cands}
			langs[name] = l
		}
		l.files++
		return nil
	})
	names := slices.Sorted(maps.Keys(langs))
	fmt.Fprintf(io.Out, "doctor: %s (%d files looked at)\n", dir, min(n, c.maxFiles))
	watchDirs := -1
	if loaded.Config.Local.Watch {
		watchDirs = loaded.Config.Local.WatchMaxDirs
	}
	if ws := lsp.WatchCoverage(dir, watchDirs); ws.Mode == "off" {
		fmt.Fprintf(io.Out, "file watching: off (local.watch = false)\n")
	} else {
		fmt.Fprintf(io.Out, "file watching: %s over %d folders (limit %d)\n", ws.Mode, ws.Dirs, watchDirs)
		if ws.Note != "" {
			fmt.Fprintf(io.Out, "  note: %s\n", ws.Note)
		}
	}
	found := map[string]string{} // server name → path and version, "" when missing
	lookup := func(s lsp.ServerConfig) (string, bool) {
		if v, ok := found[s.Name]; ok {
			return v, v != ""
		}
		path, err := exec.LookPath(s.Command)
		if err != nil {
			found[s.Name] = ""
			return "", false
		}
		found[s.Name] = strings.TrimSpace(path + " " + serverVersion(ctx, path, s.VersionArgs))
		return found[s.Name], true
	}
	defer func() {
		fmt.Fprintf(io.Out, "\nregistered servers:\n")
		for _, s := range servers {
			if where, ok := lookup(s); ok {
				fmt.Fprintf(io.Out, "  %-28s %s\n", s.Name, where)
			} else {
				fmt.Fprintf(io.Out, "  %-28s not installed (%s); %s\n", s.Name, s.Command, installHint(s))
			}
		}
	}()
	if len(names) == 0 {
		fmt.Fprintln(io.Out, "no file any known language server handles")
	}
	var missing []string
	for _, name := range names {
		l := langs[name]
		fmt.Fprintf(io.Out, "\n%s: %d files\n", name, l.files)
		ok := false
		for _, s := range l.cands {
			where, installed := lookup(s)
			if !installed {
				fmt.Fprintf(io.Out, "  %-28s not installed (%s); %s\n", s.Name, s.Command, installHint(s))
				continue
			}
			fmt.Fprintf(io.Out, "  %-28s %s\n", s.Name, where)
			msg, perr := c.probe(ctx, dir, s, l.sample, env)
			if perr != nil {
				fmt.Fprintf(io.Out, "  %-28s initialize FAILED: %v\n", "", perr)
				continue
			}
			ok = true
			fmt.Fprintf(io.Out, "  %-28s initialize ok: %s\n", "", msg)
		}
		if !ok {
			missing = append(missing, name)
		}
	}
	var failed []error
	if len(missing) > 0 {
		failed = append(failed, fmt.Errorf("no working language server for %s", strings.Join(missing, ", ")))
	}
	if argv := strings.Fields(c.agent); len(argv) > 0 {
		// The chain's own log stays quiet unless it fails: the report
		// says what the probe found.
		log := logging.New(io.Err, logging.Options{Level: slog.LevelError})
		if err := probeAgent(ctx, io.Out, loaded.Config, log, dir, argv, c.agentWait); err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return ExitCode(ExitFailure, errors.Join(failed...))
	}
	return nil
}

// installHint says how to install a server's program on this platform;
// servers added by configuration may come without a hint.
func installHint(s lsp.ServerConfig) string {
	cmd := s.InstallCommand(runtime.GOOS)
	if cmd == "" {
		return "install it and put it on PATH (no install command is known for this server on " + runtime.GOOS + ")"
	}
	return "install: " + cmd
}

// serverVersion runs the version command and returns its first line.
func serverVersion(ctx context.Context, path string, args []string) string {
	if len(args) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if len(line) > 80 {
		line = line[:80] + "…"
	}
	return "(" + line + ")"
}

// probe starts the server for sample and reports what initialize
// negotiated; it opens no document.
func (c *doctorCmd) probe(ctx context.Context, dir string, s lsp.ServerConfig, sample string, env []string) (string, error) {
	s.Priority = 0
	m, err := lsp.NewManager(lsp.Options{Roots: []string{dir}, Servers: []lsp.ServerConfig{s}, Env: env})
	if err != nil {
		return "", err
	}
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	start := time.Now()
	if err := m.Prewarm(ctx, sample); err != nil {
		return "", err
	}
	st := m.Servers()
	if len(st) == 0 {
		return "", errors.New("no server started")
	}
	return fmt.Sprintf("%s, root %s, position encoding %s", time.Since(start).Round(time.Millisecond), st[0].Root, st[0].Encoding), nil
}
