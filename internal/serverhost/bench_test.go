package serverhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// BenchmarkWarmHoverHost compares a warm gopls hover asked of a Manager in
// this process with the same hover through the shared server host: a host
// process of its own ("host", what an acp-lsp process gets) and a host in
// this process ("host-here", whose both sides a -cpuprofile sees). The
// sub-benchmarks run one after another, so load that comes and goes on a
// shared machine lands on some and not others; "paired" asks the two,
// in process and through a host process, call for call, and reports
// their medians, the ratio, and the host process's CPU time per call.
// Each reports the CPU time per call of the bench process (cpu-µs/op)
// and of a host process (host-cpu-µs/op), less bent by load than the
// wall time.
//
//	go test -run XXX -bench WarmHoverHost -benchtime 300x ./internal/serverhost/
func BenchmarkWarmHoverHost(b *testing.B) {
	peers.Require(b, "gopls")
	root, file := goWorkspace(b)
	opts := lsp.Options{Roots: []string{root}, Env: peers.Env()}
	params := json.RawMessage(`{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"},"position":{"line":3,"character":5}}`)
	type asker interface {
		Request(ctx context.Context, path, method string, params json.RawMessage) (json.RawMessage, error)
		Close(ctx context.Context) error
	}
	cases := []struct {
		name string
		make func(b *testing.B) asker
	}{
		{"in-process", func(b *testing.B) asker {
			m, err := lsp.NewManager(opts)
			must(b, err)
			return m
		}},
		{"host", func(b *testing.B) asker {
			c, err := NewClient(opts, Config{Dir: hostDir(b), Idle: -1})
			must(b, err)
			return c
		}},
		{"host-here", func(b *testing.B) asker {
			dir, id := hostDir(b), "bench00000000000"
			serveHere(b, dir, id)
			c, err := NewClient(opts, Config{Dir: dir, Identity: id})
			must(b, err)
			return c
		}},
	}
	ctx := context.Background()
	b.Run("paired", func(b *testing.B) {
		m, err := lsp.NewManager(opts)
		must(b, err)
		b.Cleanup(func() { m.Close(ctx) })
		c, err := NewClient(opts, Config{Dir: hostDir(b), Idle: -1})
		must(b, err)
		b.Cleanup(func() { c.Close(ctx) })
		askers := []asker{m, c}
		for _, a := range askers {
			if res, err := a.Request(ctx, file, "textDocument/hover", params); err != nil || len(res) < 10 {
				b.Fatalf("first hover: %s, %v", res, err)
			}
		}
		st, err := c.Status(ctx, 0)
		must(b, err)
		var took [2][]time.Duration
		cpu0 := cpuTime(b, st.PID)
		for b.Loop() {
			for i, a := range askers {
				t0 := time.Now()
				if _, err := a.Request(ctx, file, "textDocument/hover", params); err != nil {
					b.Fatal(err)
				}
				took[i] = append(took[i], time.Since(t0))
			}
		}
		cpu := cpuTime(b, st.PID) - cpu0
		in, host := medianOf(took[0]), medianOf(took[1])
		b.ReportMetric(float64(in.Microseconds()), "in-process-µs")
		b.ReportMetric(float64(host.Microseconds()), "host-µs")
		b.ReportMetric(float64(host)/float64(in), "x")
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(took[1])), "host-cpu-µs/op")
	})
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			a := tc.make(b)
			b.Cleanup(func() { a.Close(ctx) })
			if res, err := a.Request(ctx, file, "textDocument/hover", params); err != nil || len(res) < 10 {
				b.Fatalf("first hover: %s, %v", res, err)
			}
			// The CPU time per call of this process and of a host process.
			self, hostPID := os.Getpid(), 0
			if c, ok := a.(*Client); ok {
				st, err := c.Status(ctx, 0)
				must(b, err)
				hostPID = st.PID
			}
			cpu0, hostCPU0 := cpuTime(b, self), time.Duration(0)
			if hostPID != self && hostPID != 0 {
				hostCPU0 = cpuTime(b, hostPID)
			}
			for b.Loop() {
				if _, err := a.Request(ctx, file, "textDocument/hover", params); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime(b, self)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			if hostPID != self && hostPID != 0 {
				b.ReportMetric(float64((cpuTime(b, hostPID)-hostCPU0).Microseconds())/float64(b.N), "host-cpu-µs/op")
			}
		})
	}
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}

// cpuTime is the CPU time of process pid's threads so far
// (/proc/PID/task/*/schedstat, nanoseconds on the CPU).
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(stats) == 0 {
		b.Fatalf("schedstat of %d: %v", pid, err)
	}
	var sum time.Duration
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		var ns int64
		fmt.Sscan(string(data), &ns)
		sum += time.Duration(ns)
	}
	return sum
}
