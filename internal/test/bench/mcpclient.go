package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
)

// leanProtocolVersion is the MCP revision the lean client asks for; a
// server answers with the one it speaks, which the client then sends.
const leanProtocolVersion = "2025-06-18"

// leanTransport sends one JSON-RPC message and, for a request, returns the
// response to it. Methods are called from one goroutine at a time.
type leanTransport interface {
	roundTrip(ctx context.Context, id int64, msg []byte) (json.RawMessage, error)
	notify(ctx context.Context, msg []byte) error
	close() error
}

// leanClient is an MCP client with no more machinery than the protocol
// needs: the initialize handshake, then one request at a time, each
// answered before the next is sent (which is how the LSP rows ask). With
// it (-mcp-client lean) the bench shows how much of an MCP column's time
// is the go-sdk client, which drives the columns by default: agents use
// clients of their own, so the client's share must not decide a
// comparison. Its methods are called from one goroutine at a time.
type leanClient struct {
	t      leanTransport
	nextID int64
	// version is the protocol revision the server chose.
	version string
}

type leanResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and returns its result.
func (c *leanClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.nextID++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("mcp %s: %w", method, err)
	}
	raw, err := c.t.roundTrip(ctx, c.nextID, msg)
	if err != nil {
		return nil, fmt.Errorf("mcp %s: %w", method, err)
	}
	var r leanResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("mcp %s: malformed response: %w", method, err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("mcp %s: %s (%d)", method, r.Error.Message, r.Error.Code)
	}
	return r.Result, nil
}

// initialize runs the MCP handshake.
func (c *leanClient) initialize(ctx context.Context) error {
	res, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": leanProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "acp-lsp-bench", "version": "1"},
	})
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.ProtocolVersion == "" {
		return fmt.Errorf("mcp initialize: no protocolVersion in %s", res)
	}
	c.version = r.ProtocolVersion
	if h, ok := c.t.(*leanHTTP); ok {
		h.version = r.ProtocolVersion
	}
	return c.t.notify(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// callTool calls a tool and returns its text content and whether the tool
// reported an error.
func (c *leanClient) callTool(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	res, err := c.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", false, err
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", false, fmt.Errorf("mcp tools/call %s: malformed result: %w", name, err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), r.IsError, nil
}

func (c *leanClient) close() error { return c.t.close() }

// leanStdio is MCP's stdio transport: one JSON message per line. A reader
// goroutine hands lines to the caller; requests from the server are
// refused (the client declares no capabilities), notifications dropped.
type leanStdio struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	quit  chan struct{} // closed by close: nobody reads lines any more
	done  chan struct{} // closed when the reader ends
	err   error         // why the reader ended; read after done
	wmu   sync.Mutex
}

// startLeanStdio starts argv in its own process group and connects.
func startLeanStdio(ctx context.Context, name string, argv, env []string, dir string) (*leanClient, *exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	reap.OwnGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%s: start: %w", name, err)
	}
	s := &leanStdio{cmd: cmd, in: in, lines: make(chan []byte), quit: make(chan struct{}), done: make(chan struct{})}
	go s.read(out)
	c := &leanClient{t: s}
	if err := c.initialize(ctx); err != nil {
		c.close()
		return nil, nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	return c, cmd, nil
}

func (s *leanStdio) read(out io.Reader) {
	defer close(s.done)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case s.lines <- line:
			case <-s.quit:
				return
			}
		}
		if err != nil {
			s.err = err
			return
		}
	}
}

func (s *leanStdio) write(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.in.Write(append(msg, '\n'))
	return err
}

func (s *leanStdio) notify(ctx context.Context, msg []byte) error { return s.write(msg) }

func (s *leanStdio) roundTrip(ctx context.Context, id int64, msg []byte) (json.RawMessage, error) {
	if err := s.write(msg); err != nil {
		return nil, err
	}
	want := strconv.FormatInt(id, 10)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.done:
			return nil, fmt.Errorf("server ended: %v", s.err)
		case line := <-s.lines:
			var m leanResponse
			if json.Unmarshal(line, &m) != nil {
				continue // not JSON-RPC (a server's stray output)
			}
			switch {
			case m.Method != "" && m.ID != nil:
				refusal, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "the bench client offers no " + m.Method}})
				s.write(refusal)
			case m.Method == "" && string(m.ID) == want:
				return line, nil
			}
		}
	}
}

func (s *leanStdio) close() error {
	close(s.quit)
	s.in.Close()
	if s.cmd.Process != nil {
		// The MCP server's own children (gopls) share its group.
		_ = reap.KillGroup(s.cmd.Process)
	}
	err := s.cmd.Wait()
	<-s.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // killed on purpose
	}
	return err
}

// leanHTTP is MCP's streamable HTTP transport: each message a POST, the
// answer either JSON or an event stream carrying it.
type leanHTTP struct {
	url, token string
	hc         *http.Client
	tr         *http.Transport
	session    string
	version    string
}

// connectLeanHTTP connects to a streamable HTTP MCP server with a bearer
// token, over its own HTTP transport.
func connectLeanHTTP(ctx context.Context, url, token string) (*leanClient, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	h := &leanHTTP{url: url, token: token, tr: tr, hc: &http.Client{Transport: tr}}
	c := &leanClient{t: h}
	if err := c.initialize(ctx); err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	return c, nil
}

func (h *leanHTTP) post(ctx context.Context, msg []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	if h.version != "" {
		req.Header.Set("Mcp-Protocol-Version", h.version)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		h.session = id
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return resp, nil
}

func (h *leanHTTP) notify(ctx context.Context, msg []byte) error {
	resp, err := h.post(ctx, msg)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (h *leanHTTP) roundTrip(ctx context.Context, id int64, msg []byte) (json.RawMessage, error) {
	resp, err := h.post(ctx, msg)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		return io.ReadAll(resp.Body)
	}
	// An event stream: the response is the data of the event whose
	// message has our id (the server may send notifications first).
	want := strconv.FormatInt(id, 10)
	r := bufio.NewReader(resp.Body)
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		l := bytes.TrimRight(line, "\r\n")
		switch {
		case len(l) == 0 && len(data) > 0:
			var m leanResponse
			if json.Unmarshal(data, &m) == nil && m.Method == "" && string(m.ID) == want {
				return data, nil
			}
			data = nil
		case bytes.HasPrefix(l, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" "))...)
		}
		if err != nil {
			return nil, fmt.Errorf("event stream ended without the response: %w", err)
		}
	}
}

func (h *leanHTTP) close() error {
	defer h.tr.CloseIdleConnections()
	if h.session == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", h.session)
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}
