package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// BareClient is column (a): the smallest LSP client that gets correct
// answers from gopls. It speaks jsonrpc2 straight to the server, answers the
// server's own requests with the minimum gopls needs, and records every
// publishDiagnostics with its arrival time, so the bench can compare the
// tools against the server's own publish. Its methods are safe for
// concurrent use.
type BareClient struct {
	cmd  *exec.Cmd
	conn *jsonrpc2.Conn
	root string
	// langID is the languageId of every document it opens.
	langID string
	// Version is gopls's serverInfo.version, shortened.
	Version string

	mu      sync.Mutex
	docs    map[string]int32 // open documents: uri -> version
	pubs    map[string]Publish
	waiters []*pubWaiter
}

// Publish is one textDocument/publishDiagnostics the server sent.
type Publish struct {
	URI      string
	Version  int32
	Received time.Time
	// Messages are the diagnostics' messages.
	Messages []string
	// Errors are the messages of the error-severity diagnostics.
	Errors []string
}

type pubWaiter struct {
	uri  string
	pred func(Publish) bool
	ch   chan Publish
}

// StartBare starts gopls (the absolute path bin) in its own process group
// over root and initializes it with the initializationOptions of
// acp-lsp's built-in gopls (goplsInitOptions), so that column (a) asks
// gopls the same questions (b) does. env is the server's environment.
func StartBare(ctx context.Context, bin, root string, env []string) (*BareClient, error) {
	return StartBareServer(ctx, []string{bin}, "go", goplsInitOptions(), root, env)
}

// StartBareServer starts the language server argv (argv[0] an absolute
// path or found on env's PATH) the way StartBare starts gopls: documents
// are opened with langID, initOpts are its initializationOptions.
func StartBareServer(ctx context.Context, argv []string, langID string, initOpts json.RawMessage, root string, env []string) (*BareClient, error) {
	bin := argv[0]
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Dir = root
	cmd.Env = env
	reap.OwnGroup(cmd)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bare client: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bare client: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bare client: start %s: %w", bin, err)
	}
	c := &BareClient{cmd: cmd, root: root, langID: langID, docs: map[string]int32{}, pubs: map[string]Publish{}}
	stream := jsonrpc2.NewBufferedStream(pipeRWC{out, in}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(c.handle)))
	rootURI := edit.URIFromPath(root)
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   rootURI,
		"workspaceFolders": []map[string]string{
			{"uri": rootURI, "name": filepath.Base(root)},
		},
		"initializationOptions": initOpts,
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"configuration":    true,
				"workspaceFolders": true,
				"symbol":           map[string]any{},
			},
			"textDocument": map[string]any{
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{},
				"references":         map[string]any{},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"synchronization":    map[string]any{"didSave": true},
			},
		},
	}
	var res struct {
		ServerInfo struct {
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := c.conn.Call(ctx, "initialize", params, &res); err != nil {
		c.Close()
		return nil, fmt.Errorf("bare client: initialize: %w", err)
	}
	c.Version = shortVersion(res.ServerInfo.Version)
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("bare client: initialized: %w", err)
	}
	return c, nil
}

// goplsInitOptions returns the initializationOptions acp-lsp starts gopls
// with (lsp.DefaultServers): symbolScope "workspace" keeps
// workspace/symbol to the workspace's packages, a third of the time on the
// bench's module, and a bare client left at gopls's default would search
// the standard library as well, a different question.
func goplsInitOptions() json.RawMessage {
	for _, s := range lsp.DefaultServers() {
		if s.Name == "gopls" {
			return s.InitializationOptions
		}
	}
	return nil
}

// shortVersion pulls "vX.Y.Z" out of gopls's JSON version blob.
func shortVersion(v string) string {
	var info struct {
		Version string `json:"Version"`
	}
	if json.Unmarshal([]byte(v), &info) == nil && info.Version != "" {
		return info.Version
	}
	if len(v) > 40 {
		return v[:40]
	}
	return v
}

type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	err := p.w.Close()
	p.r.Close()
	return err
}

func (c *BareClient) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if req.Params != nil {
			json.Unmarshal(*req.Params, &p)
		}
		return make([]any, len(p.Items)), nil
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string `json:"uri"`
			Version     int32  `json:"version"`
			Diagnostics []struct {
				Message  string `json:"message"`
				Severity int    `json:"severity"`
			} `json:"diagnostics"`
		}
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			pub := Publish{URI: p.URI, Version: p.Version, Received: time.Now()}
			for _, d := range p.Diagnostics {
				pub.Messages = append(pub.Messages, d.Message)
				if d.Severity == 1 {
					pub.Errors = append(pub.Errors, d.Message)
				}
			}
			c.published(pub)
		}
		return nil, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false}, nil
	}
	// window/workDoneProgress/create, client/registerCapability and the
	// rest: an empty success is what gopls needs.
	return nil, nil
}

func (c *BareClient) published(p Publish) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pubs[p.URI] = p
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.uri == p.URI && w.pred(p) {
			w.ch <- p
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}

// WaitPublish waits until the server publishes diagnostics for path that
// satisfy pred (checked against the last publish first).
func (c *BareClient) WaitPublish(ctx context.Context, path string, pred func(Publish) bool) (Publish, error) {
	uri := edit.URIFromPath(path)
	w := &pubWaiter{uri: uri, pred: pred, ch: make(chan Publish, 1)}
	c.mu.Lock()
	if p, ok := c.pubs[uri]; ok && pred(p) {
		c.mu.Unlock()
		return p, nil
	}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case p := <-w.ch:
		return p, nil
	case <-ctx.Done():
		c.mu.Lock()
		for i, x := range c.waiters {
			if x == w {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
		return Publish{}, fmt.Errorf("wait for diagnostics of %s: %w", path, ctx.Err())
	}
}

// Sync opens path (didOpen) or sends its disk content as a full didChange
// when already open, and returns the document version sent.
func (c *BareClient) Sync(ctx context.Context, path string) (int32, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("sync %s: %w", path, err)
	}
	uri := edit.URIFromPath(path)
	c.mu.Lock()
	v, open := c.docs[uri]
	v++
	c.docs[uri] = v
	c.mu.Unlock()
	if !open {
		err = c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": uri, "languageId": c.langID, "version": v, "text": string(text)},
		})
	} else {
		err = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": string(text)}},
		})
	}
	if err != nil {
		return 0, fmt.Errorf("sync %s: %w", path, err)
	}
	return v, nil
}

// Call sends a request and returns the raw result.
func (c *BareClient) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
}

// PosParams are textDocument/position params for a 0-based position.
func PosParams(path string, line, char int) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": edit.URIFromPath(path)},
		"position":     map[string]any{"line": line, "character": char},
	}
}

// Close shuts the server down politely, then ends its process group.
func (c *BareClient) Close() error {
	if c.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if c.conn.Call(ctx, "shutdown", nil, nil) == nil {
			c.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		c.conn.Close()
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-done:
		// the group may still hold the server's own children.
		_ = reap.KillGroup(c.cmd.Process)
	case <-timer.C:
		_ = reap.KillGroup(c.cmd.Process)
		<-done
	}
	return nil
}
