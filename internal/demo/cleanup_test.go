package demo_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/demo"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// TestRemoveFailureReported: a temporary workspace the demo could not
// remove is an error, and the output does not claim it was removed.
func TestRemoveFailureReported(t *testing.T) {
	dir, exe := binDir(t, true)
	var asked []string
	defer demo.SetRemoveAll(func(path string) error {
		asked = append(asked, path)
		return errors.New("device or resource busy")
	})()
	var out bytes.Buffer
	rep, err := demo.Run(context.Background(), demo.Options{
		Chain: []string{exe, "-log-level", "error", "--", exe, "agent"},
		Steps: []demo.Step{{Title: "status", Line: `lsp {"action":"status"}`}},
		Out:   &out,
		Env:   env("acp-lsp", dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	if rep != nil && rep.Workspace != "" {
		defer os.RemoveAll(rep.Workspace)
	}
	if len(asked) != 1 || rep == nil || asked[0] != rep.Workspace {
		t.Fatalf("removal asked for %q, want the workspace (%+v)", asked, rep)
	}
	if err == nil || !strings.Contains(err.Error(), "remove temporary workspace") || !strings.Contains(err.Error(), "device or resource busy") {
		t.Errorf("err = %v, want the failed removal", err)
	}
	if strings.Contains(out.String(), "workspace removed") {
		t.Errorf("the output claims the workspace was removed:\n%s", out.String())
	}
	proctest.NoLeftovers(t, dir, 5*time.Second)
}
