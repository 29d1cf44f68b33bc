package bench

import (
	"bufio"
	"bytes"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/test/forwardbench"
)

func TestMain(m *testing.M) {
	if os.Getenv(leanTestServerEnv) != "" {
		serveStdioForTest()
		return
	}
	if os.Getenv(relayRootEnv) != "" {
		serveRelayForBench()
		return
	}
	goleak.VerifyTestMain(m)
}

func TestHasLocation(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"checker/checker.go:52:6 function ParseCheck", true},
		{"/tmp/ws/checker/checker.go:52:6", true},
		{"Results at checker/checker.go:52", true},
		{"  File: checker/checker.go\n  Range: 52:6 - 52:16", true},
		{"checker/checker.go:520:6", false},
		{"checker/checker.go:5:2", false},
		{"xchecker/checker.go:52:6", false},
		{"  File: checker/checker.go\n  Range: 53:6 - 53:16", false},
		{"", false},
	} {
		if got := hasLocation(c.text, "checker/checker.go", 52); got != c.want {
			t.Errorf("hasLocation(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	tg := &Target{HoverWant: "func Compile(", DeclFile: "checker/checker.go", DeclLine: 52,
		Refs: []string{"checker/checker.go:52", "expr.go:218"}}
	for _, c := range []struct {
		op    Op
		text  string
		token string
		want  bool
		why   string
	}{
		{OpHover, "```go\nfunc Compile(input string)\n```", "", true, ""},
		{OpHover, "no hover", "", false, "signature"},
		{OpDefinition, "checker/checker.go:52:6", "", true, ""},
		{OpDefinition, "expr.go:218:23", "", false, "lacks checker/checker.go:52"},
		{OpReferences, "checker/checker.go:52:6\nexpr.go:218:23\n", "", true, ""},
		{OpReferences, "checker/checker.go:52:6\n", "", false, "miss 1 of 2 (expr.go:218)"},
		{OpSymbols, "/abs/checker/checker.go:52:6 ParseCheck", "", true, ""},
		{OpDiagnostics, `docgen.go:300:22 error: cannot use "bench-edit-7" (untyped string constant) as int value`, "bench-edit-7", true, ""},
		{OpDiagnostics, `docgen.go:300:22 error: cannot use "bench-edit-6"`, "bench-edit-7", false, "stale"},
		{OpDiagnostics, "No diagnostics found", "bench-edit-7", false, "stale"},
	} {
		ok, why := judge(c.op, tg, c.text, c.token)
		if ok != c.want || !strings.Contains(why, c.why) {
			t.Errorf("judge(%s, %q) = %v, %q; want %v, %q", c.op, c.text, ok, why, c.want, c.why)
		}
	}
}

func TestCellStats(t *testing.T) {
	c := &Cell{}
	for i, ms := range []int{5, 1, 3, 2, 4} {
		c.Samples = append(c.Samples, Sample{D: time.Duration(ms) * time.Millisecond, Right: i != 2, Why: "w"})
	}
	if c.Median() != 3*time.Millisecond || c.Quantile(1) != 5*time.Millisecond || c.Quantile(0) != time.Millisecond {
		t.Errorf("median %v, max %v, min %v", c.Median(), c.Quantile(1), c.Quantile(0))
	}
	if c.Right() != 4 || c.AllRight() || c.FirstWrong() != "w" {
		t.Errorf("right %d, all %v, first wrong %q", c.Right(), c.AllRight(), c.FirstWrong())
	}
	if (&Cell{}).Median() != 0 || (&Cell{}).Usable() {
		t.Error("empty cell has figures")
	}
}

func TestBarChartPNG(t *testing.T) {
	c := &BarChart{Title: "Warm requests", Unit: "ms", Groups: []string{"hover", "definition"},
		Series: []string{"(a) bare", "(b) acp-lsp", "(c) cclsp"},
		Values: [][]float64{{1, 2.5, math.NaN()}, {0.9, 4, 800}},
		Notes:  [][]string{{"", "", ""}, {"", "", "0/3 right"}}}
	var buf bytes.Buffer
	if err := c.PNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Every series' colour is drawn (bars and legend), text is dark.
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	for i := range c.Series {
		p := palette[i]
		if !seen[[3]uint32{uint32(p.R), uint32(p.G), uint32(p.B)}] {
			t.Errorf("series %d colour not drawn", i)
		}
	}
	if !seen[[3]uint32{0x20, 0x20, 0x20}] {
		t.Error("no text drawn")
	}
	if b.Dx() != 1000 || b.Dy() < 200 {
		t.Errorf("image %v", b)
	}
}

func TestReportWriteKeepsHandWrittenText(t *testing.T) {
	dir := t.TempDir()
	hand := "# Benchmarks\n\nHand-written intro.\n\n"
	tail := "\n## Notes\n\nkept below.\n"
	os.WriteFile(filepath.Join(dir, "benchmarks.md"), []byte(hand+BeginMarker+"\nold\n"+EndMarker+"\n"+tail), 0o644)
	cell := func(ms int, right bool) *Cell {
		return &Cell{Samples: []Sample{{D: time.Duration(ms) * time.Millisecond, Right: right, Why: "stale: x"}}}
	}
	r := &Report{Spec: DefaultSpec, Files: 168, Machine: Machine{CPU: "cpu", Cores: 2, Peers: map[string]string{"cclsp": "0.7.0"}},
		LSP: &LSPResult{Columns: []string{"(a) bare", "(b) acp-lsp", "(c) cclsp"}, Keys: []string{"bare", "acp-lsp", "cclsp"}, Runs: 1,
			Target: &Target{HoverWant: "func Compile(", DeclFile: "checker/checker.go", DeclLine: 52, EditFile: "docgen/docgen.go", Refs: []string{"a:1"}}},
		Scale: &ScaleResult{Rows: []ScaleRow{{Name: "n sessions", Result: "all right", Check: "c", OK: true}}}}
	for range LSPRows {
		r.LSP.Cells = append(r.LSP.Cells, []*Cell{cell(10, true), cell(12, true), cell(5, false)})
	}
	for i := 0; i < 2; i++ { // twice: the section is replaced, not appended
		if err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "benchmarks.md"))
	doc := string(b)
	if !strings.HasPrefix(doc, hand+BeginMarker) || !strings.HasSuffix(doc, EndMarker+"\n"+tail) || strings.Count(doc, BeginMarker) != 1 || strings.Contains(doc, "\nold\n") {
		t.Errorf("document:\n%s", doc)
	}
	for _, want := range []string{
		"| hover (warm) | 10 ms (p90 10 ms), 1/1 right | 12 ms (p90 12 ms), 1/1 right | 5.0 ms (p90 5.0 ms), 0/1 right [",
		"(b) ≤ 1.3× (a) warm: 1.20× — **met**",
		"(2.4× slower, but its answers were wrong or stale), right 1/1 vs 0/1 — **met**",
		"| n sessions | all right | c | **met** |",
		"![lsp-warm](bench/lsp-warm.png)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
	for _, png := range []string{"lsp-warm.png", "lsp-cold-diagnostics.png"} {
		if _, err := os.Stat(filepath.Join(dir, "bench", png)); err != nil {
			t.Error(err)
		}
	}
}

// TestTraced checks the traced column's gopls: a wrapper named gopls first
// on PATH and in Env.Gopls, running the real one with -rpc.trace and a log
// file in the column's folder, every other variable kept.
func TestTraced(t *testing.T) {
	dir := t.TempDir()
	env := &Env{Gopls: "/opt/go bin/gopls", Cache: "/c"}
	e, ws, err := traced(dir, "acp-lsp", env, []string{"HOME=/h", "PATH=/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "acp-lsp", "bin")
	if e.Gopls != filepath.Join(bin, "gopls") || e.Cache != "/c" || env.Gopls != "/opt/go bin/gopls" {
		t.Errorf("env = %+v (original %+v)", e, env)
	}
	if want := []string{"HOME=/h", "PATH=" + bin + ":/usr/bin:/bin"}; strings.Join(ws, "\n") != strings.Join(want, "\n") {
		t.Errorf("wsEnv = %q, want %q", ws, want)
	}
	b, err := os.ReadFile(e.Gopls)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(e.Gopls); fi.Mode()&0o111 == 0 {
		t.Errorf("wrapper is not executable: %v", fi.Mode())
	}
	if want := `exec "/opt/go bin/gopls" -rpc.trace -logfile="` + filepath.Join(dir, "acp-lsp") + `"/gopls-$$.log "$@"`; !strings.Contains(string(b), want) {
		t.Errorf("wrapper:\n%s\nwant a line %s", b, want)
	}
	if _, ws, _ := traced(dir, "bare", env, []string{"HOME=/h"}); ws[len(ws)-1] != "PATH="+filepath.Join(dir, "bare", "bin") {
		t.Errorf("no PATH: wsEnv = %q", ws)
	}
}

// TestChildrenCPU counts a grandchild's CPU (as gopls under node) and
// nothing of processes outside this one's descendants.
func TestChildrenCPU(t *testing.T) {
	before, ok := childrenCPU(os.Getpid())
	if !ok {
		t.Fatal("no /proc")
	}
	// sh starts a second sh that burns CPU, says so, and waits for stdin
	// to close: its ticks are counted while it is alive.
	cmd := exec.Command("sh", "-c", `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo burnt; read x'`)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "burnt\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	after, _ := childrenCPU(os.Getpid())
	if after-before < 5 {
		t.Errorf("children's CPU grew by %d ticks while a grandchild burnt CPU, want ≥ 5", after-before)
	}
	if other, _ := childrenCPU(1 << 30); other != 0 {
		t.Errorf("descendants of a pid that does not exist used %d ticks", other)
	}
}

func TestForwardGoals(t *testing.T) {
	us := time.Microsecond
	mk := func(p50 time.Duration, rate float64, cpu time.Duration, tenth, end int64) *ForwardResult {
		return &ForwardResult{Results: forwardbench.Results{
			DecodePerMsg: 3 * us,
			Results: []forwardbench.Result{
				{Mode: forwardbench.ModeDirect, P50: 100 * us, P99: 200 * us, MsgsPerSec: 1000},
				{Mode: forwardbench.ModeWrapper, P50: p50, P99: 300 * us, MsgsPerSec: rate, CPUPerMsg: cpu, MemKind: "rss", MemAtTenth: tenth, MemAtEnd: end},
			},
		}}
	}
	const mb = 1 << 20
	for _, tc := range []struct {
		name string
		f    *ForwardResult
		want []string
	}{
		{"all met", mk(150*us, 900, 600*time.Nanosecond, 12*mb, 13*mb), []string{
			"wrapper round trip p50 ≤ 2.2× direct: 1.50× — **met**",
			"wrapper session/update throughput ≥ 0.8× direct: 0.90× — **met**",
			"wrapper CPU per message ≤ 0.25× one encoding/json decode of it (3.00 µs here): 0.60 µs = 0.20× — **met**",
			"wrapper memory flat over the stream: rss 12.0 → 13.0 MiB — **met**",
		}},
		{"none met", mk(230*us, 700, 900*time.Nanosecond, 12*mb, 15*mb), []string{
			"wrapper round trip p50 ≤ 2.2× direct: 2.30× — **not met**",
			"wrapper session/update throughput ≥ 0.8× direct: 0.70× — **not met**",
			"wrapper CPU per message ≤ 0.25× one encoding/json decode of it (3.00 µs here): 0.90 µs = 0.30× — **not met**",
			"wrapper memory flat over the stream: rss 12.0 → 15.0 MiB — **not met**",
		}},
		{"big but flat", mk(150*us, 900, 600*time.Nanosecond, 100*mb, 109*mb), []string{
			"wrapper round trip p50 ≤ 2.2× direct: 1.50× — **met**",
			"wrapper session/update throughput ≥ 0.8× direct: 0.90× — **met**",
			"wrapper CPU per message ≤ 0.25× one encoding/json decode of it (3.00 µs here): 0.60 µs = 0.20× — **met**",
			"wrapper memory flat over the stream: rss 100.0 → 109.0 MiB — **met**",
		}},
		{"no direct row", &ForwardResult{Results: forwardbench.Results{Results: []forwardbench.Result{{Mode: forwardbench.ModeChain, MemKind: "go-heap"}}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.goals(); !slices.Equal(got, tc.want) {
				t.Errorf("goals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
