// Package forwardbench measures what acp-lsp costs on the ACP wire: the
// same client and the same agent process, connected directly and through
// acp-lsp in its forwarding set-ups, compared in one run.
//
// For every mode it measures
//   - small-request round trip (p50, p99): the client writes one request,
//     the agent (sed, unbuffered) answers it, the client reads the answer;
//   - session/update throughput: the agent writes Options.Messages
//     session/update notifications as fast as it can, the client reads and
//     decodes every one with encoding/json, as an editor does;
//   - memory while streaming: the resident set (process modes) or the Go
//     heap (in-process modes) at a tenth of the stream and at its end, and
//     the peak resident set;
//   - CPU time acp-lsp spent per streamed message (process modes: every
//     acp-lsp process of the set-up; in-process modes: not separable from
//     the client, so zero).
//
// The agent is the same in every mode (sed for round trips, a shell
// pipeline of yes and head for the stream), so differences are acp-lsp's.
// Run is used by the benchmark command (internal/test/bench) and by a short
// test; it needs Linux (/proc) and sh, sed (GNU, for -u), cat, yes and head on PATH.
package forwardbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Mode is one way of connecting the client to the agent.
type Mode string

// The modes. Process modes run the acp-lsp binary (Options.Binary) the way
// an editor would; in-process modes run proxy.Chain inside the calling
// process between OS pipes, which isolates the chain from process start-up
// and the command-line wiring.
const (
	// ModeDirect connects the client to the agent's stdio: the baseline.
	ModeDirect Mode = "direct"
	// ModeWrapper runs `acp-lsp -no-lsp -log-level error -- AGENT`: the
	// wrapper forwarding only.
	ModeWrapper Mode = "wrapper"
	// ModeConductor runs `acp-lsp conductor` with two external identity
	// proxies (`acp-lsp proxy -no-lsp`) in front of AGENT: three acp-lsp
	// processes.
	ModeConductor Mode = "conductor-2proxies"
	// ModeWrapperLSP runs the default wrapper, `acp-lsp -log-level error
	// -- AGENT`, with the LSP stack in the chain (adapter and lsp tool; no
	// language server starts, as nothing asks). Not in AllModes: it
	// depends on the configuration found where it runs.
	ModeWrapperLSP Mode = "wrapper-lsp"
	// ModeChain runs proxy.Chain with no components in process.
	ModeChain Mode = "inproc-chain"
	// ModeChainIdentities runs proxy.Chain with two proxy.Identity
	// components in process.
	ModeChainIdentities Mode = "inproc-2identities"
)

// AllModes lists the modes Run measures by default, in report order.
var AllModes = []Mode{ModeDirect, ModeWrapper, ModeConductor, ModeChain, ModeChainIdentities}

// IsProcess reports whether the mode runs the acp-lsp binary.
func (m Mode) IsProcess() bool { return m == ModeWrapper || m == ModeConductor || m == ModeWrapperLSP }

// DefaultUpdate is the session/update streamed by default: a 290-byte
// agent_message_chunk, the most frequent message an agent sends.
const DefaultUpdate = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_abc123def456","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_1","content":{"type":"text","text":"Here is the change you asked for: the function now returns early when the slice is empty."}}}}`

// Options configure Run. The zero value, with Binary set, is the full
// benchmark of issue 7 (1,000,000 messages).
type Options struct {
	// Binary is the path of the acp-lsp binary. Required for the process
	// modes; when empty those modes are refused.
	Binary string
	// Modes to run, in this order; nil runs AllModes (without the process
	// modes when Binary is empty).
	Modes []Mode
	// Messages is the length of the session/update stream (default
	// 1,000,000; a test uses a few thousand).
	Messages int
	// RoundTrips is the number of timed round trips (default 20,000),
	// after a warm-up of a tenth as many.
	RoundTrips int
	// Update is the streamed message (DefaultUpdate when empty). It must
	// be one line of JSON without single quotes (it is passed to sh).
	Update string
	// Dir holds the generated agent script (os.TempDir when empty).
	Dir string
	// Env is the environment of the processes (nil inherits).
	Env []string
	// Repeat runs every measurement this many times (default 1), the
	// modes interleaved, and reports each figure's median: on a shared
	// machine, 3 or 5 give figures that hold still.
	Repeat int
}

