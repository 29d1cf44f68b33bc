package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// traced returns env and wsEnv for one column whose gopls logs every LSP
// message it receives and sends (gopls -rpc.trace) into dir/<key>/: a shell
// wrapper named gopls stands first on PATH and in env.Gopls, so every
// column, whichever way it finds gopls (absolute path or PATH lookup), runs
// it. Each gopls process writes its own file, gopls-<pid>.log. The trace
// shows what each column asks gopls and gopls's own time per request; it
// slows gopls a little, so traced runs are for reading, not for figures.
func traced(dir, key string, env *Env, wsEnv []string) (*Env, []string, error) {
	d, err := filepath.Abs(filepath.Join(dir, key))
	if err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	bin := filepath.Join(d, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	script := "#!/bin/sh\nexec " + strconv.Quote(env.Gopls) + " -rpc.trace -logfile=" + strconv.Quote(d) + "/gopls-$$.log \"$@\"\n"
	wrapper := filepath.Join(bin, "gopls")
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	e := *env
	e.Gopls = wrapper
	out := make([]string, 0, len(wsEnv)+1)
	path := false
	for _, kv := range wsEnv {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + bin + string(os.PathListSeparator) + v
			path = true
		}
		out = append(out, kv)
	}
	if !path {
		out = append(out, "PATH="+bin)
	}
	return &e, out, nil
}
