package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ForwardResult holds the ACP forwarding rows: direct, wrapper, and
// conductor with two identity proxies.
type ForwardResult struct {
	Modes        []string
	RoundTripP50 []time.Duration
	RoundTripP99 []time.Duration
	// UpdatesPerSec is session/update throughput per mode.
	UpdatesPerSec []float64
	// HeapGrowth is the growth of the chain's memory over the message run
	// per mode, in bytes.
	HeapGrowth []int64
	Messages   int
	Rows       []string
}

// errNoForwardBench says the forwarding harness is not in the tree yet.
var errNoForwardBench = errors.New("internal/forwardbench is not available in this tree yet; run the proxy/conductor go benchmarks listed under 'Proxy and conductor'")

// forwardRows measures forwarding through internal/forwardbench.
func forwardRows(ctx context.Context, quick bool) (*ForwardResult, error) {
	return nil, errNoForwardBench
}

func (f *ForwardResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### ACP forwarding (direct, wrapper, conductor with two identity proxies)\n\n")
	p("| Mode | round trip p50 | p99 | session/update throughput | memory growth over %d messages |\n|---|---|---|---|---|\n", f.Messages)
	for i, m := range f.Modes {
		p("| %s | %s | %s | %.0f msg/s | %.1f MiB |\n", m, fmtMicro(f.RoundTripP50[i]), fmtMicro(f.RoundTripP99[i]), f.UpdatesPerSec[i], float64(f.HeapGrowth[i])/(1<<20))
	}
}

func fmtMicro(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
