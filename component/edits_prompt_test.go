package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// formatted is the canned formatting answer of these tests: a comment
// inserted at the top of the file.
const formatted = `[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"// formatted\n"}]`

// toolReply is the answer to a tool call made on another goroutine.
type toolReply struct {
	text  string
	isErr bool
}

// goCall calls the lsp tool with args on its own goroutine; the answer
// (or the call's failure, as an error answer) comes on the channel.
func goCall(cs *mcp.ClientSession, args map[string]any) <-chan toolReply {
	ch := make(chan toolReply, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: args})
		if err != nil {
			ch <- toolReply{err.Error(), true}
			return
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		ch <- toolReply{b.String(), res.IsError}
	}()
	return ch
}

// prompt is one permission request the test's user has in front of them.
type prompt struct {
	sid    string
	answer chan bool
}

// promptingUser returns an AskPermission whose prompts come out of the
// channel for the test to answer, or never answer.
func promptingUser() (PermissionFunc, <-chan prompt) {
	prompts := make(chan prompt)
	return func(ctx context.Context, sid, title, diff string) (bool, error) {
		p := prompt{sid, make(chan bool, 1)}
		select {
		case prompts <- p:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		select {
		case ok := <-p.answer:
			return ok, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}, prompts
}

// TestPendingPromptBlocksNoEdit: a permission prompt the user has not
// answered holds nothing up. While session 1's prompt is pending, session
// 2, in another workspace, applies an edit; a second call in session 1's
// own workspace gets to its own prompt and, allowed, applies; the first,
// allowed last, finds the file changed since it was shown and is refused.
func TestPendingPromptBlocksNoEdit(t *testing.T) {
	ask, prompts := promptingUser()
	c, s1, fb, cs1 := setup(t, Config{AskPermission: ask})
	fb.set("textDocument/formatting", formatted)
	root2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(root2, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := c.NewSession(root2)
	if err != nil {
		t.Fatal(err)
	}
	cs2 := connect(t, s2)
	c.Bind(s1, "S1")
	c.Bind(s2, "S2")
	format := map[string]any{"action": "format", "file": "main.go", "apply": true}

	first := goCall(cs1, format)
	p1 := <-prompts
	second := goCall(cs2, format)
	p2 := <-prompts
	if p1.sid != "S1" || p2.sid != "S2" {
		t.Fatalf("prompts of %s, %s; want S1, S2", p1.sid, p2.sid)
	}
	p2.answer <- true
	if r := <-second; r.isErr || !strings.Contains(r.text, "applied") {
		t.Errorf("session 2's edit while session 1's prompt is pending: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root2, "main.go")); string(b) != "// formatted\n"+mainGo {
		t.Errorf("session 2's main.go:\n%s", b)
	}

	third := goCall(cs1, format)
	p3 := <-prompts
	if p3.sid != "S1" {
		t.Fatalf("prompt of %s; want S1's second", p3.sid)
	}
	p3.answer <- true
	if r := <-third; r.isErr || !strings.Contains(r.text, "applied") {
		t.Errorf("second edit in session 1's workspace: %+v", r)
	}
	p1.answer <- true
	if r := <-first; !r.isErr || !strings.Contains(r.text, "changed after the edit was computed") {
		t.Errorf("first edit allowed after the file changed: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(s1.Root, "main.go")); string(b) != "// formatted\n"+mainGo {
		t.Errorf("session 1's main.go:\n%s", b)
	}
}

// hopHolder gives a Stage the hop of the chain it sits in without
// starting the Stage's listeners (network, which a synctest bubble cannot
// wait on): its permission requests then travel that chain.
type hopHolder struct {
	proxy.Identity
	st *Stage
}

// Run implements proxy.Runner.
func (h hopHolder) Run(ctx context.Context, hop *proxy.Hop) error {
	h.st.setHop(hop)
	<-ctx.Done()
	return nil
}

// TestPermissionWaitBound: a permission request the editor never answers
// ends after Config.PermissionWait, in fake time: the call answers that
// permission was not given in time, the editor is sent $/cancel_request
// for the prompt, and nothing is written.
func TestPermissionWaitBound(t *testing.T) {
	st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
	if err != nil {
		t.Fatal(err)
	}
	fb := newFake()
	fb.set("textDocument/formatting", formatted)
	const wait = 7 * time.Minute
	root := t.TempDir()
	path := filepath.Join(root, "main.go")
	if err := os.WriteFile(path, []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	c, s := startSession(t, Config{AskPermission: st.askPermission, PermissionWait: wait}, fb, root)
	c.Bind(s, "S1")

	synctest.Test(t, func(t *testing.T) {
		asked := make(chan acptest.Msg, 1)
		cancelled := make(chan acptest.Msg, 1)
		editor, cep := acptest.New("editor", func(p *acptest.Peer, m acptest.Msg) bool {
			switch m.Method {
			case "session/request_permission":
				asked <- m // and never answered
				return true
			case proxy.MethodCancelRequest:
				cancelled <- m
				return true
			}
			return false
		})
		agent, aep := acptest.New("agent", nil)
		runChain(t, editor, agent, cep, aep, nil, hopHolder{st: st})

		start := time.Now()
		_, err := s.call(context.Background(), Input{Action: "format", File: "main.go", Apply: true})
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "no answer") || !strings.Contains(err.Error(), wait.String()) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("unanswered prompt: %v", err)
		}
		if took != wait {
			t.Errorf("the prompt ended after %v; the bound is %v", took, wait)
		}
		synctest.Wait() // the cancel, sent as the prompt ended, is delivered
		req := <-asked
		var cancel struct {
			ID json.RawMessage `json:"requestId"`
		}
		select {
		case m := <-cancelled:
			json.Unmarshal(m.Params, &cancel)
		default:
		}
		if string(cancel.ID) != string(req.ID) {
			t.Errorf("the editor was sent no $/cancel_request for the prompt %s (got id %s)", req.ID, cancel.ID)
		}
	})
	if b, _ := os.ReadFile(path); string(b) != mainGo {
		t.Errorf("main.go written:\n%s", b)
	}
}

// TestChangedWhileAskingRefused: an edit the user allows after the files
// it would change were changed meanwhile (edited, or a file changed in or
// added to a folder it deletes) is refused, saying why, and nothing of it
// is written; the servers are told of nothing.
func TestChangedWhileAskingRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		// codeAction, when set, is the edit of the code action applied;
		// else main.go is formatted. %s is the gen folder's URI.
		codeAction string
		meanwhile  string // path written during the prompt, relative
	}{
		{"file edited", "", "main.go"},
		{"file changed in a folder deleted", `{"documentChanges":[{"kind":"delete","uri":%q,"options":{"recursive":true}}]}`, "gen/x.go"},
		{"file added to a folder deleted", `{"documentChanges":[{"kind":"delete","uri":%q,"options":{"recursive":true}}]}`, "gen/new.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root string
			mine := "package mine // written while the user was asked\n"
			_, s, fb, cs := setup(t, Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
				return true, os.WriteFile(filepath.Join(root, tc.meanwhile), []byte(mine), 0o644)
			}})
			root = s.Root
			gen := filepath.Join(root, "gen")
			if err := os.MkdirAll(gen, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gen, "x.go"), []byte("package gen\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := map[string]any{"action": "format", "file": "main.go", "apply": true}
			fb.set("textDocument/formatting", formatted)
			if tc.codeAction != "" {
				args = map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1}
				we := strings.Replace(tc.codeAction, "%q", `"`+edit.URIFromPath(gen)+`"`, 1)
				fb.set("textDocument/codeAction", `[{"title":"Remove generated","kind":"source","edit":`+we+`}]`)
			}
			text, isErr := callTool(t, cs, args)
			if !isErr || !strings.Contains(text, "changed after the edit was computed") || !strings.Contains(text, "nothing was changed") {
				t.Errorf("applied over a change made during the prompt: %v %s", isErr, text)
			}
			if b, _ := os.ReadFile(filepath.Join(root, tc.meanwhile)); string(b) != mine {
				t.Errorf("%s written during the prompt is now %q", tc.meanwhile, b)
			}
			if len(fb.changed) != 0 {
				t.Errorf("servers told of changes: %+v", fb.changed)
			}
		})
	}
}
