package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/acp-lsp/acp-lsp/internal/regfile"
)

// ProjectFileName is the project configuration file looked up in the
// workspace root.
const ProjectFileName = ".acp-lsp.toml"

// MaxFileBytes is the largest configuration file, user or project, that
// acp-lsp reads: 1 MiB, far above any real one.
const MaxFileBytes = 1 << 20

// ReadFile reads a user or project configuration file as Load does: only a
// regular file (symlinks followed) of at most MaxFileBytes, so that a name
// pointing at a device, a pipe (acp-lsp's own stdin among them) or a huge
// file is refused without blocking or reading it.
func ReadFile(path string) ([]byte, error) {
	b, _, err := regfile.Read(path, MaxFileBytes)
	return b, err
}

// EnvPrefix starts every environment variable acp-lsp reads.
const EnvPrefix = "ACP_LSP_"

// SourceKind says which layer set a value, lowest precedence first.
type SourceKind int

const (
	// SourceDefault is the built-in default.
	SourceDefault SourceKind = iota
	// SourceUser is the user file.
	SourceUser
	// SourceProject is the workspace's .acp-lsp.toml.
	SourceProject
	// SourceEnv is an ACP_LSP_* environment variable.
	SourceEnv
	// SourceFlag is a command-line flag.
	SourceFlag
)

// Source says where an effective value came from.
type Source struct {
	// Kind is the layer.
	Kind SourceKind
	// Where is the file path, variable name or flag.
	Where string
	// Line is the line in the file, 0 when unknown or not a file.
	Line int
}

// String names the source as `acp-lsp config` shows it: "default",
// "path:line", "env NAME" or "flag -name".
func (s Source) String() string {
	switch s.Kind {
	case SourceDefault:
		return "default"
	case SourceEnv:
		return "env " + s.Where
	case SourceFlag:
		return "flag " + s.Where
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Where, s.Line)
	}
	return s.Where
}

// Override is one value set on the command line; Flag names it in errors
// and in Loaded.Sources.
type Override struct {
	// Flag is the flag as typed, like "-log-level".
	Flag string
	// Key is the dotted option key, like "log.level".
	Key string
	// Value is the text to parse for the key.
	Value string
}

// Options says where Load looks.
type Options struct {
	// UserFile is the user configuration file; empty means
	// UserFilePath(Getenv). A missing file is not an error unless it was
	// named explicitly (ExplicitUserFile).
	UserFile string
	// ExplicitUserFile makes a missing UserFile an error (-config given).
	ExplicitUserFile bool
	// Workspace is the directory holding the project file; empty skips it.
	Workspace string
	// ProjectContent, when not nil, is the project file's content as the
	// caller read it; Load then reads no project file, so what it applies
	// is exactly those bytes ('acp-lsp trust' shows what it validated and
	// recorded, whatever a concurrent writer puts in the file).
	ProjectContent []byte
	// StateDir holds trusted.json; empty means StateDir(Getenv).
	StateDir string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Overrides are command-line values, applied last, in order.
	Overrides []Override
}

// Loaded is the effective configuration and how it was made.
type Loaded struct {
	// Config is the effective configuration.
	Config Config
	// Sources maps each dotted key set by anything but the defaults to
	// where it came from; a missing key is a default.
	Sources map[string]Source
	// Warnings are problems that did not stop loading, like an untrusted
	// project file; callers log them.
	Warnings []string
	// UserFile is the user file consulted and whether it existed.
	UserFile       string
	UserFileExists bool
	// ProjectFile is the project file consulted ("" when no workspace) and
	// its trust state.
	ProjectFile  string
	ProjectTrust TrustState
}

// Source returns where key's effective value came from.
func (l *Loaded) Source(key string) Source {
	if s, ok := l.Sources[key]; ok {
		return s
	}
	return Source{Kind: SourceDefault}
}

// UserFilePath returns the user configuration file: $ACP_LSP_CONFIG, else
// $XDG_CONFIG_HOME/acp-lsp/config.toml, else acp-lsp/config.toml in the
// platform's configuration folder (see platformDir); "" when there is no
// absolute folder to look in.
func UserFilePath(getenv func(string) string) string {
	return userFilePath(runtime.GOOS, getenv)
}

// StateDir returns acp-lsp's state directory: $XDG_STATE_HOME/acp-lsp,
// else acp-lsp in the platform's state folder (see platformDir); "" when
// there is no absolute folder.
func StateDir(getenv func(string) string) string {
	return stateDir(runtime.GOOS, getenv)
}

func userFilePath(goos string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := getenv(EnvPrefix + "CONFIG"); p != "" {
		return p
	}
	d := platformDir(goos, getenv, "XDG_CONFIG_HOME")
	if d == "" {
		return ""
	}
	return filepath.Join(d, "acp-lsp", "config.toml")
}

