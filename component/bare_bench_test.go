package component_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/bench"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// BenchmarkManagerVsBare pairs a warm hover through lsp.Manager (what the
// adapter asks for the tool) with the same hover from the bench's bare
// jsonrpc2 client (column (a) of docs/benchmarks.md), each with its own
// gopls on the same workspace: what the Manager adds below the tool.
// BREAKDOWN_WS and BREAKDOWN_GOMODCACHE pick the bench's workspace as in
// BenchmarkHoverBreakdown.
func BenchmarkManagerVsBare(b *testing.B) {
	bin := peers.Require(b, "gopls")
	env := peers.Env()
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	file := filepath.Join(root, "main.go")
	os.WriteFile(file, []byte("package main\n\nimport \"fmt\"\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() {\n\tfmt.Println(add(1, 2), add(3, 4))\n}\n"), 0o644)
	line, char := 4, 5
	if ws := os.Getenv("BREAKDOWN_WS"); ws != "" {
		root, file, line, char = ws, filepath.Join(ws, "expr.go"), 207, 5
		env = append(env, "GOMODCACHE="+os.Getenv("BREAKDOWN_GOMODCACHE"), "GOFLAGS=-mod=mod -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local")
	}
	ctx := context.Background()
	bare, err := bench.StartBare(ctx, bin, root, env)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	if _, err := bare.Sync(ctx, file); err != nil {
		b.Fatal(err)
	}
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: env})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(context.Background())
	params := bench.PosParams(file, line, char)
	// The Manager gets the same params, as the adapter passes them on.
	raw, err := json.Marshal(params)
	if err != nil {
		b.Fatal(err)
	}
	for range 3 { // warm both
		if _, err := bare.Call(ctx, "textDocument/hover", params); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Request(ctx, file, "textDocument/hover", raw); err != nil {
			b.Fatal(err)
		}
	}
	pairBareManager(b,
		func() error { _, err := bare.Call(ctx, "textDocument/hover", params); return err },
		func() error { _, err := m.Request(ctx, file, "textDocument/hover", raw); return err })
}

// BenchmarkDiagnosticsManagerVsBare pairs diagnostics after an edit: the
// bench's bare client sends the file as a didChange and waits for gopls's
// publish of that version (gopls's own publish time, column (a)), and
// lsp.Manager.Diagnostics after the same edit of its own copy. Each has
// its own gopls and workspace; the order alternates. NOWATCH=1 runs the
// Manager without file watching.
func BenchmarkDiagnosticsManagerVsBare(b *testing.B) {
	bin := peers.Require(b, "gopls")
	env := peers.Env()
	mk := func() (string, string) {
		root, _ := filepath.EvalSymlinks(b.TempDir())
		os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
		file := filepath.Join(root, "main.go")
		os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644)
		return root, file
	}
	rootA, fileA := mk()
	rootB, fileB := mk()
	ctx := context.Background()
	bare, err := bench.StartBare(ctx, bin, rootA, env)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	m, err := lsp.NewManager(lsp.Options{Roots: []string{rootB}, Env: env, MaxWatchedDirs: watchDirs()})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(context.Background())
	n := 0
	edit := func(file string) string {
		n++
		token := "e" + strconv.Itoa(n)
		os.WriteFile(file, []byte("package main\n\nfunc main() {}\n\nvar x int = \""+token+"\"\n"), 0o644)
		return token
	}
	viaBare := func() error {
		token := edit(fileA)
		v, err := bare.Sync(ctx, fileA)
		if err != nil {
			return err
		}
		pub, err := bare.WaitPublish(ctx, fileA, func(p bench.Publish) bool { return p.Version >= v })
		if err == nil && !strings.Contains(strings.Join(pub.Messages, "\n"), token) {
			err = fmt.Errorf("bare: stale: %v", pub.Messages)
		}
		return err
	}
	viaMgr := func() error {
		token := edit(fileB)
		rep, err := m.Diagnostics(ctx, []string{fileB}, lsp.DiagnosticsOptions{Timeout: time.Minute})
		if err == nil && (rep.Files[0].Verdict != lsp.Fresh || !strings.Contains(string(rep.Files[0].Diagnostics), token)) {
			err = fmt.Errorf("manager: not fresh: %+v", rep.Files[0])
		}
		return err
	}
	for range 2 { // warm both
		if err := viaBare(); err != nil {
			b.Fatal(err)
		}
		if err := viaMgr(); err != nil {
			b.Fatal(err)
		}
	}
	pairBareManager(b, viaBare, viaMgr)
}

// pairBareManager times viaBare and viaMgr in turn, the first of each pair
// alternating, and reports the median of each and their ratio.
func pairBareManager(b *testing.B, viaBare, viaMgr func() error) {
	var bareD, mgrD []time.Duration
	one := func(f func() error, into *[]time.Duration) {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(t0))
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			one(viaBare, &bareD)
			one(viaMgr, &mgrD)
		} else {
			one(viaMgr, &mgrD)
			one(viaBare, &bareD)
		}
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	b.ReportMetric(med(bareD), "bare-ns")
	b.ReportMetric(med(mgrD), "manager-ns")
	b.ReportMetric(med(mgrD)/med(bareD), "ratio")
}

// watchDirs is the Manager's MaxWatchedDirs: NOWATCH=1 turns its file
// watching off, to see what watching costs after an edit.
func watchDirs() int {
	if os.Getenv("NOWATCH") != "" {
		return -1
	}
	return 0
}
