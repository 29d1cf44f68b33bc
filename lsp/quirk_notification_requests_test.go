package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// notifServer is an in-memory server that, asked for hover, first asks the
// client through the notification tsserver/request (as
// @vue/language-server 3 does) and answers the hover only with what came
// back in tsserver/response.
type notifServer struct {
	net.Conn
	params string // the tsserver/request params it sends
	answer chan json.RawMessage
	done   chan struct{}
}

func (s *notifServer) Done() <-chan struct{} { return s.done }
func (s *notifServer) Kill()                 { s.Conn.Close() }

func (s *notifServer) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	switch req.Method {
	case "initialize":
		_ = conn.Reply(ctx, req.ID, json.RawMessage(`{"capabilities":{"hoverProvider":true,"textDocumentSync":1}}`))
	case "tsserver/response":
		s.answer <- *req.Params
	case "textDocument/hover":
		if err := conn.Notify(ctx, "tsserver/request", json.RawMessage(s.params)); err != nil {
			return
		}
		select {
		case a := <-s.answer:
			b, _ := encode(map[string]any{"contents": string(a)})
			_ = conn.Reply(ctx, req.ID, json.RawMessage(b))
		case <-ctx.Done():
		}
	default:
		if !req.Notif {
			_ = conn.Reply(ctx, req.ID, nil)
		}
	}
}

// TestQuirkNotificationRequests: a server whose entry maps
// tsserver/request to tsserver/response in Quirks.NotificationRequests
// gets each such request answered with a null result under its id, in the
// shape it was asked (vscode-jsonrpc wraps the array as one positional
// parameter), so that a request waiting on it is answered.
func TestQuirkNotificationRequests(t *testing.T) {
	for _, tc := range []struct {
		name, params, want string
	}{
		{"one positional array", `[[7,"_vue:projectInfo",{"file":"a.vue"}]]`, `[[7,null]]`},
		{"flat array", `[7,"_vue:projectInfo",{"file":"a.vue"}]`, `[7,null]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, "a.vue")
			if err := os.WriteFile(file, []byte("<template></template>\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			connect := func(cfg ServerConfig, root string) (ServerConn, error) {
				client, server := net.Pipe()
				s := &notifServer{Conn: client, params: tc.params, answer: make(chan json.RawMessage, 1), done: make(chan struct{})}
				c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(server, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(s))
				go func() {
					<-c.DisconnectNotify()
					close(s.done)
				}()
				return s, nil
			}
			m, err := NewManager(Options{Roots: []string{root}, Connect: connect, MaxWatchedDirs: -1,
				Servers: []ServerConfig{{Name: "vue", Command: "vue-in-process", Extensions: []string{"vue"}, Language: "vue",
					Quirks: Quirks{NotificationRequests: map[string]string{"tsserver/request": "tsserver/response"}}}},
				Timeouts: Timeouts{Request: Duration(10 * time.Second), Shutdown: Duration(time.Second), Idle: Duration(-1)}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background())
			a, err := m.Ask(t.Context(), file, "textDocument/hover", json.RawMessage(`{"textDocument":{"uri":"`+edit.URIFromPath(file)+`"},"position":{"line":0,"character":1}}`))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Contents string `json:"contents"`
			}
			if err := decode(a.Result, &got); err != nil {
				t.Fatal(err)
			}
			if strings.ReplaceAll(got.Contents, " ", "") != tc.want {
				t.Errorf("the server got %s back, want %s", got.Contents, tc.want)
			}
		})
	}
}
