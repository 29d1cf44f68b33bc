package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// newTreeEnv is a faultEnv whose server first builds a process tree meant
// to outlive it (proctest.TreeScript: a child in its process group and a
// setsid daemon outside it, its pids recorded in pids), then execs the
// fake, which ignores its input's end and SIGTERM (as gopls was seen to
// outlive an acp-lsp killed by acpx). It returns once the server answered.
func newTreeEnv(t *testing.T, pids string) *faultEnv {
	e := newFaultEnv(t, fakelsp.Script{RefuseExit: true}, func(o *Options) {
		s := &o.Servers[0]
		s.Args = append([]string{"-c", proctest.TreeScript + `exec "$@"`, "sh", s.Command}, s.Args...)
		s.Command = "sh"
		s.Env = append(s.Env, proctest.PidsEnv+"="+pids)
	})
	e.wantHover()
	return e
}

// TestServerTreeEndsWithAcpLsp: every process a language server started
// ends with acp-lsp, as a tree: its child in its process group and a
// daemon that left the group with setsid, also when acp-lsp is killed
// outright (SIGKILL, so no Close runs: an editor that lost patience). For
// the kill, the test binary is run again as that acp-lsp.
func TestServerTreeEndsWithAcpLsp(t *testing.T) {
	if pids := os.Getenv(proctest.ParentEnv); pids != "" {
		newTreeEnv(t, pids)
		fmt.Println("server ready")
		select {} // killed here
	}
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, pids string)
		// grace is how long the tree may take to end after end returned.
		grace time.Duration
	}{
		{"acp-lsp killed", func(t *testing.T, pids string) { proctest.KillParent(t, pids, "server ready") }, 10 * time.Second},
		// Close returns once every tree has ended.
		{"manager closed", func(t *testing.T, pids string) { newTreeEnv(t, pids).close() }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			tc.end(t, pids)
			proctest.AwaitGone(t, proctest.ReadPids(t, pids, proctest.TreeProcs), tc.grace)
		})
	}
}
