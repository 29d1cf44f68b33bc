package lsp

import (
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestQuirkPublishesInPasses: a server whose entry says
// Quirks.PublishesInPasses (astro-ls publishes a version's diagnostics
// empty first, then the real ones) is read at its last publish for the
// version, once the settle window passed, never at the empty first one.
func TestQuirkPublishesInPasses(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{DoublePublish: true}, func(o *Options) {
		o.Servers[0].Quirks = Quirks{PublishesInPasses: true}
	})
	e.prewarm()
	e.write("package fake\nvar a = ERROR\nvar b = ERROR\n")
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 2 {
		t.Fatalf("%+v; want fresh, 2 diagnostics", fd)
	}
	e.close()
}
