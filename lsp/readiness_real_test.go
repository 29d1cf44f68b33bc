package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealLoadingWait: gopls holds a request until its load ends; with a
// loading wait shorter than the load, the first references call answers
// "loading" with the progress gopls reported so far ("Setting up
// workspace", "Loading packages...", or none yet when its token is
// created but not begun), its request cancelled, instead of waiting; once
// gopls is ready (waited for through its progress, not a sleep) the call
// is answered, complete. The cancelled request is no wedge: the same
// gopls answers.
func TestRealLoadingWait(t *testing.T) {
	peers.Require(t, "gopls")
	const pkgs, per = 100, 10
	files := map[string]string{
		"go.mod":       "module example.com/gen\n\ngo 1.22\n",
		"base/base.go": "package base\n\ntype Base struct{}\n\nfunc (Base) Run() int { return 1 }\n",
	}
	for p := range pkgs {
		for f := range per {
			files[fmt.Sprintf("p%d/m%d.go", p, f)] = fmt.Sprintf("package p%d\n\nimport \"example.com/gen/base\"\n\ntype C%d struct{ base.Base }\n\nfunc F%d() int { return base.Base{}.Run() }\n", p, f, f)
		}
	}
	root := disk.Tree(t, files)
	m := newRealManager(t, root, func(o *Options) {
		o.Timeouts.Loading = Duration(time.Millisecond) // over before gopls has loaded anything
		o.WedgeAfter = 1
	})
	defer m.Close(context.Background())
	base := filepath.Join(root, "base", "base.go")
	_, err := references(t.Context(), m, base, Position{Line: 2, Character: 5}, true)
	var ie *IndexingError
	// The wait may end as gopls creates its progress token, before it
	// begins the work with its title.
	if !errors.As(err, &ie) || ie.Server != "gopls" || len(ie.Progress) > 0 && !slices.Contains(ie.Work(), "Setting up workspace") {
		t.Fatalf("references while gopls loads: %v, want *IndexingError with its progress", err)
	}
	t.Logf("while loading: %v", err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if r, err := m.WaitReady(ctx, base); err != nil || r.State != Ready {
		t.Fatalf("WaitReady: %+v %v", r, err)
	}
	raw, err := references(t.Context(), m, base, Position{Line: 2, Character: 5}, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(locations(t, raw)); n != 2*pkgs*per+2 {
		t.Fatalf("%d references once loaded, want %d", n, 2*pkgs*per+2)
	}
	if st := m.Servers(); len(st) != 1 || st[0].Restarts != 0 || st[0].Readiness.State != Ready {
		t.Fatalf("status %+v", st)
	}
}
