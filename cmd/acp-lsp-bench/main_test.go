package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestQuickSmoke runs the command as CI can: -quick, the LSP and scale
// rows and the bytes rows, columns (a) and (b) (cclsp and lsmcp are installed by
// scripts/bench.sh only), real gopls, the workspace module fetched with go
// mod download. It checks the report was written and every answer of (b)
// was right; it asserts nothing about speed.
func TestQuickSmoke(t *testing.T) {
	peers.Require(t, "gopls")
	out := t.TempDir()
	// Its own cache (module, workspace copies): a bench run at the same
	// time uses .cache/bench.
	cache := t.TempDir()
	var stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if code := run(ctx, []string{"-quick", "-rows", "lsp,scale,bytes", "-columns", "bare,acp-lsp", "-out", out, "-cache", cache}, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{"| cold start to first hover |", "| diagnostics after an edit |", "gopls processes: 1", "concurrent tool calls", "pushed diagnostics"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "right") {
			cells := strings.Split(line, "|")
			if len(cells) > 3 && strings.Contains(cells[3], " 0/") {
				t.Errorf("acp-lsp answered wrong: %s", line)
			}
		}
	}
	// The bytes rows: acp-lsp's answers are right and need no file read.
	for _, row := range []string{"| diagnostics of one file (one type error) |", "| references to a widely used type |", "| definition |", "| hover |"} {
		i := strings.Index(doc, row)
		if i < 0 {
			t.Errorf("report lacks the bytes row %q", row)
			continue
		}
		line, _, _ := strings.Cut(doc[i:], "\n")
		if cells := strings.Split(line, "|"); len(cells) < 3 || !strings.Contains(cells[2], "right, alone") {
			t.Errorf("acp-lsp's bytes answer not right alone: %s", line)
		}
	}
	if strings.Contains(doc, "**not met** |") {
		t.Errorf("a scale check failed:\n%s", doc)
	}
}

func TestBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-rows", "lsp,bogus", "-out", ""}, 1, `unknown row group "bogus"`},
		{[]string{"-columns", "bare,vim", "-out", ""}, 1, `unknown column "vim"`},
		{[]string{"-mcp-client", "curl", "-out", ""}, 1, `unknown MCP client "curl"`},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}
