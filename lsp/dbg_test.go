package lsp

import (
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
)

func TestDbgStops(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{StopReading: true}), func(o *Options) {
		o.Timeouts.Request = Duration(time.Second)
		o.Timeouts.Write = Duration(500 * time.Millisecond)
	})
	t0 := time.Now()
	_, err := e.hover()
	t.Logf("1 %v %v %+v", time.Since(t0), err, e.status().State)
	e.write(fakeText + strings.Repeat("// filler line to fill the pipe\n", 1<<16))
	t0 = time.Now()
	_, err = e.hover()
	t.Logf("2 %v %v %+v", time.Since(t0), err, e.status().State)
	e.setScript(fakelsp.Script{})
	t0 = time.Now()
	_, err = e.hover()
	t.Logf("3 %v %v %+v", time.Since(t0), err, e.status().State)
	for _, m := range e.messages() {
		t.Log(m.Kind, m.Method, len(m.Params))
	}
}