// Result holds the figures of one mode.
type Result struct {
	Mode Mode
	// Runs is how many runs the figures are the median of.
	Runs int
	// RoundTrips timed; P50 and P99 of their latency.
	RoundTrips int
	P50, P99   time.Duration
	// Messages streamed, how long the client took to read and decode them,
	// and the resulting rates.
	Messages    int
	Elapsed     time.Duration
	MsgsPerSec  float64
	MBPerSec    float64 // payload bytes including newlines, 10^6 per MB
	MessageSize int
	// CPUPerMsg is the user+system CPU time every acp-lsp process of the
	// set-up spent during the stream, per message (process modes only).
	CPUPerMsg time.Duration
	// Memory at a tenth of the stream and at its end, and the peak: the
	// resident set summed over the acp-lsp processes (process modes), or
	// the growth of the calling process's live Go heap since the stream
	// started (in-process modes, read after a collection; Peak is then the
	// larger of the two samples). Flat memory: MemAtEnd ≈ MemAtTenth.
	MemAtTenth, MemAtEnd, MemPeak int64
	// MemKind says which memory was measured: "rss" or "go-heap" (empty
	// for direct).
	MemKind string
}

// Results are the figures of every mode, in the order run.
type Results struct {
	Results []Result
	// DecodePerMsg is what one full encoding/json decode (into any) of the
	// streamed message costs in this process: the yardstick for
	// Result.CPUPerMsg (issue 3 asks acp-lsp for at most a quarter of it).
	DecodePerMsg time.Duration
}

// Get returns the result of mode m.
func (r Results) Get(m Mode) (Result, bool) {
	for _, x := range r.Results {
		if x.Mode == m {
			return x, true
		}
	}
	return Result{}, false
}

// Ratio returns the ratio of mode m's figures to direct's: round-trip p50
// and p99 (higher is worse) and throughput (lower is worse). ok is false
// when either mode is missing.
func (r Results) Ratio(m Mode) (p50, p99, throughput float64, ok bool) {
	d, ok1 := r.Get(ModeDirect)
	x, ok2 := r.Get(m)
	if !ok1 || !ok2 || d.P50 == 0 || d.P99 == 0 || d.MsgsPerSec == 0 {
		return 0, 0, 0, false
	}
	return float64(x.P50) / float64(d.P50), float64(x.P99) / float64(d.P99), x.MsgsPerSec / d.MsgsPerSec, true
}

