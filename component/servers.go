package component

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

func (s *Session) servers(ctx context.Context, in Input) (*answer, error) {
	var (
		infos []lspext.ServerInfo
		err   error
	)
	if in.Action == "status" {
		infos, err = s.c.backend.Status(ctx)
	} else {
		var uri string
		if uri, err = s.fileURI(in.File); err != nil {
			return nil, err
		}
		infos, err = s.c.backend.Servers(ctx, uri)
	}
	if err != nil {
		return nil, err
	}
	return s.textAnswer(renderServers(in.Action, infos), map[string]any{"servers": infos}, "text", nil), nil
}

func renderServers(action string, infos []lspext.ServerInfo) string {
	if len(infos) == 0 {
		return "no language server handles this workspace (or file); see acp-lsp's configuration"
	}
	var b strings.Builder
	var busy []string
	for _, i := range infos {
		if i.State == "starting" || i.State == "indexing" {
			busy = append(busy, i.Name)
		}
		fmt.Fprintf(&b, "%s (%s)", i.Name, i.Source)
		switch {
		case i.Source == "local":
			b.WriteString(" " + stateWords(i.State))
		case i.State != "":
			b.WriteString(" " + i.State)
		}
		if len(i.Progress) > 0 {
			b.WriteString(" (" + progressText(i.Progress) + ")")
		}
		if len(i.Languages) > 0 {
			b.WriteString(" languages=" + strings.Join(i.Languages, ","))
		}
		if action == "status" {
			if i.Root != "" {
				b.WriteString(" root=" + i.Root)
			}
			if i.PID != 0 {
				fmt.Fprintf(&b, " pid=%d", i.PID)
			}
			if i.RSS != 0 {
				fmt.Fprintf(&b, " rss=%dMB", i.RSS>>20)
				if i.OverBudget {
					b.WriteString(" (alone over the memory budget)")
				}
			}
		}
		switch {
		case i.Needed:
			b.WriteString("; needed: " + i.Reason)
		case i.Reason != "" && (i.State == "not_started" || i.State == "stopped" || i.State == "not_installed"):
			b.WriteString("; not needed: " + i.Reason + ": it starts only when a question names one of its files")
		case i.Reason != "":
			b.WriteString("; not needed: " + i.Reason + ": started for a file asked about")
		}
		if i.LastError != "" && (action == "status" || i.State == "not_installed") {
			b.WriteString(" last_error=" + i.LastError)
		}
		b.WriteByte('\n')
		if action == "capabilities" && len(i.Capabilities) > 0 {
			var caps map[string]json.RawMessage
			if json.Unmarshal(i.Capabilities, &caps) == nil {
				b.WriteString("  " + strings.Join(slices.Sorted(maps.Keys(caps)), " ") + "\n")
			}
		}
	}
	if len(busy) > 0 {
		fmt.Fprintf(&b, "note: %s still loading the project: answers may be missing until ready (an empty answer from them is not final)\n", strings.Join(busy, ", "))
	}
	return b.String()
}

// stateWords says a local server's state as a sentence fragment, the
// states of servers not running explained.
func stateWords(state string) string {
	switch state {
	case "not_started":
		return "not started yet (starts on first use)"
	case "stopped":
		return "stopped (starts again on first use)"
	case "not_installed":
		return "not installed"
	}
	return state
}

func (s *Session) restart(ctx context.Context, in Input) (*answer, error) {
	if !s.cfg.allowed("restart") {
		return nil, errors.New("restart is turned off in acp-lsp's configuration (allow_mutating)")
	}
	uri, err := s.fileURI(in.File)
	if err != nil {
		return nil, err
	}
	if in.Server == "" && uri == "" {
		return nil, errors.New("restart needs server (see action=status) or file")
	}
	if err := s.c.backend.Restart(ctx, in.Server, uri); err != nil {
		return nil, err
	}
	return &answer{text: "restarted " + cmp.Or(in.Server, in.File)}, nil
}

