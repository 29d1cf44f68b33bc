package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// wireChain runs editor ⇄ stage ⇄ agent, the stage's Wire talking to the
// scripted editor directly, and returns the editor and the stage once
// the stage holds its hop.
func wireChain(t *testing.T) (*acptest.Peer, *Stage) {
	t.Helper()
	st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
	if err != nil {
		t.Fatal(err)
	}
	editor, cep := acptest.New("editor", nil)
	agent, aep := acptest.New("agent", nil)
	runChain(t, editor, agent, cep, aep, func() {
		for range editor.Messages() {
		}
		for range agent.Messages() {
		}
	}, st)
	if _, err := st.waitHop(context.Background()); err != nil {
		t.Fatal(err)
	}
	return editor, st
}

// TestWireCancelReachesUpstream: a Wire call whose ctx is cancelled (a
// cancelled tool call) cancels its `_lsp/*` request upstream with
// $/cancel_request for the id the editor saw, and returns the ctx error.
func TestWireCancelReachesUpstream(t *testing.T) {
	editor, st := wireChain(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := st.c.backend.Request(ctx, "file:///a.go", "textDocument/hover", json.RawMessage(`{}`))
		errc <- err
	}()
	req := editor.Expect(t, chainWait)
	if req.Method != lspext.Request || !req.IsRequest() {
		t.Fatalf("editor got %s", req.Raw)
	}
	cancel()
	c := editor.Expect(t, chainWait)
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if c.Method != proxy.MethodCancelRequest || json.Unmarshal(c.Params, &p) != nil || string(p.RequestID) != string(req.ID) {
		t.Fatalf("after cancel the editor got %s, want $/cancel_request for %s", c.Raw, req.ID)
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
}

// TestWireExplainCancelledAsksNothing: a tool call that failed because its
// caller gave up is not followed by an `_lsp/status` request upstream to
// explain the failure to nobody.
func TestWireExplainCancelledAsksNothing(t *testing.T) {
	editor, st := wireChain(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// waitHop picks at random between a ready hop and a done ctx: try
	// often enough that a request sent even sometimes shows.
	for range 32 {
		st.c.explain(ctx, upstream(context.Canceled))
		st.c.emptyNote(ctx)
	}
	if err := st.c.backend.FilesChanged(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if m := editor.Expect(t, chainWait); m.Method != lspext.FilesChanged {
		t.Errorf("after a cancelled call the editor was sent %s", m.Raw)
	}
}

// TestWireFilesChangedAfterCancel: files the tool wrote are announced
// upstream even when the tool call was cancelled meanwhile.
func TestWireFilesChangedAfterCancel(t *testing.T) {
	editor, st := wireChain(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 32 // waitHop chooses at random between hop and ctx
	for range n {
		if err := st.c.backend.FilesChanged(ctx, []lspext.FileChange{{URI: "file:///a.go", Type: 2}}); err != nil {
			t.Errorf("FilesChanged: %v", err)
		}
	}
	// A request behind them: every notification sent comes before it.
	done := make(chan error, 1)
	go func() {
		_, err := st.c.backend.Status(context.Background())
		done <- err
	}()
	got := 0
	for {
		m := editor.Expect(t, chainWait)
		if m.Method == lspext.Status {
			editor.Reply(m.ID, lspext.ServersResult{Servers: []lspext.ServerInfo{}})
			if err := <-done; err != nil {
				t.Error(err)
			}
			break
		}
		if m.Method == lspext.FilesChanged {
			got++
		}
	}
	if got != n {
		t.Errorf("%d of %d filesChanged notifications reached upstream", got, n)
	}
}

// TestWireEmptyErrorMessage: an error answer without a message still
// reads as something the model can act on, its code kept reachable.
func TestWireEmptyErrorMessage(t *testing.T) {
	for _, msg := range []string{"", "_lsp/request: ", "  "} {
		_, err := (&Wire{Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			return nil, &proxy.Error{Code: -32603, Message: msg}
		}}).Request(context.Background(), "", "textDocument/hover", nil)
		var pe *proxy.Error
		if err == nil || err.Error() != "_lsp/request: upstream error -32603 without a message" || !errors.As(err, &pe) {
			t.Errorf("error answer %q read as %q", msg, err)
		}
	}
}

func TestWire(t *testing.T) {
	var sent []string
	w := &Wire{
		Call: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			sent = append(sent, method+" "+string(params))
			switch method {
			case "_lsp/diagnosticReport":
				return json.RawMessage(`{"files":[],"servers":[{"server":"gopls","verdict":"fresh"}]}`), nil
			case "_lsp/servers", "_lsp/status":
				return json.RawMessage(`{"servers":[{"name":"gopls","source":"local"}]}`), nil
			case "_lsp/request":
				if strings.Contains(string(params), `"uri":"file:///old"`) {
					return json.RawMessage(`[1]`), nil // an upstream that does not know the flag
				}
				return json.RawMessage(`{"result":[1],"readiness":[{"server":"pyright","state":"loading"}]}`), nil
			}
			return nil, fmt.Errorf("no %s", method)
		},
		Notify: func(ctx context.Context, method string, params json.RawMessage) error {
			sent = append(sent, method+" "+string(params))
			return nil
		},
	}
	ctx := context.Background()
	if r, err := w.Request(ctx, "file:///a", "textDocument/hover", json.RawMessage(`{"x":1}`)); err != nil || string(r.Result) != "[1]" ||
		!reflect.DeepEqual(r.Readiness, []lspext.Readiness{{Server: "pyright", State: lspext.ReadyLoading}}) {
		t.Errorf("Request: %+v %v", r, err)
	}
	if r, err := w.Request(ctx, "file:///old", "textDocument/hover", json.RawMessage(`{"x":1}`)); err != nil || string(r.Result) != "[1]" || r.Readiness != nil {
		t.Errorf("Request to an upstream without readiness: %+v %v", r, err)
	}
	if rep, err := w.DiagnosticReport(ctx, []string{"file:///a"}, 1500*1e6); err != nil || rep.Servers[0].Verdict != "fresh" {
		t.Errorf("DiagnosticReport: %+v %v", rep, err)
	}
	if s, err := w.Status(ctx); err != nil || s[0].Name != "gopls" {
		t.Errorf("Status: %+v %v", s, err)
	}
	if err := w.Restart(ctx, "gopls", ""); err == nil {
		t.Error("Restart: error from upstream lost")
	}
	w.FilesChanged(ctx, nil)
	want := []string{
		`_lsp/request {"uri":"file:///a","method":"textDocument/hover","params":{"x":1},"readiness":true}`,
		`_lsp/request {"uri":"file:///old","method":"textDocument/hover","params":{"x":1},"readiness":true}`,
		`_lsp/diagnosticReport {"uris":["file:///a"],"wait":1500}`,
		`_lsp/status {}`,
		`_lsp/restart {"server":"gopls"}`,
		`_lsp/filesChanged {"changes":[]}`,
	}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}
	if _, err := (&Wire{Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage("null"), nil
	}}).Status(ctx); err == nil {
		t.Error("null status accepted")
	}
	// An error answer reads as upstream's words alone, the JSON-RPC
	// error still reachable for its code and data.
	_, err := (&Wire{Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return nil, &proxy.Error{Code: -32603, Message: "_lsp/request: gopls textDocument/hover: timeout", Data: json.RawMessage(`{"indexing":true,"server":"gopls"}`)}
	}}).Request(ctx, "", "textDocument/hover", nil)
	var pe *proxy.Error
	if wrapped := fmt.Errorf("hover: %w", err); wrapped.Error() != "hover: gopls textDocument/hover: timeout" || !errors.As(wrapped, &pe) || pe.Code != -32603 {
		t.Errorf("error answer read as %q", wrapped)
	}
	if d, ok := indexingOf(upstream(err)); !ok || d.Server != "gopls" {
		t.Errorf("indexing data lost: %+v", d)
	}
}