// Run measures every requested mode one after the other (never in
// parallel, so they do not compete for CPU). It stops at the first error
// or when ctx ends; every process it started is ended before it returns.
func Run(ctx context.Context, opts Options) (Results, error) {
	if opts.Messages <= 0 {
		opts.Messages = 1_000_000
	}
	if opts.RoundTrips <= 0 {
		opts.RoundTrips = 20_000
	}
	if opts.Update == "" {
		opts.Update = DefaultUpdate
	}
	if !json.Valid([]byte(opts.Update)) || slices.Contains([]byte(opts.Update), '\'') || slices.Contains([]byte(opts.Update), '\n') {
		return Results{}, errors.New("forwardbench: Update must be one line of JSON without single quotes")
	}
	modes := opts.Modes
	if modes == nil {
		for _, m := range AllModes {
			if !m.IsProcess() || opts.Binary != "" {
				modes = append(modes, m)
			}
		}
	}
	for _, m := range modes {
		if !slices.Contains(AllModes, m) && m != ModeWrapperLSP {
			return Results{}, fmt.Errorf("forwardbench: unknown mode %q", m)
		}
		if m.IsProcess() && opts.Binary == "" {
			return Results{}, fmt.Errorf("forwardbench: mode %s needs Options.Binary", m)
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	gen, err := writeGenerator(dir)
	if err != nil {
		return Results{}, err
	}
	defer os.Remove(gen)
	// Rounds interleave the modes, so that a burst of load on a shared
	// machine hits them alike; each figure is then the median of its mode.
	runs := make([][]Result, len(modes))
	for range max(opts.Repeat, 1) {
		for i, m := range modes {
			r, err := runMode(ctx, opts, m, gen)
			if err != nil {
				return Results{}, fmt.Errorf("forwardbench %s: %w", m, err)
			}
			runs[i] = append(runs[i], r)
		}
	}
	var res Results
	for _, rs := range runs {
		res.Results = append(res.Results, median(rs))
	}
	res.DecodePerMsg = decodeCost([]byte(opts.Update))
	return res, nil
}

// decodeCost times encoding/json decodes of msg; the best of three rounds,
// as the least disturbed by other work on the machine.
func decodeCost(msg []byte) time.Duration {
	const n = 20000
	best := time.Duration(-1)
	for range 3 {
		t0 := time.Now()
		for range n {
			var v any
			json.Unmarshal(msg, &v)
		}
		if d := time.Since(t0) / n; best < 0 || d < best {
			best = d
		}
	}
	return best
}

// median returns, figure by figure, the median of the runs of one mode.
func median(rs []Result) Result {
	if len(rs) == 1 {
		return rs[0]
	}
	out := rs[0]
	pick := func(get func(Result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	out.P50 = time.Duration(pick(func(r Result) float64 { return float64(r.P50) }))
	out.P99 = time.Duration(pick(func(r Result) float64 { return float64(r.P99) }))
	out.Elapsed = time.Duration(pick(func(r Result) float64 { return float64(r.Elapsed) }))
	out.MsgsPerSec = pick(func(r Result) float64 { return r.MsgsPerSec })
	out.MBPerSec = pick(func(r Result) float64 { return r.MBPerSec })
	out.CPUPerMsg = time.Duration(pick(func(r Result) float64 { return float64(r.CPUPerMsg) }))
	out.MemAtTenth = int64(pick(func(r Result) float64 { return float64(r.MemAtTenth) }))
	out.MemAtEnd = int64(pick(func(r Result) float64 { return float64(r.MemAtEnd) }))
	out.MemPeak = int64(pick(func(r Result) float64 { return float64(r.MemPeak) }))
	out.Runs = len(rs)
	return out
}

// writeGenerator writes the streaming agent: it prints $2 lines of $1,
// then reads its input until EOF so it ends when its client does.
func writeGenerator(dir string) (string, error) {
	f, err := os.CreateTemp(dir, "forwardbench-gen-*.sh")
	if err != nil {
		return "", fmt.Errorf("forwardbench: write agent script: %w", err)
	}
	script := "#!/bin/sh\nyes \"$1\" | head -n \"$2\"\nexec cat >/dev/null\n"
	if _, err := f.WriteString(script); err != nil {
		f.Close()
		return "", fmt.Errorf("forwardbench: write agent script: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("forwardbench: write agent script: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o755); err != nil {
		return "", fmt.Errorf("forwardbench: write agent script: %w", err)
	}
	return f.Name(), nil
}

func runMode(ctx context.Context, opts Options, m Mode, gen string) (Result, error) {
	r := Result{Mode: m, Runs: 1, RoundTrips: opts.RoundTrips, Messages: opts.Messages, MessageSize: len(opts.Update) + 1}
	if err := roundTrips(ctx, opts, m, &r); err != nil {
		return r, fmt.Errorf("round trip: %w", err)
	}
	if err := stream(ctx, opts, m, gen, &r); err != nil {
		return r, fmt.Errorf("stream: %w", err)
	}
	return r, nil
}

// echoAgent answers each _bench/ping request with its params as the
// result, line by line and unbuffered, like an agent answering at once.
var echoAgent = []string{"sed", "-u", `s|"method":"_bench/ping","params"|"result"|`}

func roundTrips(ctx context.Context, opts Options, m Mode, r *Result) error {
	s, err := start(ctx, opts, m, echoAgent)
	if err != nil {
		return err
	}
	defer s.stop()
	warm := max(opts.RoundTrips/10, 1)
	lat := make([]time.Duration, 0, opts.RoundTrips)
	var buf, want []byte
	for i := range warm + opts.RoundTrips {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = append(buf[:0], `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `,"method":"_bench/ping","params":{"sessionId":"s"}}`+"\n"...)
		t0 := time.Now()
		if _, err := s.in.Write(buf); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		line, err := s.out.ReadLine()
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		d := time.Since(t0)
		want = append(want[:0], `{"jsonrpc":"2.0","id":`...)
		want = strconv.AppendInt(want, int64(i), 10)
		want = append(want, `,"result":{"sessionId":"s"}}`...)
		if string(line) != string(want) {
			return fmt.Errorf("answer differs: sent %s, got %s, want %s", buf[:len(buf)-1], line, want)
		}
		if i >= warm {
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	r.P50 = Median(lat)
	r.P99 = NearestRank(lat, 0.99)
	return s.stop()
}

// Median returns the median of sorted durations (0 without any): the
// middle one, or the mean of the two middle ones of an even number.
func Median(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	return (sorted[(n-1)/2] + sorted[n/2]) / 2
}

// NearestRank returns the q-quantile of sorted durations by nearest rank:
// the smallest one with at least q of them at or below it (0 without any).
func NearestRank(sorted []time.Duration, q float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// The epsilon keeps q*n that is an integer in exact arithmetic (0.99
	// × 20000) from rounding up a rank.
	i := int(math.Ceil(q*float64(n)-1e-9)) - 1
	return sorted[min(max(i, 0), n-1)]
}

func stream(ctx context.Context, opts Options, m Mode, gen string, r *Result) error {
	s, err := start(ctx, opts, m, []string{gen, opts.Update, strconv.Itoa(opts.Messages)})
	if err != nil {
		return err
	}
	defer s.stop()
	mem0 := s.memory()
	memTenth := mem0
	cpu0 := s.cpu()
	tenth := max(opts.Messages/10, 1)
	t0 := time.Now()
	for i := range opts.Messages {
		line, err := s.out.ReadLine()
		if err != nil {
			return fmt.Errorf("read message %d: %w", i, err)
		}
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("decode message %d: %w", i, err)
		}
		if i+1 == tenth {
			memTenth = s.memory()
		}
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	r.Elapsed = time.Since(t0)
	end := s.memory()
	r.MemKind = end.kind
	switch end.kind {
	case "rss":
		r.MemAtTenth, r.MemAtEnd, r.MemPeak = memTenth.cur, end.cur, end.peak
	case "go-heap":
		r.MemAtTenth, r.MemAtEnd = memTenth.cur-mem0.cur, end.cur-mem0.cur
		r.MemPeak = max(r.MemAtTenth, r.MemAtEnd)
	}
	if cpu := s.cpu() - cpu0; cpu > 0 {
		r.CPUPerMsg = cpu / time.Duration(opts.Messages)
	}
	secs := r.Elapsed.Seconds()
	r.MsgsPerSec = float64(opts.Messages) / secs
	r.MBPerSec = float64(opts.Messages) * float64(r.MessageSize) / secs / 1e6
	return s.stop()
}

// setup is one running mode: the client's ends and how to stop it.
type setup struct {
	in      io.WriteCloser
	out     *proxy.LineReader
	stopFn  func() error
	stopped bool
	stopErr error
	memory  func() memSample
	cpu     func() time.Duration
}

// memSample is one memory reading: kind "rss" (bytes resident now, and
// the peak so far), "go-heap" (live heap after a collection), or "" when
// nothing is measured.
type memSample struct {
	kind      string
	cur, peak int64
}

func (s *setup) stop() error {
	if !s.stopped {
		s.stopped = true
		s.stopErr = s.stopFn()
	}
	return s.stopErr
}

func start(ctx context.Context, opts Options, m Mode, agent []string) (*setup, error) {
	switch m {
	case ModeChain, ModeChainIdentities:
		return startChain(ctx, opts, m, agent)
	}
	var argv []string
	switch m {
	case ModeDirect:
		argv = agent
	case ModeWrapper:
		argv = append([]string{opts.Binary, "-no-lsp", "-log-level", "error", "--"}, agent...)
	case ModeWrapperLSP:
		argv = append([]string{opts.Binary, "-log-level", "error", "--"}, agent...)
	case ModeConductor:
		px := shellQuote(opts.Binary) + " proxy -no-lsp -log-level error"
		argv = append([]string{opts.Binary, "conductor", "-log-level", "error", "--proxy", px, "--proxy", px, "--"}, agent...)
	}
	return startProcess(ctx, opts, m, argv)
}

func shellQuote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'\''`...)
			continue
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

func startProcess(ctx context.Context, opts Options, m Mode, argv []string) (*setup, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = opts.Env
	reap.OwnGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	stopCtx := context.AfterFunc(ctx, func() { _ = reap.KillGroup(cmd.Process) })
	s := &setup{in: in, out: proxy.NewLineReader(out, 0)}
	s.stopFn = func() error {
		defer stopCtx()
		// The client disconnects, as an editor does; acp-lsp must end its
		// chain within its 5 s contract.
		in.Close()
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-done:
			return nil
		case <-t.C:
			_ = reap.KillGroup(cmd.Process)
			<-done
			return fmt.Errorf("%s still running 10 s after its input closed", argv[0])
		}
	}
	root := cmd.Process.Pid
	s.memory = func() memSample { return memSample{} }
	s.cpu = func() time.Duration { return 0 }
	if m.IsProcess() {
		s.memory = func() memSample {
			var ms memSample
			ms.kind = "rss"
			for _, pid := range acplspProcesses(root, opts.Binary) {
				rss, hwm := procMemory(pid)
				ms.cur += rss
				ms.peak += hwm
			}
			return ms
		}
		s.cpu = func() time.Duration {
			var total time.Duration
			for _, pid := range acplspProcesses(root, opts.Binary) {
				total += procCPU(pid)
			}
			return total
		}
	}
	return s, nil
}

// startChain runs proxy.Chain in this process between OS pipes (the
// client side) and the agent process.
func startChain(ctx context.Context, opts Options, m Mode, agent []string) (*setup, error) {
	toChainR, toChainW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChainR, fromChainW, err := os.Pipe()
	if err != nil {
		toChainR.Close()
		toChainW.Close()
		return nil, err
	}
	p, err := proxy.StartProcess(agent, proxy.ProcessOptions{Name: "agent", Env: opts.Env})
	if err != nil {
		toChainR.Close()
		toChainW.Close()
		fromChainR.Close()
		fromChainW.Close()
		return nil, err
	}
	var comps []proxy.Stage
	if m == ModeChainIdentities {
		comps = []proxy.Stage{proxy.Identity{}, proxy.Identity{}}
	}
	client := proxy.NewStream(toChainR, fromChainW, proxy.StreamOptions{Name: "client", ReplyParseErrors: true})
	chain := proxy.NewChain(proxy.Config{Client: client, Agent: p, Stages: comps})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		err := chain.Run(cctx)
		p.Stop(time.Second)
		done <- err
	}()
	s := &setup{in: toChainW, out: proxy.NewLineReader(fromChainR, 0)}
	s.stopFn = func() error {
		toChainW.Close()
		var err error
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case err = <-done:
		case <-t.C:
			cancel()
			err = <-done
			if err == nil {
				err = errors.New("chain still running 10 s after its input closed")
			}
		}
		cancel()
		fromChainR.Close()
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		return err
	}
	s.memory = func() memSample {
		var ms memSample
		ms.kind = "go-heap"
		ms.cur = liveHeap()
		return ms
	}
	s.cpu = func() time.Duration { return 0 }
	return s, nil
}

// Markdown renders the results as a Markdown table, with each mode's
// ratio to direct when direct was measured.
func (r Results) Markdown() string {
	var b strings.Builder
	b.WriteString("| mode | round trip p50 | p99 | updates/s | MB/s | vs direct (p50 / p99 / throughput) | acp-lsp CPU/msg | memory at 10% → end (peak) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.Results {
		ratio := "–"
		if p50, p99, thr, ok := r.Ratio(x.Mode); ok && x.Mode != ModeDirect {
			ratio = fmt.Sprintf("%.2f× / %.2f× / %.2f×", p50, p99, thr)
		}
		cpu := "–"
		if x.CPUPerMsg > 0 {
			cpu = x.CPUPerMsg.String()
		}
		mem := "–"
		switch x.MemKind {
		case "rss":
			mem = fmt.Sprintf("RSS %s → %s (%s)", mib(x.MemAtTenth), mib(x.MemAtEnd), mib(x.MemPeak))
		case "go-heap":
			mem = fmt.Sprintf("heap +%s → +%s", mib(x.MemAtTenth), mib(x.MemAtEnd))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0fk | %.1f | %s | %s | %s |\n", x.Mode, us(x.P50), us(x.P99), x.MsgsPerSec/1000, x.MBPerSec, ratio, cpu, mem)
	}
	if r.DecodePerMsg > 0 {
		fmt.Fprintf(&b, "\nOne encoding/json decode of the message: %s", r.DecodePerMsg)
		for _, x := range r.Results {
			if x.CPUPerMsg > 0 {
				fmt.Fprintf(&b, "; %s CPU/msg = %.2f× decode", x.Mode, float64(x.CPUPerMsg)/float64(r.DecodePerMsg))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