func stateDir(goos string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	d := platformDir(goos, getenv, "XDG_STATE_HOME")
	if d == "" {
		return ""
	}
	return filepath.Join(d, "acp-lsp")
}

// platformDir returns the folder xdg (XDG_CONFIG_HOME or XDG_STATE_HOME)
// names if the user set it to an absolute path, on every platform; else
// the platform's own, as os.UserConfigDir and os.UserCacheDir's
// platforms have them: on Linux (and other Unix systems) ~/.config and
// ~/.local/state; on macOS ~/Library/Application Support for both; on
// Windows %AppData% (roaming) for configuration and %LocalAppData% for
// state, which stays on the machine. "" when that is unset or relative.
func platformDir(goos string, getenv func(string) string, xdg string) string {
	if d := getenv(xdg); d != "" && filepath.IsAbs(d) {
		return d
	}
	if goos == "windows" {
		v := "AppData"
		if xdg == "XDG_STATE_HOME" {
			v = "LocalAppData"
		}
		if d := getenv(v); filepath.IsAbs(d) {
			return d
		}
		return ""
	}
	h := homeDir(getenv)
	switch {
	case h == "":
		return ""
	case goos == "darwin":
		return filepath.Join(h, "Library", "Application Support")
	case xdg == "XDG_STATE_HOME":
		return filepath.Join(h, ".local", "state")
	default:
		return filepath.Join(h, ".config")
	}
}

// homeDir returns the home folder, or "" when it is unset or relative: a
// relative one would resolve in the working folder, which is the project,
// and let a repository supply the user file or the trust store.
func homeDir(getenv func(string) string) string {
	h := getenv("HOME")
	if h == "" {
		h, _ = os.UserHomeDir()
	}
	if !filepath.IsAbs(h) {
		return ""
	}
	return h
}

// displayPath shortens a path under the home directory to ~/….
func displayPath(p string, getenv func(string) string) string {
	h := homeDir(getenv)
	if h != "" && h != "/" && strings.HasPrefix(p, h+string(filepath.Separator)) {
		return "~" + p[len(h):]
	}
	return p
}

// Load builds the effective configuration: defaults, then the user file,
// then the workspace's project file (unsafe keys only when trusted), then
// ACP_LSP_* variables, then Overrides. Every problem in any source is
// returned together (errors.Join of *Error, in source and line order), and
// no configuration is returned with them.
func Load(opts Options) (*Loaded, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Defaults()
	out := &Loaded{Sources: map[string]Source{}}
	var errs []error

	out.UserFile = opts.UserFile
	if out.UserFile == "" {
		out.UserFile = UserFilePath(getenv)
	}
	// A file named by -config or ACP_LSP_CONFIG must exist; only the
	// default location may be missing.
	named := opts.ExplicitUserFile || opts.UserFile != "" || getenv(EnvPrefix+"CONFIG") != ""
	data, err := ReadFile(out.UserFile)
	switch {
	case out.UserFile == "":
		// No home folder: there is no default user file.
	case err == nil:
		out.UserFileExists = true
		l := &layer{where: displayPath(out.UserFile, getenv), kind: SourceUser, trusted: true, sources: out.Sources}
		errs = append(errs, l.decodeFile(data, &cfg)...)
	case errors.Is(err, fs.ErrNotExist) && !named:
	default:
		errs = append(errs, fmt.Errorf("config: read user file: %w", err))
	}

	if opts.Workspace != "" {
		errs = append(errs, loadProject(opts, getenv, &cfg, out)...)
	}

	errs = append(errs, applyEnv(getenv, &cfg, out.Sources)...)
	for _, o := range opts.Overrides {
		if err := setText(&cfg, o.Key, o.Value, Source{Kind: SourceFlag, Where: o.Flag}, out.Sources); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out.Config = cfg
	return out, nil
}

func loadProject(opts Options, getenv func(string) string, cfg *Config, out *Loaded) []error {
	path := filepath.Join(opts.Workspace, ProjectFileName)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	out.ProjectFile = path
	data := opts.ProjectContent
	var err error
	if data == nil {
		data, err = ReadFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		out.ProjectTrust = TrustNoFile
		return nil
	}
	if err != nil {
		return []error{fmt.Errorf("config: read project file: %w", err)}
	}
	stateDir := opts.StateDir
	if stateDir == "" {
		stateDir = StateDir(getenv)
	}
	state, err := NewTrustStore(stateDir).Check(path, data)
	if err != nil {
		return []error{err}
	}
	out.ProjectTrust = state
	// The project file is named in full, as 'acp-lsp trust' prints and
	// records it (only the user file is shortened to ~/…).
	l := &layer{where: path, kind: SourceProject, trusted: state == Trusted, sources: out.Sources}
	errs := l.decodeFile(data, cfg)
	if len(errs) == 0 && len(l.skipped) > 0 {
		slices.Sort(l.skipped)
		slices.SortStableFunc(l.skipped, func(a, b string) int {
			return l.line(skippedPath(a)) - l.line(skippedPath(b))
		})
		why := "is not trusted"
		if state == TrustChanged {
			why = "changed since it was trusted"
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf(
			"project config %s %s, so its settings that can run or change things are ignored (%s); review it and run 'acp-lsp trust %s' to apply them",
			l.where, why, strings.Join(l.skipped, ", "), shellQuote(opts.Workspace)))
	}
	return errs
}

// decodeFile parses TOML data onto cfg; it returns the layer's errors.
func (l *layer) decodeFile(data []byte, cfg *Config) []error {
	if !isUTF8(data) {
		return []error{&Error{Where: l.where, Message: "not UTF-8 text"}}
	}
	l.src = string(data)
	var raw map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The parser counts a line's closing newline as the next line;
			// the byte offset places the error where a person looks.
			line := pe.Position.Line
			if pe.Position.Start > 0 && pe.Position.Start <= len(data) {
				line = 1 + bytes.Count(data[:pe.Position.Start], []byte("\n"))
			}
			return []error{&Error{Where: l.where, Line: line, Message: "syntax error: " + pe.Message}}
		}
		return []error{&Error{Where: l.where, Message: "syntax error: " + err.Error()}}
	}
	l.decodeTable(raw, reflect.ValueOf(cfg).Elem(), nil, true)
	slices.SortStableFunc(l.errs, func(a, b *Error) int { return a.Line - b.Line })
	errs := make([]error, len(l.errs))
	for i, e := range l.errs {
		errs[i] = e
	}
	return errs
}

func isUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// leaf is one scalar option reachable from the environment and flags.
type leaf struct {
	key   string
	field reflect.StructField
	index []int
}

// leaves lists every option except servers, in declaration order.
func leaves() []leaf {
	var out []leaf
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("toml")
			if tag == "" || tag == "servers" {
				continue
			}
			idx := append(slices.Clip(index), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+tag+".", idx)
				continue
			}
			out = append(out, leaf{key: prefix + tag, field: f, index: idx})
		}
	}
	walk(reflect.TypeFor[Config](), "", nil)
	return out
}

// Keys lists every dotted option key except the servers table, in the
// order docs/configuration.md documents them.
func Keys() []string {
	var out []string
	for _, l := range leaves() {
		out = append(out, l.key)
	}
	return out
}

// EnvName returns the environment variable that sets key.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func applyEnv(getenv func(string) string, cfg *Config, sources map[string]Source) []error {
	var errs []error
	for _, l := range leaves() {
		name := EnvName(l.key)
		v := getenv(name)
		if v == "" {
			continue
		}
		if err := setText(cfg, l.key, v, Source{Kind: SourceEnv, Where: name}, sources); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// setText sets the option key from text (an environment variable or a flag).
func setText(cfg *Config, key, text string, src Source, sources map[string]Source) error {
	where := src.Where
	for _, l := range leaves() {
		if l.key != key {
			continue
		}
		v, msg := parseText(l.field, text)
		if msg != "" {
			return &Error{Where: where, Key: key, Message: fmt.Sprintf("%s: %s", key, msg)}
		}
		reflect.ValueOf(cfg).Elem().FieldByIndex(l.index).Set(v)
		sources[key] = src
		return nil
	}
	msg := fmt.Sprintf("unknown key %q", key)
	if strings.HasPrefix(key, "servers.") {
		msg += " (servers are configured in files only)"
	} else if s := suggest(key, Keys()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return &Error{Where: where, Key: key, Message: msg}
}

// parseText converts text to the field's type, returning a message on error.
func parseText(f reflect.StructField, s string) (reflect.Value, string) {
	t := f.Type
	switch {
	case t == durationType:
		d, msg := parseDuration(s)
		if msg == "" {
			msg = checkDuration(f, d)
		}
		if msg != "" {
			return reflect.Value{}, msg
		}
		return reflect.ValueOf(d), ""
	case t.Kind() == reflect.String:
		if msg := checkEnum(f, s); msg != "" {
			return reflect.Value{}, msg
		}
		return reflect.ValueOf(s), ""
	case t.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return reflect.Value{}, fmt.Sprintf("expected true or false, got %q", s)
		}
		return reflect.ValueOf(b), ""
	case t.Kind() == reflect.Int:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return reflect.Value{}, fmt.Sprintf("expected an integer, got %q", s)
		}
		if msg := checkInt(f, n); msg != "" {
			return reflect.Value{}, msg
		}
		return reflect.ValueOf(int(n)), ""
	case t == reflect.TypeFor[[]string]():
		var out []string
		for p := range strings.SplitSeq(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return reflect.ValueOf(out), ""
	}
	return reflect.Value{}, fmt.Sprintf("cannot be set from text (%s)", t)
}

// Flags holds the common configuration flags of a FlagSet; AddFlags creates
// it, and Options or Load apply the flags the user gave on top of the files
// and environment.
type Flags struct {
	file      string
	overrides []Override
}

// AddFlags registers -config, -log-level, -trace-file, -mcp-transport and
// the repeatable -set KEY=VALUE on fs. Only flags given on the command line
// override other sources. A name fs already defines is left to its owner,
// who can feed the value in with Flags.Set.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	if fs.Lookup("config") == nil {
		fs.StringVar(&f.file, "config", "", "user configuration `file` (default acp-lsp/config.toml in $XDG_CONFIG_HOME or the platform's config folder)")
	}
	named := []struct{ name, key, usage string }{
		{"log-level", "log.level", "minimum `level` of log lines on stderr: debug, info, warn, error (log.level)"},
		{"trace-file", "log.trace_file", "write every JSON-RPC message to `file` (log.trace_file)"},
		{"mcp-transport", "mcp.transport", "how agents reach the lsp tool: auto, http or stdio (mcp.transport)"},
	}
	for _, n := range named {
		if fs.Lookup(n.name) != nil {
			continue
		}
		fs.Func(n.name, n.usage, func(v string) error {
			f.overrides = append(f.overrides, Override{Flag: "-" + n.name, Key: n.key, Value: v})
			return nil
		})
	}
	if fs.Lookup("set") != nil {
		return f
	}
	fs.Func("set", "set any option: `key=value`, like diagnostics.cache_files=5000 (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		k = strings.TrimSpace(k)
		f.overrides = append(f.overrides, Override{Flag: "-set " + k, Key: k, Value: val})
		return nil
	})
	return f
}

