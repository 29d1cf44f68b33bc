package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// relayRootEnv, set, makes the test binary the relay process of
// BenchmarkRelayFloor for the workspace it names.
const relayRootEnv = "ACP_LSP_BENCH_RELAY_ROOT"

// relayHandler answers a POST by sending its body to gopls as
// textDocument/hover and writing gopls's answer back: nothing else.
func relayHandler(c *BareClient) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
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
	})
}

// serveRelayForBench is the relay process: gopls over the workspace of
// relayRootEnv (the file named by ACP_LSP_BENCH_RELAY_FILE open), HTTP on
// a loopback port written to stdout, until stdin closes.
func serveRelayForBench() {
	ctx := context.Background()
	gopls, err := peers.Find("gopls")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := StartBare(ctx, gopls, os.Getenv(relayRootEnv), os.Environ())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	if _, err := c.Sync(ctx, os.Getenv("ACP_LSP_BENCH_RELAY_FILE")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(ln, relayHandler(c))
	fmt.Printf("http://%s/\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}

// BenchmarkRelayFloor measures the least any tool answering over HTTP in
// front of gopls can add to a warm hover: a relay whose handler sends the
// POSTed params to gopls as textDocument/hover and writes gopls's answer
// back, nothing else (no MCP, no checks, no rendering). Each iteration
// asks, in turn, the bare client (column (a)), the relay in this process
// (on the bare client's gopls, as (b) runs in the bench's process) and the
// relay as a process of its own with its own gopls (as an MCP server runs
// for an agent), both posted to by a plain net/http client. A relay adds
// two crossings between processes per call (client → relay, relay →
// client) to the bare client's two (to gopls and back); on a two-core
// virtual machine each crossing that finds the other side idle costs a
// wake-up of tens of microseconds. Reported: medians (-ms) and ratios to
// bare (-x).
//
//	go test -run X -bench RelayFloor -benchtime 300x ./internal/test/bench
func BenchmarkRelayFloor(b *testing.B) {
	ctx := context.Background()
	gopls, cache, w := benchWorkspace(b)
	var roots []string
	var t *Target
	for _, name := range []string{"relay", "relay-process"} {
		root, err := w.Copy(filepath.Join(cache, "ws"), name)
		if err != nil {
			b.Fatal(err)
		}
		if t, err = Locate(root, w.Spec); err != nil {
			b.Fatal(err)
		}
		roots = append(roots, root)
	}
	c, err := StartBare(ctx, gopls, roots[0], w.Env)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	file := filepath.Join(roots[0], t.HoverFile)
	if _, err := c.Sync(ctx, file); err != nil {
		b.Fatal(err)
	}
	params, err := json.Marshal(PosParams(file, t.HoverLine-1, t.HoverChar))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(relayHandler(c))
	defer srv.Close()

	// The relay process, in its own group, with its own gopls.
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	file2 := filepath.Join(roots[1], t.HoverFile)
	cmd := exec.Command(self)
	cmd.Env = append(append(os.Environ(), w.Env...), relayRootEnv+"="+roots[1], "ACP_LSP_BENCH_RELAY_FILE="+file2, "PATH="+filepath.Dir(gopls)+":"+os.Getenv("PATH"))
	relayGroup(cmd)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = reap.KillGroup(cmd.Process)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("relay process: %v", err)
	}
	url2 := strings.TrimSpace(line)
	params2, err := json.Marshal(PosParams(file2, t.HoverLine-1, t.HoverChar))
	if err != nil {
		b.Fatal(err)
	}

	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	post := func(url string, body []byte) func() (json.RawMessage, error) {
		return func() (json.RawMessage, error) {
			resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			return io.ReadAll(resp.Body)
		}
	}
	names := []string{"bare", "relay", "relay-process"}
	calls := []func() (json.RawMessage, error){
		func() (json.RawMessage, error) { return c.Call(ctx, "textDocument/hover", json.RawMessage(params)) },
		post(srv.URL, params),
		post(url2, params2),
	}
	for _, call := range calls { // warm every path
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
				b.Fatalf("%s: %v %s", names[i], err, res)
			}
		}
	}
	b.StopTimer()
	reportMedians(b, names, ds)
}
