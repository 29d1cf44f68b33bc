package forwardbench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunShort runs every mode with a short stream against a freshly built
// acp-lsp and checks that each figure was measured and is plausible.
func TestRunShort(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "acp-lsp")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/acp-lsp/acp-lsp/cmd/acp-lsp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Binary: bin, Messages: 3000, RoundTrips: 200, Repeat: 2, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != len(AllModes) {
		t.Fatalf("got %d results, want %d", len(res.Results), len(AllModes))
	}
	for i, r := range res.Results {
		if r.Mode != AllModes[i] || r.Runs != 2 {
			t.Errorf("result %d is %s (%d runs), want %s (2 runs)", i, r.Mode, r.Runs, AllModes[i])
		}
		if r.P50 <= 0 || r.P99 < r.P50 || r.RoundTrips != 200 {
			t.Errorf("%s: round trips %d p50 %v p99 %v", r.Mode, r.RoundTrips, r.P50, r.P99)
		}
		if r.Messages != 3000 || r.Elapsed <= 0 || r.MsgsPerSec <= 0 || r.MBPerSec <= 0 || r.MessageSize != len(DefaultUpdate)+1 {
			t.Errorf("%s: stream %+v", r.Mode, r)
		}
		switch {
		case r.Mode.IsProcess():
			// Every acp-lsp process was found: a Go binary is resident in
			// megabytes.
			if r.MemKind != "rss" || r.MemAtEnd < 1<<20 || r.MemPeak < r.MemAtEnd/2 {
				t.Errorf("%s: memory %s %d/%d/%d", r.Mode, r.MemKind, r.MemAtTenth, r.MemAtEnd, r.MemPeak)
			}
		case r.Mode == ModeDirect:
			if r.MemKind != "" || r.CPUPerMsg != 0 {
				t.Errorf("direct: memory %q cpu %v, want none", r.MemKind, r.CPUPerMsg)
			}
		default:
			if r.MemKind != "go-heap" {
				t.Errorf("%s: memory kind %q", r.Mode, r.MemKind)
			}
		}
	}
	if res.DecodePerMsg <= 0 {
		t.Errorf("decode cost not measured")
	}
	if _, _, thr, ok := res.Ratio(ModeWrapper); !ok || thr <= 0 {
		t.Errorf("Ratio(wrapper): %v %v", thr, ok)
	}
	proctest.NoLeftovers(t, dir, 5*time.Second)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("generator script left behind: %v", ents)
	}
}

func TestOptionsRefused(t *testing.T) {
	for name, o := range map[string]Options{
		"process mode without binary": {Modes: []Mode{ModeWrapper}},
		"unknown mode":                {Modes: []Mode{"bogus"}},
		"update with a quote":         {Update: `{"a":"it's"}`},
		"update not JSON":             {Update: `{`},
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

var (
	flagBinary   = flag.String("binary", "", "acp-lsp binary for BenchmarkForwarding (built from this tree when empty)")
	flagMessages = flag.Int("messages", 1_000_000, "stream length for BenchmarkForwarding")
	flagRounds   = flag.Int("roundtrips", 20_000, "round trips for BenchmarkForwarding")
	flagModes    = flag.String("modes", "", "comma-separated modes for BenchmarkForwarding (all when empty)")
	flagRepeat   = flag.Int("repeat", 1, "runs per mode for BenchmarkForwarding (medians reported)")
)

// BenchmarkForwarding is the full comparison (issue 7, "ACP forwarding"):
//
//	go test -run XXX -bench Forwarding -benchtime 1x ./internal/test/forwardbench [-args -messages N -binary PATH]
//
// It prints the Markdown table and reports the wrapper's ratios.
func BenchmarkForwarding(b *testing.B) {
	bin := *flagBinary
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "acp-lsp")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/acp-lsp/acp-lsp/cmd/acp-lsp").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	var modes []Mode
	if *flagModes != "" {
		for _, m := range strings.Split(*flagModes, ",") {
			modes = append(modes, Mode(m))
		}
	}
	for b.Loop() {
		res, err := Run(context.Background(), Options{Binary: bin, Modes: modes, Messages: *flagMessages, RoundTrips: *flagRounds, Repeat: *flagRepeat, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		fmt.Print(res.Markdown())
		if p50, p99, thr, ok := res.Ratio(ModeWrapper); ok {
			b.ReportMetric(p50, "wrapper-p50-x")
			b.ReportMetric(p99, "wrapper-p99-x")
			b.ReportMetric(thr, "wrapper-throughput-x")
		}
	}
}
