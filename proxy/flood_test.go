package proxy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// floodAgent is the command line of testdata/agents/flood.py, a
// single-threaded agent in another language than Go that never reads
// while it writes.
func floodAgent(t *testing.T) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("the flood agent needs python3: %v", err)
	}
	script, err := filepath.Abs("../testdata/agents/flood.py")
	if err != nil {
		t.Fatal(err)
	}
	return []string{py, script}
}

// passOn is a component with handlers of its own that passes everything
// on; blocking is passOn without the Nonblocking promise, so the reader
// flushes before each of its calls.
type passOn struct{ proxy.Identity }

func (passOn) FromClient(_ context.Context, hop *proxy.Hop, m *proxy.Message) { hop.ToAgent(m) }
func (passOn) FromAgent(_ context.Context, hop *proxy.Hop, m *proxy.Message)  { hop.ToClient(m) }

type blocking struct{}

func (blocking) Name() string                                                   { return "blocking" }
func (blocking) FromClient(_ context.Context, hop *proxy.Hop, m *proxy.Message) { hop.ToAgent(m) }
func (blocking) FromAgent(_ context.Context, hop *proxy.Hop, m *proxy.Message)  { hop.ToClient(m) }

// TestFloodSingleThreadedAgent floods a chain with requests both ways
// through an agent that does not read while its write blocks: the reader
// of the agent's output must never wait on writing to the agent, or both
// wait forever (issue 18, item 1: 1 to 56 answers came back, then
// nothing).
func TestFloodSingleThreadedAgent(t *testing.T) {
	const n = 20000 // 4000 were enough to freeze it
	for _, tc := range []struct {
		name  string
		comps []proxy.Stage
	}{
		{"ends only", nil},
		{"nonblocking components", []proxy.Stage{passOn{}, passOn{}}},
		{"a component that may block", []proxy.Stage{passOn{}, blocking{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agent, err := proxy.StartProcess(floodAgent(t), proxy.ProcessOptions{Name: "agent", Stderr: os.Stderr})
			if err != nil {
				t.Fatal(err)
			}
			defer agent.Stop(time.Second)
			inR, inW, err := os.Pipe() // client → chain
			if err != nil {
				t.Fatal(err)
			}
			outR, outW, err := os.Pipe() // chain → client
			if err != nil {
				t.Fatal(err)
			}
			client := proxy.NewStream(inR, outW, proxy.StreamOptions{Name: "client", ReplyParseErrors: true})
			chain := proxy.NewChain(proxy.Config{Client: client, Agent: agent, Stages: tc.comps})
			done := make(chan error, 1)
			go func() {
				done <- chain.Run(context.Background())
				outW.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := acptest.Flood(ctx, inW, outR, n)
			if err != nil {
				// A chain stuck writing to the agent ends with it.
				agent.Stop(time.Second)
				inR.Close()
				<-done
				t.Fatalf("%+v: %v", res, err)
			}
			if res.AgentAnswers != n {
				t.Errorf("the agent received %d answers to its %d requests", res.AgentAnswers, n)
			}
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
}
