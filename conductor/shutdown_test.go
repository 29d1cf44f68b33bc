package conductor

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestClientEOFEndsOnEvents: a piped, one-shot client writes requests and
// closes its input; through two external proxies it gets every answer, and
// the chain ends because the end of input traveled through each proxy
// (barrier markers), the agent exited and its output came back: the drain
// bound and the stop grace are an hour, so waiting for a timer would never
// end (the test's deadline fails it instead).
func TestClientEOFEndsOnEvents(t *testing.T) {
	t.Parallel()
	b := linkBins(t)
	agent := faultAgent(t, b.dir, "answer-agent", `exec sed -u 's|"method":"_ping","params"|"result"|'`+"\n")
	for _, fam := range []Family{FamilyPlain, FamilyUnderscore} {
		t.Run(string(fam), func(t *testing.T) {
			var in bytes.Buffer
			for _, id := range []string{"1", `"two"`, "0"} {
				in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"_ping","params":{"x":` + id + `}}` + "\n")
			}
			in.WriteString(`{"jsonrpc":"2.0","method":"_note","params":{}}` + "\n")
			var out bytes.Buffer
			proxyCmd := []string{b.acplsp, "proxy", "-no-lsp", "-log-level", "error"}
			opts := Options{
				Agent:   []string{agent},
				Proxies: []Proxy{{Command: proxyCmd}, {Command: proxyCmd}},
				Family:  fam,
				In:      io.NopCloser(&in),
				Out:     &out,
				Drain:   time.Hour,
				Grace:   time.Hour,
			}
			runWithin(t, opts, "the chain waited for a timer after the client's input ended")
			want := []string{
				`{"jsonrpc":"2.0","id":1,"result":{"x":1}}`,
				`{"jsonrpc":"2.0","id":"two","result":{"x":"two"}}`,
				`{"jsonrpc":"2.0","id":0,"result":{"x":0}}`,
				`{"jsonrpc":"2.0","method":"_note","params":{}}`,
			}
			if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("client got\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
			}
		})
	}
}

// TestClientEOFWithASwallowingProxy: a proxy that forwards nothing (so
// the barrier marker never comes back) delays the end of input only by the
// marker's bound, never by the drain bound or the stop grace (an hour).
func TestClientEOFWithASwallowingProxy(t *testing.T) {
	t.Parallel()
	b := linkBins(t)
	agent := faultAgent(t, b.dir, "quiet-agent", "exec cat >/dev/null\n")
	// The shell keeps its stdout (the pipe to acp-lsp) open while cat
	// swallows the input: a proxy that is alive and forwards nothing.
	blackhole := faultAgent(t, b.dir, "blackhole-proxy", "cat >/dev/null\n")
	var out bytes.Buffer
	opts := Options{
		Agent:   []string{agent},
		Proxies: []Proxy{{Command: []string{blackhole}}},
		In:      io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","method":"_note","params":{}}` + "\n")),
		Out:     &out,
		Drain:   time.Hour,
		Grace:   time.Hour,
	}
	runWithin(t, opts, "the chain waited for the drain bound behind a proxy that drops the barrier marker")
	if out.Len() != 0 {
		t.Fatalf("client got %q", out.String())
	}
}

// runWithin runs the chain and fails with stuck if it has not ended within
// two minutes, far below the tests' hour-long drain and grace bounds.
func runWithin(t *testing.T, opts Options, stuck string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal(stuck)
	}
}
