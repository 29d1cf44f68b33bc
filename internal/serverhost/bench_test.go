package serverhost

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// BenchmarkWarmHoverHost compares a warm gopls hover asked of a Manager in
// this process with the same hover through the shared server host: a host
// process of its own ("host", what an acp-lsp process gets) and a host in
// this process ("host-here", whose both sides a -cpuprofile sees).
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
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			a := tc.make(b)
			b.Cleanup(func() { a.Close(ctx) })
			if res, err := a.Request(ctx, file, "textDocument/hover", params); err != nil || len(res) < 10 {
				b.Fatalf("first hover: %s, %v", res, err)
			}
			for b.Loop() {
				if _, err := a.Request(ctx, file, "textDocument/hover", params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
