package adapter

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// referenceMethods are the methods of the original extension (1-based,
// snake_case), which `"lsp": true` offers.
var referenceMethods = []string{
	lspext.Hover, lspext.Definition, lspext.References, lspext.Diagnostics,
	lspext.DocumentSymbols, lspext.WorkspaceSymbol, lspext.CodeActions,
}

// nativeMethods are answered by the adapter (and may be offered by an
// editor as a raw passthrough).
var nativeMethods = []string{
	lspext.Servers, lspext.Request, lspext.DiagnosticReport, lspext.Status, lspext.Restart,
}

// editorNotifications are what an editor may push.
var editorNotifications = []string{lspext.PublishDiagnostics, lspext.DidSave}

// offer is what an editor said it answers in clientCapabilities._meta.lsp:
// canonical method name → the spelling it listed ("_lsp" or "lsp"; "" when
// it did not say, as with `true`).
type offer struct {
	methods       map[string]string
	notifications map[string]string
}

func (o *offer) has(method string) (string, bool) {
	if o == nil {
		return "", false
	}
	s, ok := o.methods[method]
	return s, ok
}

// parseOffer reads clientCapabilities._meta.lsp. true offers the reference
// methods and notifications; an object lists them (either spelling);
// false, null, absent or anything else offers nothing. Unlike the
// reference agent, the key's presence alone enables nothing.
func parseOffer(raw json.RawMessage) *offer {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "true":
		o := &offer{methods: map[string]string{}, notifications: map[string]string{}}
		for _, m := range referenceMethods {
			o.methods[m] = ""
		}
		for _, n := range editorNotifications {
			o.notifications[n] = ""
		}
		return o
	case len(raw) > 0 && raw[0] == '{':
		var v struct {
			Methods       []string `json:"methods"`
			Notifications []string `json:"notifications"`
		}
		if json.Unmarshal(raw, &v) != nil {
			return nil
		}
		o := &offer{methods: map[string]string{}, notifications: map[string]string{}}
		for _, m := range v.Methods {
			if c, ok := lspext.Canonical(m); ok {
				o.methods[c] = prefixOf(m)
			}
		}
		for _, n := range v.Notifications {
			if c, ok := lspext.Canonical(n); ok {
				o.notifications[c] = prefixOf(n)
			}
		}
		return o
	}
	return nil
}

func prefixOf(method string) string {
	if method != "" && method[0] == '_' {
		return "_lsp"
	}
	return "lsp"
}

// spell returns canonical method name in the given spelling.
func spell(spelling, canonical string) string {
	if spelling == "lsp" {
		return lspext.Bare(canonical)
	}
	return canonical
}

// initializeDown records what the editor offers and replaces
// clientCapabilities._meta.lsp with what the whole chain offers, so an
// agent that speaks the extension is served as if the editor had it.
// Everything else in the message is kept byte for byte.
func (a *Adapter) initializeDown(hop *proxy.Hop, m *proxy.Message) *proxy.Message {
	raw, _ := proxy.GetPath(m.Params(), "clientCapabilities", "_meta", "lsp")
	o := parseOffer(raw)
	if a.cfg.NoEditor {
		o = nil
	}
	a.mu.Lock()
	a.editor = o
	a.spelling = ""
	clear(a.lacks)
	a.mu.Unlock()
	a.rfdOffer(hop, m.Params())
	if o != nil {
		hop.Logger().Info("editor offers LSP", "methods", slices.Sorted(maps.Keys(o.methods)), "notifications", slices.Sorted(maps.Keys(o.notifications)))
	}
	caps, _ := json.Marshal(a.chainOffer())
	p, err := proxy.SetPath(m.Params(), caps, "clientCapabilities", "_meta", "lsp")
	if err != nil {
		hop.Logger().Warn("clientCapabilities._meta.lsp not set", "err", err)
		return m
	}
	out, err := m.WithParams(p)
	if err != nil {
		hop.Logger().Warn("clientCapabilities._meta.lsp not set", "err", err)
		return m
	}
	return out
}

