package conductor

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// xstep is one line the client ('c') or the agent ('a') sends, or the
// line it expects next.
type xstep struct {
	side       byte
	send, want string
}

// runExternal runs client ⇄ External(argv) ⇄ agent, both ends scripted.
func runExternal(t *testing.T, argv []string, steps []xstep) {
	t.Helper()
	cInR, cInW := io.Pipe()
	cOutR, cOutW := io.Pipe()
	aInR, aInW := io.Pipe()
	aOutR, aOutW := io.Pipe()
	x := NewExternal("proxy 1", argv, FamilyPlain, proxy.ProcessOptions{})
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	defer x.Stop(time.Second)
	chain := proxy.NewChain(proxy.Config{
		Client: proxy.NewStream(cInR, cOutW, proxy.StreamOptions{Name: "client"}),
		Agent:  proxy.NewStream(aInR, aOutW, proxy.StreamOptions{Name: "agent"}),
		Stages: []proxy.Stage{x},
		Drain:  time.Hour,
	})
	done := make(chan error, 1)
	go func() { done <- chain.Run(t.Context()) }()
	in := map[byte]io.Writer{'c': cInW, 'a': aInW}
	out := map[byte]chan string{'c': lines(cOutR), 'a': lines(aOutR)}
	for _, s := range steps {
		if s.send != "" {
			io.WriteString(in[s.side], s.send+"\n")
			continue
		}
		var got string
		select {
		case got = <-out[s.side]:
		case <-time.After(10 * time.Second):
			// A bound, not a wait: a lost message fails here rather
			// than at the test binary's timeout.
			got = "nothing"
		}
		if got != s.want {
			t.Errorf("%c got %s\nwant %s", s.side, got, s.want)
			break
		}
	}
	cInW.Close()
	aInW.Close()
	if err := <-done; err != nil {
		t.Log(err)
	}
	cOutR.Close()
	aOutR.Close()
}

// lines reads r's lines into a channel until r ends.
func lines(r io.Reader) chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// TestExternalThroughCat runs client ⇄ External ⇄ agent with cat as the
// proxy process: what External writes to the process comes back as what
// the process sends, so each side sees exactly what External wrote.
func TestExternalThroughCat(t *testing.T) {
	tests := []struct {
		name  string
		steps []xstep
	}{
		{
			// The agent's request 0 is in the process when the client's
			// request 0 comes: its id is replaced, nothing else changes.
			name: "colliding client request keeps its other bytes",
			steps: []xstep{
				{side: 'a', send: `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}`},
				{side: 'a', want: `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}`},
				{side: 'c', send: `{"params":{"sessionId":"s"},"method":"session/prompt","id":0,"jsonrpc":"2.0","_x":{"y":[1]}}`},
				{side: 'c', want: `{"params":{"sessionId":"s"},"method":"session/prompt","id":2199023255553,"jsonrpc":"2.0","_x":{"y":[1]}}`},
			},
		},
		{
			// The client cancels its request 0, which went to the process
			// as 2199023255553, while a request the process sent toward
			// the agent has id 0 too: the cancel goes to the process under
			// the id it knows, and never to the agent.
			name: "client cancel with an id the process also uses",
			steps: []xstep{
				{side: 'a', send: `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}`},
				{side: 'a', want: `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}`},
				{side: 'c', send: `{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{}}`},
				{side: 'c', want: `{"jsonrpc":"2.0","id":2199023255553,"method":"session/prompt","params":{}}`},
				{side: 'c', send: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":0}}`},
				{side: 'c', want: `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2199023255553}}`},
				{side: 'a', send: `{"jsonrpc":"2.0","method":"_after"}`},
				{side: 'a', want: `{"jsonrpc":"2.0","method":"_after"}`},
			},
		},
		{
			// A barrier marker that is not this External's (e.g. the
			// marker of a conductor this chain is nested in) is forwarded
			// like any notification, both ways.
			name: "foreign barrier marker is forwarded",
			steps: []xstep{
				{side: 'c', send: `{"jsonrpc":"2.0","method":"_acp_lsp/barrier","params":{"n":"1"}}`},
				{side: 'c', send: `{"jsonrpc":"2.0","method":"_after"}`},
				{side: 'c', want: `{"jsonrpc":"2.0","method":"_acp_lsp/barrier","params":{"n":"1"}}`},
				{side: 'c', want: `{"jsonrpc":"2.0","method":"_after"}`},
				{side: 'a', send: `{"jsonrpc":"2.0","method":"_acp_lsp/barrier","params":{"n":"1"}}`},
				{side: 'a', send: `{"jsonrpc":"2.0","method":"_after"}`},
				{side: 'a', want: `{"jsonrpc":"2.0","method":"_acp_lsp/barrier","params":{"n":"1"}}`},
				{side: 'a', want: `{"jsonrpc":"2.0","method":"_after"}`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runExternal(t, []string{"cat"}, tt.steps) })
	}
}
