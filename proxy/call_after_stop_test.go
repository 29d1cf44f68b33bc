package proxy

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
)

// TestCallAfterChainStopped: a component's Call* made once the chain has
// stopped (from a goroutine whose ctx is not the chain's, as an MCP tool
// call's HTTP handler) gets ErrChainClosed; it waited forever.
func TestCallAfterChainStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cr, cw := io.Pipe()
		ar, aw := io.Pipe()
		hp := &hopper{hop: make(chan *Hop, 1)}
		ch := NewChain(Config{
			Client: NewStream(cr, io.Discard, StreamOptions{}),
			Agent:  NewStream(ar, io.Discard, StreamOptions{}),
			Stages: []Stage{hp},
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ch.Run(ctx) }()
		hop := <-hp.hop
		cancel()
		<-done
		cw.Close()
		aw.Close()
		for _, call := range []func(context.Context, string, []byte) ([]byte, error){
			func(ctx context.Context, m string, p []byte) ([]byte, error) { return hop.CallAgent(ctx, m, p) },
			func(ctx context.Context, m string, p []byte) ([]byte, error) { return hop.CallClient(ctx, m, p) },
		} {
			if _, err := call(context.Background(), "_late", nil); !errors.Is(err, ErrChainClosed) {
				t.Fatalf("call after the chain stopped: %v, want ErrChainClosed", err)
			}
		}
	})
}
