package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// BenchmarkHover compares a warm hover through the Manager (route, stat
// sync, retries, conversion) with a bare jsonrpc2 call on the same gopls
// connection, in one run.
//
//	go test -run XXX -bench Hover -benchtime 200x ./lsp/
func BenchmarkHover(b *testing.B) {
	peers.Require(b, "gopls")
	root := copyDir(b, filepath.Join("testdata", "go"))
	file := filepath.Join(root, "main.go")
	m := newRealManager(b, root)
	defer m.Close(context.Background())
	ctx := context.Background()
	pos := at(b, file, "日本語", "greet", -1)
	if _, err := hover(ctx, m, file, pos); err != nil {
		b.Fatal(err)
	}
	_, s, _ := m.resolve(file)
	p := s.cur
	params := json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, edit.URIFromPath(file), pos.Line, pos.Character))
	b.Run("bare", func(b *testing.B) {
		id := uint64(1 << 40)
		for b.Loop() {
			id++
			var raw json.RawMessage
			if err := p.conn.Call(ctx, "textDocument/hover", params, &raw, jsonrpc2.PickID(jsonrpc2.ID{Num: id})); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		for b.Loop() {
			if _, err := hover(ctx, m, file, pos); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDiagnosticsAfterChange measures file change → fresh verdict
// through the Manager, and reports gopls's own publish time for the same
// change (when the publishDiagnostics reached the client).
//
//	go test -run XXX -bench DiagnosticsAfterChange -benchtime 30x ./lsp/
func BenchmarkDiagnosticsAfterChange(b *testing.B) {
	peers.Require(b, "gopls")
	root := copyDir(b, filepath.Join("testdata", "go"))
	file := filepath.Join(root, "main.go")
	m := newRealManager(b, root)
	defer m.Close(context.Background())
	ctx := context.Background()
	events, cancel := m.Subscribe(64)
	defer cancel()
	orig, _ := os.ReadFile(file)
	if _, err := m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{Timeout: time.Minute}); err != nil {
		b.Fatal(err)
	}
	var publish, total time.Duration
	i := 0
	for b.Loop() {
		i++
		for len(events) > 0 {
			<-events
		}
		text := strings.Replace(string(orig), "undefinedVar", fmt.Sprintf("undefinedVar%d", i), 1)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		rep, err := m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{Timeout: time.Minute})
		if err != nil || rep.Files[0].Verdict != Fresh {
			b.Fatalf("%v %+v", err, rep.Files[0])
		}
		total += time.Since(start)
		want := fmt.Sprintf("undefinedVar%d", i)
	drain:
		for {
			select {
			case ev := <-events:
				if strings.Contains(string(ev.Diagnostics), want) {
					publish += ev.Received.Sub(start)
					break drain
				}
			default:
				b.Fatal("publish not seen")
			}
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(i)/1000, "verdict-ms/op")
	b.ReportMetric(float64(publish.Microseconds())/float64(i)/1000, "publish-ms/op")
}

// BenchmarkOpenDocuments opens 1,000 Go files in one gopls and reports the
// client's heap growth and gopls's RSS.
//
//	go test -run XXX -bench OpenDocuments -benchtime 1x ./lsp/
func BenchmarkOpenDocuments(b *testing.B) {
	peers.Require(b, "gopls")
	root := copyDir(b, filepath.Join("testdata", "go"))
	const n = 1000
	var files []string
	for i := range n {
		f := filepath.Join(root, fmt.Sprintf("f%04d.go", i))
		src := fmt.Sprintf("package main\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", i, i, i)
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	m := newRealManager(b, root)
	defer m.Close(context.Background())
	ctx := context.Background()
	if err := m.Prewarm(ctx, files[0]); err != nil {
		b.Fatal(err)
	}
	_, s, _ := m.resolve(files[0])
	p := s.cur
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, f := range files {
			if _, err := p.sync(f); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if got := len(p.openPaths()); got != n {
			b.Fatalf("open documents %d", got)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "client-heap-B/doc")
		b.ReportMetric(float64(procfs.RSS(p.pid))/(1<<20), "server-RSS-MiB")
		for _, f := range files {
			p.closeDoc(f)
		}
	}
}

// BenchmarkSyncWarm is the document sync before a request about an
// unchanged file while 200 documents are open in gopls: the check for
// documents deleted behind our back stats their folders, and a folder's
// documents only when it moved (sub-benchmark "folder unchanged"), or
// every document when the folder's mtime is too recent to trust
// ("folder just changed", the worst case).
//
//	go test -run XXX -bench SyncWarm -benchtime 2000x ./lsp/
func BenchmarkSyncWarm(b *testing.B) {
	peers.Require(b, "gopls")
	root := copyDir(b, filepath.Join("testdata", "go"))
	const n = 200
	var files []string
	for i := range n {
		f := filepath.Join(root, fmt.Sprintf("f%03d.go", i))
		if err := os.WriteFile(f, []byte(fmt.Sprintf("package main\n\nfunc F%d() int { return %d }\n", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	m := newRealManager(b, root)
	defer m.Close(context.Background())
	if err := m.Prewarm(context.Background(), files[0]); err != nil {
		b.Fatal(err)
	}
	_, s, _ := m.resolve(files[0])
	p := s.cur
	for _, f := range files {
		if _, err := p.sync(f); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		mtime time.Time
	}{
		{"folder unchanged", time.Now().Add(-time.Hour)},
		{"folder just changed", time.Now().Add(time.Hour)}, // never old enough to trust
	} {
		b.Run(c.name, func(b *testing.B) {
			if err := os.Chtimes(root, c.mtime, c.mtime); err != nil {
				b.Fatal(err)
			}
			if _, err := p.sync(files[0]); err != nil { // records the folder
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := p.sync(files[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