func (s *Session) rawRequest(ctx context.Context, in Input) (*answer, error) {
	if !s.cfg.allowed("request") {
		return nil, errors.New("raw requests are turned off in acp-lsp's configuration (tool.allow_raw_request); use the specific actions")
	}
	if in.Method == "" {
		return nil, errors.New("request needs method")
	}
	uri, path := "", ""
	if in.File != "" {
		p, err := s.resolve(in.File)
		if err != nil {
			return nil, err
		}
		uri, path = edit.URIFromPath(p), p
	}
	params, err := rawParams(in.Params)
	if err != nil {
		return nil, err
	}
	if err := s.checkParamURIs(params); err != nil {
		return nil, fmt.Errorf("request %s: %w; nothing was sent", in.Method, err)
	}
	if !readOnlyMethods[in.Method] {
		// Anything but a known query may change files: a command runs on
		// the server, which can answer it with workspace/applyEdit; a
		// server's own method does what it does. The editor is asked, as
		// for every change.
		shown := fmt.Sprintf("send %s to the language server", in.Method)
		if path != "" {
			shown += " for " + relPath(s.Root, path)
		}
		if len(params) > 0 {
			shown += " with params:\n" + headOf(string(params), 2000)
		}
		ok, err := s.askUser(ctx, nil, "raw request "+in.Method, shown+"\n")
		if err != nil {
			return nil, fmt.Errorf("request %s: %w; nothing was sent", in.Method, err)
		}
		if !ok {
			return nil, fmt.Errorf("request %s: permission denied by the user; nothing was sent", in.Method)
		}
	}
	res, err := s.c.backend.Request(ctx, uri, in.Method, params)
	if err != nil {
		return nil, err
	}
	raw := res.Result
	return s.textAnswer(string(raw), map[string]any{"result": json.RawMessage(cmp.Or(string(raw), "null"))}, "text", nil), nil
}

// readOnlyMethods are the LSP requests a raw request may send without
// asking: queries that answer and change nothing (edits they return, as
// rename's or formatting's, are only shown). Everything else, above all
// workspace/executeCommand and servers' own methods, may change files.
var readOnlyMethods = map[string]bool{
	"textDocument/hover": true, "textDocument/definition": true, "textDocument/declaration": true,
	"textDocument/typeDefinition": true, "textDocument/implementation": true, "textDocument/references": true,
	"textDocument/documentSymbol": true, "textDocument/documentHighlight": true, "textDocument/documentLink": true,
	"textDocument/codeLens": true, "textDocument/codeAction": true, "textDocument/completion": true,
	"textDocument/signatureHelp": true, "textDocument/foldingRange": true, "textDocument/selectionRange": true,
	"textDocument/semanticTokens/full": true, "textDocument/semanticTokens/full/delta": true,
	"textDocument/semanticTokens/range": true, "textDocument/inlayHint": true, "textDocument/inlineValue": true,
	"textDocument/moniker": true, "textDocument/documentColor": true, "textDocument/colorPresentation": true,
	"textDocument/linkedEditingRange": true, "textDocument/prepareRename": true, "textDocument/rename": true,
	"textDocument/formatting": true, "textDocument/rangeFormatting": true, "textDocument/onTypeFormatting": true,
	"textDocument/prepareCallHierarchy": true, "callHierarchy/incomingCalls": true, "callHierarchy/outgoingCalls": true,
	"textDocument/prepareTypeHierarchy": true, "typeHierarchy/supertypes": true, "typeHierarchy/subtypes": true,
	"textDocument/diagnostic": true, "workspace/diagnostic": true, "workspace/symbol": true,
	"workspace/willCreateFiles": true, "workspace/willRenameFiles": true, "workspace/willDeleteFiles": true,
	"codeAction/resolve": true, "codeLens/resolve": true, "completionItem/resolve": true,
	"documentLink/resolve": true, "inlayHint/resolve": true, "workspaceSymbol/resolve": true,
}

// fileURI is the URI of an optional file argument within the session's
// roots ("" when there is none).
func (s *Session) fileURI(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	p, err := s.resolve(file)
	if err != nil {
		return "", err
	}
	return edit.URIFromPath(p), nil
}