// capability is the value of a `_meta.lsp` advertisement.
type capability struct {
	Methods       []string `json:"methods"`
	Notifications []string `json:"notifications"`
}

// chainOffer is what the chain below the adapter may use: every method
// the editor or local servers answer, and the notifications that come
// down.
func (a *Adapter) chainOffer() capability {
	a.mu.Lock()
	o := a.editor
	a.mu.Unlock()
	var c capability
	// The editor's raw passthrough answers every reference method but
	// _lsp/diagnostics (converted, see reference), local servers or not.
	_, passthrough := o.has(lspext.Request)
	passthrough = passthrough || a.rfdOn()
	for _, m := range referenceMethods {
		if _, ok := o.has(m); ok || !a.cfg.NoLocal || (passthrough && m != lspext.Diagnostics) {
			c.Methods = append(c.Methods, m)
		}
	}
	c.Methods = append(c.Methods, nativeMethods...)
	// Other methods the editor lists are passed through to it as they are.
	if o != nil {
		for _, m := range slices.Sorted(maps.Keys(o.methods)) {
			if !slices.Contains(c.Methods, m) {
				c.Methods = append(c.Methods, m)
			}
		}
	}
	c.Notifications = append(c.Notifications, editorNotifications...)
	return c
}

// initializeUp records the notifications the agent accepts and tells the
// editor what the chain handles: the methods it may be asked and the
// notifications it may push.
func (a *Adapter) initializeUp(hop *proxy.Hop, m *proxy.Message) *proxy.Message {
	if m.Error() != nil {
		return m
	}
	raw, _ := proxy.GetPath(m.Result(), "agentCapabilities", "_meta", "lsp")
	agent := parseOffer(raw)
	a.mu.Lock()
	clear(a.agentNotes)
	if agent != nil {
		for n := range agent.notifications {
			a.agentNotes[n] = true
		}
	}
	a.mu.Unlock()
	c := capability{
		Methods:       append(slices.Clone(referenceMethods), lspext.Servers, lspext.Request),
		Notifications: slices.Clone(editorNotifications),
	}
	caps, _ := json.Marshal(c)
	r, err := proxy.SetPath(m.Result(), caps, "agentCapabilities", "_meta", "lsp")
	if err != nil {
		hop.Logger().Warn("agentCapabilities._meta.lsp not set", "err", err)
		return m
	}
	out, err := m.WithResult(r)
	if err != nil {
		hop.Logger().Warn("agentCapabilities._meta.lsp not set", "err", err)
		return m
	}
	return out
}

// forwardMarker is set in the params of an editor notification the agent
// should also see: the component consumes the notification and passes it
// on only when it carries the marker.
var forwardMarker = []string{"_meta", lspext.ForwardToAgentMeta}

// editorNotification passes an editor's publishDiagnostics or didSave to
// the component; on didSave local servers are told. The message is marked
// for the agent when it advertised the notification (or ForwardToAgent).
func (a *Adapter) editorNotification(m *proxy.Message) *proxy.Message {
	canonical, _ := lspext.Canonical(m.Method)
	if uri, ok := proxy.GetPath(m.Params(), "uri"); ok {
		var u string
		if json.Unmarshal(uri, &u) == nil && u != "" {
			if canonical == lspext.PublishDiagnostics {
				a.noteKnown(u)
			} else {
				a.saved(u)
			}
		}
	}
	a.mu.Lock()
	forward := a.cfg.ForwardToAgent || a.agentNotes[canonical]
	a.mu.Unlock()
	if !forward {
		return m
	}
	p, err := proxy.SetPath(m.Params(), json.RawMessage("true"), forwardMarker...)
	if err != nil {
		return m
	}
	out, err := m.WithParams(p)
	if err != nil {
		return m
	}
	return out
}

// editorNotifies reports whether the editor listed notification (as
// something it handles) and in which spelling.
func (a *Adapter) editorNotifies(canonical string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.editor == nil {
		return "", false
	}
	s, ok := a.editor.notifications[canonical]
	if !ok {
		s, ok = a.editor.methods[canonical]
	}
	return s, ok
}
