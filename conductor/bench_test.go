package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// benchModes are the three set-ups compared: the agent alone, behind the
// wrapper, and behind the conductor with two identity proxies.
func benchModes(agent string) map[string][]string {
	return map[string][]string{
		"direct":             {agent},
		"wrapper":            {bin.acplsp, "-log-level", "error", "--", agent},
		"conductor-2proxies": {bin.acplsp, "conductor", "-log-level", "error", "--proxy", bin.acplsp + " proxy", "--proxy", bin.acplsp + " proxy", "--", agent},
	}
}

// startTimed is startPiped for a benchmark: stop closes the input, ends
// the process group and returns the CPU time the process used.
func startTimed(b *testing.B, argv []string) (io.WriteCloser, *proxy.LineReader, func() time.Duration) {
	p := startPiped(b, argv...)
	stop := func() time.Duration {
		p.in.Close()
		p.stop()
		if p.cmd.ProcessState == nil {
			return 0
		}
		return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	}
	return p.in, p.lr, stop
}

// BenchmarkRoundTrip sends a small request and waits for it to come back
// (the agent is cat, so it travels editor → agent → editor).
func BenchmarkRoundTrip(b *testing.B) {
	for _, mode := range []string{"direct", "wrapper", "conductor-2proxies"} {
		b.Run(mode, func(b *testing.B) {
			in, lr, stop := startTimed(b, benchModes("cat")[mode])
			defer stop()
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				t0 := time.Now()
				fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"_bench/ping","params":{"sessionId":"s"}}`+"\n", i)
				if _, err := lr.ReadLine(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkUpdateStream has the agent write 1,000,000 session/update
// notifications; the client decodes every one, as an editor does.
// It reports messages per second and the CPU time of acp-lsp's processes
// per message (children of the measured process excluded for direct).
func BenchmarkUpdateStream(b *testing.B) {
	const n = 1_000_000
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_abc123def456","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_1","content":{"type":"text","text":"Here is the change you asked for: the function now returns early when the slice is empty."}}}}`
	gen := filepath.Join(bin.dir, "gen-updates")
	script := "#!/bin/sh\nyes '" + line + "' | head -n " + strconv.Itoa(n) + "\nexec sleep 60\n"
	if err := os.WriteFile(gen, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	var decodeNs float64
	{
		t0 := time.Now()
		for range 100000 {
			var v any
			json.Unmarshal([]byte(line), &v)
		}
		decodeNs = float64(time.Since(t0).Nanoseconds()) / 100000
	}
	for _, mode := range []string{"direct", "wrapper", "conductor-2proxies"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				_, lr, stop := startTimed(b, benchModes(gen)[mode])
				var ms0, ms1 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				t0 := time.Now()
				for range n {
					l, err := lr.ReadLine()
					if err != nil {
						b.Fatal(err)
					}
					var v any
					if err := json.Unmarshal(l, &v); err != nil {
						b.Fatal(err)
					}
				}
				el := time.Since(t0)
				runtime.ReadMemStats(&ms1)
				cpu := stop()
				b.ReportMetric(float64(n)/el.Seconds(), "msgs/s")
				if mode != "direct" {
					// acp-lsp's own CPU (the generator runs in another process group
					// member, whose time is not in acp-lsp's rusage once killed).
					b.ReportMetric(float64(cpu.Nanoseconds())/n, "acplsp-cpu-ns/msg")
					b.ReportMetric(float64(cpu.Nanoseconds())/n/decodeNs, "cpu-vs-decode")
				}
			}
		})
	}
}

// BenchmarkProxyModeStream is the cost per session/update in proxy mode
// (acp-lsp proxy), in process: wrapped successor notifications arrive on
// the conductor connection, are unwrapped, pass the chain and go out plain.
func BenchmarkProxyModeStream(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":{"sessionId":"sess_abc123def456","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_1","content":{"type":"text","text":"Here is the change you asked for: the function now returns early when the slice is empty."}}}}}` + "\n")
	pc := NewProxyConn(&benchLines{line: line, n: b.N}, io.Discard, nil, 0)
	chain := proxy.NewChain(proxy.Config{Client: pc.Client(), Agent: pc.Successor(), Drain: time.Hour})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	if err := chain.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	pc.Wait()
}

// benchLines reads as n copies of line, whole lines per read.
type benchLines struct {
	line []byte
	n    int
}

func (l *benchLines) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for l.n > 0 && len(p)-k >= len(l.line) {
		k += copy(p[k:], l.line)
		l.n--
	}
	return k, nil
}
