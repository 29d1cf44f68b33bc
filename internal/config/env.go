package config

import (
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// ServerEnv builds the environment of a spawned server from acp-lsp's own
// environ (os.Environ form): only variables matching local.env_allowlist or
// the server's env_allowlist pass (a trailing * matches a prefix; on
// Windows without case, as Windows matches names: it writes Path), then the
// server's env is set on top. The result is sorted, so it is stable to log.
func (c *Config) ServerEnv(s Server, environ []string) []string {
	allow := append(slices.Clone(c.Local.EnvAllowlist), s.EnvAllowlist...)
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if allowed(k, allow) {
			vars[k] = v
		}
	}
	maps.Copy(vars, s.Env)
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func allowed(name string, allow []string) bool {
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
	}
	for _, a := range allow {
		if runtime.GOOS == "windows" {
			a = strings.ToUpper(a)
		}
		if p, ok := strings.CutSuffix(a, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if name == a {
			return true
		}
	}
	return false
}
