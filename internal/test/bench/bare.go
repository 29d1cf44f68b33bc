package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// bareSubject is column (a) as a Subject: plain LSP requests, answers
// rendered as the smallest readable text (path:line:col, hover contents,
// diagnostic messages), with no waiting beyond what LSP itself needs.
type bareSubject struct {
	c    *BareClient
	root string
}

func (b *bareSubject) Name() string { return "bare LSP client" }

func (b *bareSubject) Close() error { return b.c.Close() }

func (b *bareSubject) abs(rel string) string { return filepath.Join(b.root, rel) }

// Do asks gopls directly. Diagnostics send the file's disk content as a
// didChange and wait for gopls's publish of that version: the server's own
// publish time, which the tool's diagnostics are compared against.
func (b *bareSubject) Do(ctx context.Context, op Op, t *Target) (string, error) {
	switch op {
	case OpHover:
		p := b.abs(t.HoverFile)
		if err := b.ensureOpen(ctx, p); err != nil {
			return "", err
		}
		raw, err := b.c.Call(ctx, "textDocument/hover", PosParams(p, t.HoverLine-1, t.HoverChar))
		if err != nil {
			return "", err
		}
		var h struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		json.Unmarshal(raw, &h)
		return h.Contents.Value, nil
	case OpDefinition:
		p := b.abs(t.UseFile)
		if err := b.ensureOpen(ctx, p); err != nil {
			return "", err
		}
		raw, err := b.c.Call(ctx, "textDocument/definition", PosParams(p, t.UseLine-1, t.UseChar))
		if err != nil {
			return "", err
		}
		return b.renderLocations(raw), nil
	case OpReferences:
		p := b.abs(t.DeclFile)
		if err := b.ensureOpen(ctx, p); err != nil {
			return "", err
		}
		params := PosParams(p, t.DeclLine-1, t.DeclChar)
		params["context"] = map[string]any{"includeDeclaration": true}
		raw, err := b.c.Call(ctx, "textDocument/references", params)
		if err != nil {
			return "", err
		}
		return b.renderLocations(raw), nil
	case OpSymbols:
		raw, err := b.c.Call(ctx, "workspace/symbol", map[string]any{"query": t.Query})
		if err != nil {
			return "", err
		}
		var syms []struct {
			Name     string   `json:"name"`
			Location location `json:"location"`
		}
		if err := json.Unmarshal(raw, &syms); err != nil {
			return "", fmt.Errorf("workspace/symbol answer: %w", err)
		}
		var s strings.Builder
		for _, x := range syms {
			fmt.Fprintf(&s, "%s %s\n", b.loc(x.Location), x.Name)
		}
		return s.String(), nil
	case OpDiagnostics:
		p := b.abs(t.EditFile)
		v, err := b.c.Sync(ctx, p)
		if err != nil {
			return "", err
		}
		pub, err := b.c.WaitPublish(ctx, p, func(pub Publish) bool { return pub.Version >= v })
		if err != nil {
			return "", err
		}
		return strings.Join(pub.Messages, "\n"), nil
	}
	return "", fmt.Errorf("bare client: unknown op %s", op)
}

// ensureOpen opens a file once; gopls answers about open files from
// their synced content.
func (b *bareSubject) ensureOpen(ctx context.Context, path string) error {
	uri := edit.URIFromPath(path)
	b.c.mu.Lock()
	_, open := b.c.docs[uri]
	b.c.mu.Unlock()
	if open {
		return nil
	}
	_, err := b.c.Sync(ctx, path)
	return err
}

type location struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"start"`
	} `json:"range"`
}

func (b *bareSubject) loc(l location) string {
	p, err := edit.PathFromURI(l.URI)
	if err != nil {
		p = l.URI
	}
	if rel, err := filepath.Rel(b.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		p = rel
	}
	return fmt.Sprintf("%s:%d:%d", p, l.Range.Start.Line+1, l.Range.Start.Character+1)
}

func (b *bareSubject) renderLocations(raw json.RawMessage) string {
	var locs []location
	if err := json.Unmarshal(raw, &locs); err != nil {
		var one location
		if json.Unmarshal(raw, &one) == nil && one.URI != "" {
			locs = []location{one}
		}
	}
	var s strings.Builder
	for _, l := range locs {
		s.WriteString(b.loc(l))
		s.WriteByte('\n')
	}
	return s.String()
}
