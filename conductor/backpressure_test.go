package conductor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// fakeProxyEnv makes the test binary a coupled proxy process (see
// runFakeProxy) instead of running tests.
const fakeProxyEnv = "ACPLSP_TEST_FAKE_PROXY"

func maybeFakeProxy() {
	if fam := os.Getenv(fakeProxyEnv); fam != "" {
		os.Exit(runFakeProxy(Family(fam), os.Stdin, os.Stdout))
	}
}

// runFakeProxy is the slowest kind of proxy-chain proxy: one line at a
// time, one unbuffered write per message, on one goroutine, so it reads
// nothing while a write waits (its two directions are coupled, as in any
// proxy that forwards as it reads). It unwraps successor envelopes toward
// the client, wraps everything else from the client toward the agent,
// and answers requests for "_inline" itself, toward where they came from.
func runFakeProxy(fam Family, in io.Reader, out io.Writer) int {
	r := bufio.NewReaderSize(in, 4096)
	write := func(b []byte) bool {
		_, err := out.Write(append(b, '\n'))
		return err == nil
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		m, err := proxy.Parse(line[:len(line)-1])
		if err != nil {
			continue
		}
		switch {
		case m.Method == fam.Successor():
			e, err := ParseEnvelope(m.Params())
			if err != nil {
				continue
			}
			if e.Method == "_inline" && m.Kind == proxy.KindRequest {
				if !write(proxy.NewResponse(m.ID, json.RawMessage(`{"inline":"agent"}`)).Raw) {
					return 1
				}
				continue
			}
			inner := proxy.NewNotification(e.Method, e.Params)
			if m.Kind == proxy.KindRequest {
				inner = proxy.NewRequest(m.ID, e.Method, e.Params)
			}
			if !write(inner.Raw) {
				return 1
			}
		case m.Kind == proxy.KindRequest && m.Method == "_inline":
			if !write(proxy.NewResponse(m.ID, json.RawMessage(`{"inline":"client"}`)).Raw) {
				return 1
			}
		case m.Kind == proxy.KindResponse:
			if !write(m.Raw) {
				return 1
			}
		default:
			env := Envelope{Method: m.Method, Params: m.Params()}.Marshal()
			w := proxy.NewNotification(fam.Successor(), env)
			if m.Kind == proxy.KindRequest {
				w = proxy.NewRequest(m.ID, fam.Successor(), env)
			}
			if !write(w.Raw) {
				return 1
			}
		}
	}
}

// TestBackpressureFullDuplex floods both directions at once through two
// coupled proxy processes (runFakeProxy) in front of a coupled agent
// (sed, echoing every message back), with a client that writes as fast as
// it can and reads more slowly (it decodes each message), and asks the
// first proxy a question it answers inline, toward the client, in the
// middle of the flood. Every echo and the answer must arrive in order
// (no deadlock: a wait cycle between the two proxies would stall the run
// until the test's bound), and what each proxy's output had in the chain
// at once must stay near its budget, not grow with the flood.
func TestBackpressureFullDuplex(t *testing.T) {
	t.Parallel()
	const n = 30000
	b := linkBins(t)
	agent := faultAgent(t, b.dir, "echo-agent", `exec sed -u 's|"_flood"|"_echo"|'`+"\n")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := append(os.Environ(), fakeProxyEnv+"="+string(FamilyPlain))
	var xs []*External
	for i := range 2 {
		x := NewExternal("proxy "+strconv.Itoa(i+1), []string{self}, FamilyPlain, proxy.ProcessOptions{Env: env, Stderr: os.Stderr})
		if err := x.Start(); err != nil {
			t.Fatal(err)
		}
		defer x.Stop(time.Second)
		xs = append(xs, x)
	}
	ag, err := proxy.StartProcess([]string{agent}, proxy.ProcessOptions{Name: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Stop(time.Second)
	chain := proxy.NewChain(proxy.Config{
		Client: proxy.NewStream(inR, outW, proxy.StreamOptions{Name: "client", ReplyParseErrors: true}),
		Agent:  ag,
		Stages: []proxy.Stage{xs[0], xs[1]},
		Drain:  time.Hour,
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer inW.Close()
		w := bufio.NewWriter(inW)
		pad := `"` + strings.Repeat("pad ", 50) + `"`
		for i := range n {
			if i == n/2 {
				w.WriteString(`{"jsonrpc":"2.0","id":"q","method":"_inline","params":{}}` + "\n")
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"_flood","params":{"i":%d,"pad":%s}}`+"\n", i, pad)
		}
		if w.Flush() != nil {
			return
		}
	}()
	got := make(chan error, 1)
	go func() {
		lr := proxy.NewLineReader(outR, 0)
		next, inline := 0, false
		for next < n || !inline {
			line, err := lr.ReadLine()
			if err != nil {
				got <- fmt.Errorf("read after %d echoes (inline answer: %v): %w", next, inline, err)
				return
			}
			var v struct {
				ID     json.RawMessage
				Method string
				Params struct{ I int }
				Result struct{ Inline string }
			}
			if err := json.Unmarshal(line, &v); err != nil {
				got <- fmt.Errorf("decode %s: %w", line, err)
				return
			}
			switch {
			case string(v.ID) == `"q"` && v.Result.Inline == "client":
				inline = true
			case v.Method == "_echo" && v.Params.I == next:
				next++
			default:
				got <- fmt.Errorf("after %d echoes: unexpected %s", next, line)
				return
			}
		}
		got <- nil
		io.Copy(io.Discard, outR)
	}()
	done := make(chan error, 1)
	go func() { done <- chain.Run(t.Context()) }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("stuck: the flood did not get through (deadlock)")
	}
	wg.Wait() // the client's input ended: the chain ends
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outR.Close()
	for i, x := range xs {
		for d, name := range []string{"toward the client", "toward the agent"} {
			pb, pn := x.budget[d].Peak()
			t.Logf("proxy %d, %s: peak %d messages, %d bytes", i+1, name, pn, pb)
			// The budget plus what a proxy and two pipes hold; without
			// backpressure the flood piles up here (thousands).
			if pn > budgetCount+1500 {
				t.Errorf("proxy %d, %s: %d messages held at once, budget %d", i+1, name, pn, budgetCount)
			}
		}
	}
}
