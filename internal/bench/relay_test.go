package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/peers"
)

// BenchmarkRelayFloor measures the least any tool answering over HTTP in
// front of gopls can add to a warm hover: a relay whose handler sends the
// POSTed params to gopls as textDocument/hover and writes gopls's answer
// back, nothing else (no MCP, no checks, no rendering). It pairs, on one
// gopls, the bare client's hover (column (a)) with the same hover through
// the relay, posted by a plain net/http client, both in this process as
// (b) is in the bench. What the relay adds is two more crossings between
// processes per call (client → relay, relay → client) on top of the bare
// client's two (to gopls and back); on a two-core virtual machine each
// crossing that finds the other side idle costs a wake-up of tens of
// microseconds. Reported: bare-ms, relay-ms, relay-x (medians).
//
//	go test -run X -bench RelayFloor -benchtime 300x ./internal/bench
func BenchmarkRelayFloor(b *testing.B) {
	ctx := context.Background()
	cache := filepath.Join(peers.ModuleRoot(), ".cache", "bench")
	gopls, err := peers.Find("gopls")
	if err != nil {
		b.Fatal(err)
	}
	w, err := Fetch(ctx, cache, DefaultSpec, peers.Env())
	if err != nil {
		b.Fatal(err)
	}
	root, err := w.Copy(filepath.Join(cache, "ws"), "relay")
	if err != nil {
		b.Fatal(err)
	}
	t, err := Locate(root, w.Spec)
	if err != nil {
		b.Fatal(err)
	}
	c, err := StartBare(ctx, gopls, root, w.Env)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	file := filepath.Join(root, t.HoverFile)
	if _, err := c.Sync(ctx, file); err != nil {
		b.Fatal(err)
	}
	params, err := json.Marshal(PosParams(file, t.HoverLine-1, t.HoverChar))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := c.Call(r.Context(), "textDocument/hover", json.RawMessage(body))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(res)
	}))
	defer srv.Close()
	hc := srv.Client()
	bare := func() (json.RawMessage, error) { return c.Call(ctx, "textDocument/hover", json.RawMessage(params)) }
	relay := func() (json.RawMessage, error) {
		resp, err := hc.Post(srv.URL, "application/json", bytes.NewReader(params))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	calls := []func() (json.RawMessage, error){bare, relay}
	for _, call := range calls { // warm both paths
		if _, err := call(); err != nil {
			b.Fatal(err)
		}
	}
	settle(ctx)
	ds := make([][]time.Duration, len(calls))
	for b.Loop() {
		for i, call := range calls {
			start := time.Now()
			res, err := call()
			ds[i] = append(ds[i], time.Since(start))
			if err != nil || !bytes.Contains(res, []byte(t.HoverSymbol)) {
				b.Fatalf("hover %d: %v %s", i, err, res)
			}
		}
	}
	b.StopTimer()
	med := make([]float64, len(ds))
	for i, d := range ds {
		slices.Sort(d)
		med[i] = float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(med[0], "bare-ms")
	b.ReportMetric(med[1], "relay-ms")
	b.ReportMetric(med[1]/med[0], "relay-x")
}
