package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// TestEditorGoneEndsAgentTree: when the editor closes acp-lsp's input,
// acp-lsp exits (status 0) only once every process the agent started has
// ended: its child in its process group, and a daemon that left the group
// with setsid while the agent ignores its input's end.
func TestEditorGoneEndsAgentTree(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv(proctest.PidsEnv, pids)
	// A file, as acp-lsp's own stderr is: not copied by a goroutine that
	// would wait for the daemon's copy of it to close.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- Main(context.Background(), []string{"-no-lsp", "--", "sh", "-c",
			proctest.TreeScript + `echo '{"jsonrpc":"2.0","method":"ready"}'; exec sleep 1000`},
			Stdio{In: inR, Out: outW, Err: stderr})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"ready"`) {
		t.Fatalf("the agent's ready notification did not come through: %q %v", sc.Text(), sc.Err())
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if c := <-code; c != ExitOK {
		t.Errorf("exit code %d, want %d", c, ExitOK)
	}
	proctest.AwaitGone(t, proctest.ReadPids(t, pids, proctest.TreeProcs), 0)
}
