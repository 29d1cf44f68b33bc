package adapter

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// BenchmarkNativeResult measures converting an editor's reference answer
// of 200 locations to the native form.
func BenchmarkNativeResult(b *testing.B) {
	var locs []string
	for i := range 200 {
		locs = append(locs, fmt.Sprintf(`{"uri":"file:///w/pkg/file%d.go","range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":12}}}`, i, i+1, i+1))
	}
	raw := json.RawMessage("[" + strings.Join(locs, ",") + "]")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nativeResult(lspext.References, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditorHover measures one native _lsp/request for hover from the
// agent side answered by a scripted editor through its reference method:
// parse, route, translate both ways, two hops of the chain each way.
func BenchmarkEditorHover(b *testing.B) {
	tc := startChain(b, Config{NoLocal: true}, false)
	tc.initialize(b, `{"lsp":{"methods":["_lsp/hover"]}}`, "")
	se := tc.runEditor(func(msg) reply {
		return reply{result: `{"contents":"func add(a, b int) int","range":{"start":{"line":5,"character":6},"end":{"line":5,"character":9}}}`}
	})
	const params = `{"uri":"file:///w/main.go","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/main.go"},"position":{"line":4,"character":5}}}`
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		if m := tc.call(b, id, "_lsp/request", params, nil); m.Error != nil {
			b.Fatal(m.Raw)
		}
	}
	b.StopTimer()
	tc.cancel()
	<-se.done
}
