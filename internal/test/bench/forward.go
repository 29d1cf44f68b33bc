package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/forwardbench"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// ForwardResult holds the ACP forwarding rows (internal/test/forwardbench):
// direct, wrapper, conductor with two identity proxies, and the chain in
// process with 0 and 2 identity components.
type ForwardResult struct {
	Results    forwardbench.Results
	Messages   int
	RoundTrips int
}

// forwardRows builds the acp-lsp binary into the cache and runs
// internal/test/forwardbench over every mode.
func forwardRows(ctx context.Context, cache string, quick bool) (*ForwardResult, error) {
	bin := filepath.Join(cache, "acp-lsp")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/acp-lsp")
	build.Dir = peers.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build acp-lsp: %w: %s", err, out)
	}
	opts := forwardbench.Options{Binary: bin, Dir: cache}
	if quick {
		opts.Messages, opts.RoundTrips = 20_000, 1_000
	}
	res, err := forwardbench.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	f := &ForwardResult{Results: res, Messages: opts.Messages, RoundTrips: opts.RoundTrips}
	if f.Messages == 0 {
		f.Messages, f.RoundTrips = 1_000_000, 20_000
	}
	return f, nil
}

func (f *ForwardResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### ACP forwarding (internal/test/forwardbench)\n\n")
	p("Same client, same agent process (sed for round trips, a yes|head stream of %d session/update lines), connected directly and through acp-lsp. ", f.Messages)
	p("Round trips: %d timed small requests. Memory: resident set of the acp-lsp processes (process modes) or Go heap growth (in-process modes) at a tenth of the stream and at its end.\n\n", f.RoundTrips)
	p("| Mode | round trip p50 | p99 | p50 vs direct | session/update throughput | vs direct | acp-lsp CPU per message | memory at 1/10 → end (peak) |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range f.Results.Results {
		rp50, thr := "", ""
		if p50, _, t, ok := f.Results.Ratio(r.Mode); ok && r.Mode != forwardbench.ModeDirect {
			rp50, thr = fmt.Sprintf("%.2f×", p50), fmt.Sprintf("%.2f×", t)
		}
		mem := "–"
		if r.MemKind != "" {
			mem = fmt.Sprintf("%s %.1f → %.1f MiB (%.1f)", r.MemKind, mib(r.MemAtTenth), mib(r.MemAtEnd), mib(r.MemPeak))
		}
		cpu := "–"
		if r.CPUPerMsg > 0 {
			cpu = fmt.Sprintf("%.2f µs", micros(r.CPUPerMsg))
		}
		p("| %s | %s | %s | %s | %.0f msg/s (%.1f MB/s) | %s | %s | %s |\n", r.Mode, fmtMicro(r.P50), fmtMicro(r.P99), rp50, r.MsgsPerSec, r.MBPerSec, thr, cpu, mem)
	}
	if goals := f.goals(); len(goals) > 0 {
		p("\nGoals:\n\n")
		for _, g := range goals {
			p("- %s\n", g)
		}
	}
}

// goals evaluates issue 3's goals on the rows: the wrapper's round trip
// p50 within 2.2× direct (two extra pipe hops make 2× the floor), its
// throughput at least 0.8× direct, its CPU per message at most a quarter
// of one encoding/json decode of the message measured in the same run,
// and every process mode's memory flat over the stream.
func (f *ForwardResult) goals() []string {
	var out []string
	if p50, _, thr, ok := f.Results.Ratio(forwardbench.ModeWrapper); ok {
		out = append(out,
			fmt.Sprintf("wrapper round trip p50 ≤ 2.2× direct: %.2f× — %s", p50, verdict(p50 <= 2.2)),
			fmt.Sprintf("wrapper session/update throughput ≥ 0.8× direct: %.2f× — %s", thr, verdict(thr >= 0.8)))
	}
	if w, ok := f.Results.Get(forwardbench.ModeWrapper); ok && w.CPUPerMsg > 0 && f.Results.DecodePerMsg > 0 {
		x := float64(w.CPUPerMsg) / float64(f.Results.DecodePerMsg)
		out = append(out, fmt.Sprintf("wrapper CPU per message ≤ 0.25× one encoding/json decode of it (%.2f µs here): %.2f µs = %.2f× — %s",
			micros(f.Results.DecodePerMsg), micros(w.CPUPerMsg), x, verdict(x <= 0.25)))
	}
	for _, r := range f.Results.Results {
		if r.MemKind != "rss" {
			continue
		}
		// Flat: the end within 10 % (or 2 MiB, the runtime's own
		// granularity) of the tenth, as the scale rows judge the heap.
		grow := r.MemAtEnd - r.MemAtTenth
		out = append(out, fmt.Sprintf("%s memory flat over the stream: rss %.1f → %.1f MiB — %s",
			r.Mode, mib(r.MemAtTenth), mib(r.MemAtEnd), verdict(float64(grow) <= max(0.1*float64(r.MemAtTenth), 2<<20))))
	}
	return out
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func fmtMicro(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