// Set adds an override after those already given, for a caller's own
// flag that maps to an option (flag names it in errors and sources).
func (f *Flags) Set(flag, key, value string) {
	f.overrides = append(f.overrides, Override{Flag: flag, Key: key, Value: value})
}

// SetUserFile names the user file, as -config does.
func (f *Flags) SetUserFile(path string) { f.file = path }

// Options returns load options for workspace with the flags applied.
func (f *Flags) Options(workspace string) Options {
	return Options{
		UserFile:         f.file,
		ExplicitUserFile: f.file != "",
		Workspace:        workspace,
		Overrides:        slices.Clone(f.overrides),
	}
}

// Load loads the effective configuration for workspace ("" for none) with
// the flags applied.
func (f *Flags) Load(workspace string) (*Loaded, error) {
	return Load(f.Options(workspace))
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Validate checks one file's content (a user or project file) without
// applying it; where names it in errors. It returns nil or the same errors
// Load would.
func Validate(where string, data []byte) error {
	cfg := Defaults()
	l := &layer{where: where, kind: SourceUser, trusted: true, sources: map[string]Source{}}
	return errors.Join(l.decodeFile(data, &cfg)...)
}

// skippedPath splits a skipped key; a server name may contain dots.
func skippedPath(k string) []string {
	if name, ok := strings.CutPrefix(k, "servers."); ok {
		return []string{"servers", name}
	}
	return strings.Split(k, ".")
}

// CheckServers reports servers that cannot run: a name isBuiltin does not
// know (a new server) needs a command and extensions or filenames, since
// there is no built-in entry to fill them in. Errors name the file and line
// of the server's table. The integrator calls it with the lsp registry.
func (l *Loaded) CheckServers(isBuiltin func(name string) bool) error {
	var errs []error
	for _, n := range slices.Sorted(maps.Keys(l.Config.Servers)) {
		s := l.Config.Servers[n]
		if isBuiltin(n) || s.Disabled {
			continue
		}
		var missing []string
		if len(s.Command) == 0 {
			missing = append(missing, "command")
		}
		if len(s.Extensions) == 0 && len(s.Filenames) == 0 {
			missing = append(missing, "extensions or filenames")
		}
		if len(missing) == 0 {
			continue
		}
		src := l.Source("servers." + n)
		errs = append(errs, &Error{Where: src.Where, Line: src.Line, Key: "servers." + n,
			Message: fmt.Sprintf("servers.%s: %q is not a built-in server, so it needs %s", n, n, strings.Join(missing, " and "))})
	}
	return errors.Join(errs...)
}
