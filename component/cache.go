package component

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// cacheEntry is the newest publish for one file.
type cacheEntry struct {
	diags   []wire.Diagnostic
	server  string
	version *int32
	// gen is the cache generation of the publish, for "new since".
	gen uint64
}

// DiagCache keeps the newest diagnostics per normalized file URI, evicting
// the least recently published file beyond its capacity. It is safe for
// concurrent use; one mutex covers the LRU, so eviction never races a
// concurrent update.
type DiagCache struct {
	perFile int

	mu  sync.Mutex
	lru *simplelru.LRU[string, *cacheEntry]
	gen uint64
}

// NewDiagCache returns a cache of at most files files and perFile
// diagnostics per file (values below 1 mean 1).
func NewDiagCache(files, perFile int) *DiagCache {
	lru, err := simplelru.NewLRU[string, *cacheEntry](max(files, 1), nil)
	if err != nil {
		panic(err) // only for a non-positive size, excluded above
	}
	return &DiagCache{perFile: max(perFile, 1), lru: lru}
}

// NormalizeURI returns the key the cache uses for a file URI: a file: URI
// of the cleaned absolute path, escaped one way whoever produced it (on
// Windows, one drive letter case and UNC spelling too: edit.PathFromURI);
// another URI is its own key.
func NormalizeURI(uri string) string {
	p, err := edit.PathFromURI(uri)
	if err != nil {
		return uri
	}
	return edit.URIFromPath(p)
}

// Publish stores diagnostics for uri, replacing what was there, and returns
// the number kept. It takes the params of _lsp/publishDiagnostics (either
// shape).
func (c *DiagCache) Publish(p lspext.PublishDiagnosticsParams) (int, error) {
	diags, err := decodeDiagnostics(p.Diagnostics, p.Native)
	if err != nil {
		return 0, fmt.Errorf("publish diagnostics %s: %w", p.URI, err)
	}
	c.Put(p.URI, p.Server, p.Version, diags)
	return min(len(diags), c.perFile), nil
}

// Put stores native diagnostics for uri.
func (c *DiagCache) Put(uri, server string, version *int32, diags []wire.Diagnostic) {
	if len(diags) > c.perFile {
		diags = diags[:c.perFile]
	}
	key := NormalizeURI(uri)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.lru.Add(key, &cacheEntry{diags: diags, server: server, version: version, gen: c.gen})
}

// Get returns the cached diagnostics of uri without refreshing its
// recency, and whether the file is cached.
func (c *DiagCache) Get(uri string) ([]wire.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Peek(NormalizeURI(uri))
	if !ok {
		return nil, false
	}
	return e.diags, true
}

// Len returns the number of cached files.
func (c *DiagCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Keys returns the cached URIs, least recent first.
func (c *DiagCache) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Keys()
}

// decodeDiagnostics reads an LSP diagnostics array; reference-shape
// (1-based) positions are moved to 0-based.
func decodeDiagnostics(raw json.RawMessage, native bool) ([]wire.Diagnostic, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var diags []wire.Diagnostic
	if err := json.Unmarshal(raw, &diags); err != nil {
		return nil, err
	}
	if !native {
		for i := range diags {
			d := &diags[i]
			d.Range.Start = oneToZero(d.Range.Start)
			d.Range.End = oneToZero(d.Range.End)
		}
	}
	return diags, nil
}

func oneToZero(p position.Position) position.Position {
	if p.Line > 0 {
		p.Line--
	}
	if p.Character > 0 {
		p.Character--
	}
	return p
}

// severityName names an LSP DiagnosticSeverity (missing means error, as
// clients usually read it).
func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error"
}

func codeString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.Trim(string(raw), `"`)
}
