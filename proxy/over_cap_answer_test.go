package proxy

import (
	"strings"
	"testing"
	"time"
)

// TestOverCapMessageAnswered: a message over the size cap is dropped, but
// what its first bytes say of it is not: a request gets its error under
// its own id, and an answer becomes an error answer, so the request it
// answered does not wait for good (found by review after issue 18: an
// agent's answer over -max-message-mib left the editor's request pending
// forever).
func TestOverCapMessageAnswered(t *testing.T) {
	const max = 4 << 10
	big := strings.Repeat("x", 2*max)
	tests := []struct {
		name string
		// from is the side the message over the cap comes from; first,
		// when set, is a request the other side sends before it.
		from, first string
		line        string
		// to is the side that must get want (a substring).
		to, want string
	}{
		{
			name: "the agent's answer", from: "agent",
			first: `{"jsonrpc":"2.0","id":7,"method":"_x/ask","params":{}}`,
			line:  `{"jsonrpc":"2.0","id":7,"result":{"s":"` + big + `"}}`,
			to:    "client", want: `"id":7,"error":{"code":-32603,"message":"the agent's answer was over the size cap`,
		},
		{
			name: "the editor's answer", from: "client",
			first: `{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{}}`,
			line:  `{"jsonrpc":"2.0","id":"p","result":{"s":"` + big + `"}}`,
			to:    "agent", want: `"id":"p","error":{"code":-32603,"message":"the client's answer was over the size cap`,
		},
		{
			name: "the editor's request", from: "client",
			line: `{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"s":"` + big + `"}}`,
			to:   "client", want: `"id":12,"error":{"code":-32600,"message":"read line: line too long`,
		},
		{
			name: "the editor's request, id after the cut", from: "client",
			line: `{"jsonrpc":"2.0","method":"session/prompt","params":{"s":"` + big + `"},"id":12}`,
			to:   "client", want: `"id":null,"error":{"code":-32600,"message":"read line: line too long`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startChainSetUp(t, nil, func(c *Chain) {
				for i, n := range []*node{c.nodes[0], c.nodes[len(c.nodes)-1]} {
					s := n.comp.(*endComp).ep.(*Stream)
					s.lr.max = max
					s.opts.Name = [...]string{"client", "agent"}[i]
				}
			})
			side := map[string]*peer{"client": h.client, "agent": h.agent}
			from, other := side[tt.from], h.agent
			if tt.from == "agent" {
				other = h.client
			}
			if tt.first != "" {
				other.send(t, tt.first)
				if got := from.recvWithin(t, time.Minute, "the request"); !strings.Contains(got, tt.first[len(`{"jsonrpc":"2.0",`):len(`{"jsonrpc":"2.0","id":`)+3]) {
					t.Fatalf("%s got %s", tt.from, got)
				}
			}
			from.send(t, tt.line)
			if got := side[tt.to].recvWithin(t, time.Minute, "the error"); !strings.Contains(got, tt.want) {
				t.Fatalf("%s got %s, want %s", tt.to, got, tt.want)
			}
		})
	}
}

// FuzzScanHead: for any bytes, ScanHead returns; for a whole message it
// finds the id Parse finds, and for any cut of one, an id it reports is
// the message's own.
func FuzzScanHead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"s":"x"}}`,
		`{"id":"a\"b","method":"m","params":[1,{"k":null}]}`,
		`{"method":"m","params":{},"id":-1.5e3}`,
		`{"id":null,"error":{"code":1,"message":"m"}}`,
		`  {"jsonrpc" : "2.0" , "id" : 12 }`,
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Add([]byte(`{"id":123,"result":1}`), uint16(8)) // cut inside the id
	f.Fuzz(func(t *testing.T, b []byte, cut uint16) {
		h := ScanHead(b)
		m, err := Parse(b)
		if err != nil || m.ID == nil || string(m.ID) == "null" {
			return
		}
		if string(h.ID) != string(m.ID) {
			t.Fatalf("ScanHead id %s, Parse id %s", h.ID, m.ID)
		}
		c := ScanHead(b[:int(cut)%(len(b)+1)])
		if c.ID != nil && string(c.ID) != string(m.ID) {
			t.Fatalf("a cut gave id %s, the message's is %s", c.ID, m.ID)
		}
	})
}
