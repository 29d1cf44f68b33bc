package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// BaseEnv returns the environment every spawned language server starts
// from: the variables of environ (os.Environ form) that local.env_allowlist
// lets through. Servers add their own on top (see LSPServers).
func (c *Config) BaseEnv(environ []string) []string {
	return c.ServerEnv(Server{}, environ)
}

// LSPServers returns the language-server registry for the lsp package:
// lsp.DefaultServers with every [servers.NAME] table merged over the
// built-in of the same name (or added as a new server). environ is acp-lsp's
// own environment; each configured server gets, on top of BaseEnv, the
// variables its env_allowlist lets through and its env table.
//
// Field mapping, where TOML and lsp differ:
//   - command = [exe, a...] replaces the built-in command and its arguments
//     (exe becomes Command, a... the leading Args); args are appended. With
//     no command, args are appended to the built-in's own arguments, so
//     `args = ["-remote=auto"]` for gopls does not drop what gopls needs.
//   - language_id sets the default languageId (lsp Language); the
//     built-in's per-extension ids (tsx → typescriptreact) still apply.
//   - initialization_options and settings are re-encoded as JSON.
//   - timeouts.request and timeouts.initialize override the global ones.
func (c *Config) LSPServers(environ []string) ([]lsp.ServerConfig, error) {
	base := lsp.DefaultServers()
	names := slices.Sorted(maps.Keys(c.Servers))
	baseEnv := map[string]bool{}
	for _, kv := range c.BaseEnv(environ) {
		baseEnv[kv] = true
	}
	overrides := make([]lsp.ServerConfig, 0, len(names))
	for _, n := range names {
		s := c.Servers[n]
		var builtin *lsp.ServerConfig
		if i := slices.IndexFunc(base, func(b lsp.ServerConfig) bool { return b.Name == n }); i >= 0 {
			builtin = &base[i]
		}
		if builtin == nil && s.Disabled && (len(s.Command) == 0 || len(s.Extensions)+len(s.Filenames) == 0) {
			// A disabled new server runs nothing, so CheckServers
			// accepts it without a command or file types; lsp would
			// refuse it as incomplete.
			continue
		}
		o, err := serverOverride(n, s, builtin)
		if err != nil {
			return nil, err
		}
		if len(s.Env) > 0 || len(s.EnvAllowlist) > 0 {
			// Only what the base environment lacks: lsp appends
			// these to the base, and the last value of a key wins.
			o.Env = []string{}
			for _, kv := range c.ServerEnv(s, environ) {
				if !baseEnv[kv] {
					o.Env = append(o.Env, kv)
				}
			}
		}
		overrides = append(overrides, o)
	}
	servers, err := lsp.MergeServers(base, overrides)
	if err != nil {
		return nil, fmt.Errorf("config servers: %w", err)
	}
	return servers, nil
}

// serverOverride converts one [servers.NAME] table into an lsp override;
// builtin is the built-in server of that name, nil for a new one.
func serverOverride(name string, s Server, builtin *lsp.ServerConfig) (lsp.ServerConfig, error) {
	o := lsp.ServerConfig{
		Name:        name,
		Extensions:  trimDots(s.Extensions),
		Filenames:   s.Filenames,
		RootMarkers: s.RootMarkers,
		Language:    s.LanguageID,
		Disabled:    s.Disabled,
		Priority:    s.Priority,
		Needed:      s.Needed,
		Timeouts: lsp.Timeouts{
			Request:    lsp.Duration(s.Timeouts.Request),
			Initialize: lsp.Duration(s.Timeouts.Initialize),
		},
	}
	switch {
	case len(s.Command) > 0:
		o.Command = s.Command[0]
		o.Args = append(slices.Clone(s.Command[1:]), s.Args...)
		if o.Args == nil {
			o.Args = []string{} // replaces the built-in's arguments
		}
	case len(s.Args) > 0:
		if builtin != nil {
			o.Args = append(slices.Clone(builtin.Args), s.Args...)
		} else {
			o.Args = slices.Clone(s.Args)
		}
	}
	if s.InitializationOptions != nil {
		b, err := json.Marshal(s.InitializationOptions)
		if err != nil {
			return o, fmt.Errorf("config servers: servers.%s.initialization_options: %w", name, err)
		}
		o.InitializationOptions = b
	}
	if s.Settings != nil {
		o.Settings = make(map[string]json.RawMessage, len(s.Settings))
		for k, v := range s.Settings {
			b, err := json.Marshal(v)
			if err != nil {
				return o, fmt.Errorf("config servers: servers.%s.settings.%s: %w", name, k, err)
			}
			o.Settings[k] = b
		}
	}
	return o, nil
}

// trimDots accepts ".go" as well as "go" in extensions.
func trimDots(exts []string) []string {
	if exts == nil {
		return nil
	}
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = strings.TrimPrefix(e, ".")
	}
	return out
}
