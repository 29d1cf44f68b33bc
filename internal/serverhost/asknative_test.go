package serverhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestAskNativeThroughHost: through the host, AskNative passes the
// positions of a server that negotiated utf-8 unconverted, as the Manager
// does, while Ask still speaks utf-16: Foo, after a character outside the
// BMP, is at byte 13 and at utf-16 unit 11.
func TestAskNativeThroughHost(t *testing.T) {
	dir := hostDir(t)
	id := "native0000000000"
	servers := fakeServers(t, fakelsp.Script{PositionEncoding: "utf-8"})
	// The host goes first at the cleanup: its servers hold their
	// record files open, which Windows does not delete.
	serveHere(t, dir, id)
	root := t.TempDir()
	file := filepath.Join(root, "a.go")
	must(t, os.WriteFile(file, []byte("/*😀*/func Foo() {}\n"), 0o644))
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { c.Close(context.Background()) })
	hover := func(col int) json.RawMessage {
		return json.RawMessage(`{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"},"position":{"line":0,"character":` + strconv.Itoa(col) + `}}`)
	}
	for _, tt := range []struct {
		name   string
		native bool
		col    int
		want   bool
	}{
		{"Ask in utf-16", false, 11, true},
		{"AskNative in utf-8", true, 13, true},
		{"AskNative given utf-16", true, 11, false},
	} {
		ask := c.Ask
		if tt.native {
			ask = c.AskNative
		}
		ans, err := ask(t.Context(), file, "textDocument/hover", hover(tt.col))
		must(t, err)
		if got := strings.Contains(string(ans.Result), fakelsp.HoverPrefix+"Foo"); got != tt.want {
			t.Errorf("%s at %d: %s", tt.name, tt.col, ans.Result)
		}
	}
}
