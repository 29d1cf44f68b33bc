package component

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// The HTTP fast path answers the one request an agent sends over and over,
// a JSON-RPC tools/call of the lsp tool on a session the SDK initialized,
// on the HTTP handler's goroutine: the body is read once, the tool runs,
// the answer is written. The SDK's streamable handler does the same call
// through three goroutine hand-offs (HTTP handler → session reader →
// request handler → HTTP handler) and decodes the message several times
// with buffers of 32 KiB each; on a warm hover that was a third of what
// the tool added to the language server's own time (docs/benchmarks.md).
//
// The fast path answers only what it can answer exactly as the SDK would:
// the same JSON-RPC response bytes, the same headers. Everything else (a
// batch, another method, another tool, an unknown or uninitialized
// session, unusual headers, fields the SDK would read and the fast path
// does not) goes to the SDK untouched, which answers it, or its error, as
// always.

// fastMaxBody bounds the body the fast path reads; a longer one goes on
// to the SDK, which applies its own limit.
const fastMaxBody = 1 << 20

// fastCalls are the requests in flight on each MCP session, per JSON-RPC
// id: the tools/call requests the fast path is answering, with their
// cancel, so that notifications/cancelled (which goes to the SDK) can
// cancel them as the SDK would cancel its own (cancelFast); and the
// requests of bodies handed to the SDK, without one. Each path refuses an
// id the other has in flight, as the SDK refuses one of its own: neither
// sees the other's calls, and a call taken by the second path would run
// twice.
type fastCalls struct {
	mu sync.Mutex
	m  map[fastKey]context.CancelFunc // nil: the SDK answers it
}

type fastKey struct {
	session string
	id      any // int64 or string, as the SDK reads JSON-RPC ids
}

// add registers a call; false when the same id is already in flight on
// the session.
func (f *fastCalls) add(k fastKey, cancel context.CancelFunc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.m[k]; busy {
		return false
	}
	if f.m == nil {
		f.m = map[fastKey]context.CancelFunc{}
	}
	f.m[k] = cancel
	return true
}

func (f *fastCalls) remove(k fastKey) {
	f.mu.Lock()
	delete(f.m, k)
	f.mu.Unlock()
}

// claim registers the requests of a body handed to the SDK, all or none:
// it returns a key already in flight, and false, when there is one.
func (f *fastCalls) claim(keys []fastKey) (fastKey, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		if _, busy := f.m[k]; busy {
			return k, false
		}
	}
	if f.m == nil {
		f.m = map[fastKey]context.CancelFunc{}
	}
	for _, k := range keys {
		f.m[k] = nil
	}
	return fastKey{}, true
}

// release ends what claim registered.
func (f *fastCalls) release(keys []fastKey) {
	f.mu.Lock()
	for _, k := range keys {
		delete(f.m, k)
	}
	f.mu.Unlock()
}

// cancelSession cancels the calls of an MCP session (closed).
func (f *fastCalls) cancelSession(session string) {
	f.mu.Lock()
	var cancels []context.CancelFunc
	for k, cancel := range f.m {
		if k.session == session && cancel != nil {
			cancels = append(cancels, cancel)
		}
	}
	f.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
}

func (f *fastCalls) cancel(k fastKey) {
	f.mu.Lock()
	cancel := f.m[k]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// fastRequest is a POST body the fast path understands.
type fastRequest struct {
	method string
	id     any             // tools/call: int64 or string
	args   json.RawMessage // tools/call: the arguments, nil when absent
}

// servePost answers a POST of an MCP session (sid): on the fast path when
// it can, else by the SDK (sdk), with the ids of the body's requests
// claimed while the SDK answers, so that neither path runs a call whose id
// the other has in flight. The body is read once, within the SDK's bound,
// and replayed for the SDK.
//
// The claim ends when the SDK's handler returns, which is when it has
// answered, or when the client went away: the SDK's call may run on after
// that, unseen by the fast path, for a client that both leaves and reuses
// the id.
func (c *Tool) servePost(w http.ResponseWriter, r *http.Request, s *Session, sid string, sdk http.Handler) {
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > mcp.DefaultMaxRequestBodyBytes {
		// The SDK fails to read it the same way, or refuses it as too
		// large: nothing runs.
		sdk.ServeHTTP(w, r)
		return
	}
	if c.serveFast(w, r, s, sid, body) {
		return
	}
	keys := requestKeys(sid, body)
	if k, ok := c.fast.claim(keys); !ok {
		writeDuplicate(w, k.id)
		return
	}
	defer c.fast.release(keys)
	sdk.ServeHTTP(w, r)
}

// requestKeys returns the ids of the requests in a POST body (one message
// or a batch) as the SDK reads them, once each; none when the SDK could
// not read the body, which it then refuses whole.
func requestKeys(sid string, body []byte) []fastKey {
	var raws []json.RawMessage
	if json.Unmarshal(body, &raws) != nil {
		raws = []json.RawMessage{body}
	}
	var keys []fastKey
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			k := fastKey{sid, req.ID.Raw()}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// serveFast answers a POST of the MCP session sid, whose body is body,
// when it is a plain tools/call of the lsp tool on an initialized MCP
// session of s, and reports whether it did.
func (c *Tool) serveFast(w http.ResponseWriter, r *http.Request, s *Session, sid string, body []byte) bool {
	if c.noFast.Load() || !fastHeaders(r) || len(body) > fastMaxBody {
		return false
	}
	req, ok := parseFast(body)
	if !ok || req.method != "tools/call" || !s.initializedHTTP(sid) {
		return false
	}
	key := fastKey{sid, req.id}
	// As under the SDK, a call outlives its HTTP request (an edit being
	// applied is not cut short by a client that went away); it ends on
	// notifications/cancelled, when its MCP session closes, or with the
	// component.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	if !c.fast.add(key, cancel) {
		// The SDK refuses a call whose id is in flight on the session,
		// but it does not know the fast path's calls: handed on, this
		// one would run a second time. So refuse it as the SDK would.
		writeDuplicate(w, req.id)
		return true
	}
	defer c.fast.remove(key)
	res := s.toolResult(ctx, req.args)
	out, err := encodeResponse(req.id, res)
	if err != nil {
		// The SDK would fail the same way; let it say so.
		return false
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	w.Write(out)
	c.fastHits.Add(1)
	return true
}

// writeDuplicate writes the SDK's answer to a call whose id is in flight
// on its MCP session: 400 with a JSON-RPC invalid-request error.
func writeDuplicate(w http.ResponseWriter, id any) {
	if n, ok := id.(int64); ok {
		id = float64(n) // exact: n came from a float64 (rpcID)
	}
	rid, err := jsonrpc.MakeID(id)
	if err != nil {
		http.Error(w, "duplicate in-flight request ID", http.StatusBadRequest)
		return
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: rid, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidRequest,
		Message: fmt.Sprintf("duplicate in-flight request ID %v", rid.Raw()),
	}})
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if err == nil {
		w.Write(data)
	}
}

// initializedHTTP reports whether sid names an MCP session of s's server,
// over HTTP, that completed initialize.
func (s *Session) initializedHTTP(sid string) bool {
	for ss := range s.server.Sessions() {
		if ss.ID() == sid {
			return ss.InitializeParams() != nil
		}
	}
	return false
}

// ownsMCPSession reports whether sid names an MCP session of s's server.
func (s *Session) ownsMCPSession(sid string) bool {
	for ss := range s.server.Sessions() {
		if ss.ID() == sid {
			return true
		}
	}
	return false
}

// fastVersions are the MCP protocol versions the fast path answers: those
// the SDK accepts on a stateful server with the rules the fast path
// follows (2026-07-28 and later change the rules: the SDK answers them).
var fastVersions = sync.OnceValue(func() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
})

// fastHeaders reports whether r's headers are ones the SDK accepts for a
// POST on an existing session with nothing more to check: a loopback Host
// on a loopback listener (DNS rebinding protection), a protocol version it
// speaks (or none), a JSON body, both JSON and SSE accepted, no
// Last-Event-ID.
func fastHeaders(r *http.Request) bool {
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil && loopback(la.String()) && !loopback(r.Host) {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(fastVersions(), v) {
		return false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return false
	}
	jsonOK, streamOK := accepts(r.Header.Values("Accept"))
	return jsonOK && streamOK
}

// loopback reports whether a host (with or without port) is loopback, as
// the SDK's DNS rebinding protection decides it.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// accepts reads Accept headers as the SDK does.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for _, raw := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// parseFast reads a POST body that is one JSON-RPC tools/call of the lsp
// tool. It refuses (false) anything where the SDK might read more or
// differently: other fields, repeated keys, escapes in keys or in the
// version, method and tool name, _meta beyond a progress token, trailing
// data. notifications/cancelled is not read here: it goes to the SDK,
// whose reading of it decides (cancelFast).
func parseFast(body []byte) (fastRequest, bool) {
	var req fastRequest
	// Bytes that are not UTF-8 are the SDK's to judge, and so is nesting
	// its decoder refuses (the scan reads ten times deeper).
	if !utf8.Valid(body) {
		return req, false
	}
	top, err := proxy.StrictFields(body, "jsonrpc", "id", "method", "params")
	if err != nil || proxy.DeeperThan(body, sdkMaxDepth) || string(top[0]) != `"2.0"` {
		return req, false
	}
	switch string(top[2]) {
	case `"tools/call"`:
		req.method = "tools/call"
		var ok bool
		if req.id, ok = rpcID(top[1]); !ok {
			return req, false
		}
		params, err := proxy.StrictFields(top[3], "name", "arguments", "_meta")
		if err != nil || string(params[0]) != `"lsp"` {
			return req, false
		}
		if meta := params[2]; meta != nil {
			if _, err := proxy.StrictFields(meta, "progressToken"); err != nil {
				return req, false
			}
		}
		req.args = params[1]
		return req, true
	}
	return req, false
}

// cancelFast is receiving middleware of every session's MCP server: a
// notifications/cancelled the SDK read (single or in a batch, with fields
// it ignores; not one whose params it could not decode) cancels the call
// the fast path is answering under that id on the same MCP session, as
// the SDK cancels its own. Reading the notification again would answer
// differently from the SDK at its edges.
func (c *Tool) cancelFast(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/cancelled" {
			p, _ := req.GetParams().(*mcp.CancelledParams)
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if p != nil && ss != nil && ss.ID() != "" {
				if id, ok := idValue(p.RequestID); ok {
					c.fast.cancel(fastKey{ss.ID(), id})
				}
			}
		}
		return next(ctx, method, req)
	}
}

// sdkMaxDepth is the deepest nesting of objects and arrays the SDK's JSON
// decoder accepts in a POST body; a deeper one it answers 400 (malformed
// payload), before any tool runs.
const sdkMaxDepth = 1000

// rpcID reads a JSON-RPC id as the SDK does: a number becomes an int64
// (truncated), a string stays a string; anything else is refused.
func rpcID(raw json.RawMessage) (any, bool) {
	var v any
	if raw == nil || json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return idValue(v)
}

// idValue is rpcID of an id decoded already.
func idValue(v any) (any, bool) {
	switch v := v.(type) {
	case float64:
		return int64(v), true
	case string:
		return v, true
	}
	return nil, false
}

// encodeResponse encodes the JSON-RPC response carrying res as the SDK
// does, byte for byte. The tool's usual answer (one text, structured
// content already encoded compact) is written in one pass: through
// encoding/json each nested MarshalJSON result is scanned again to be
// compacted, four passes over the structured content. Anything else takes
// the SDK's own encoding.
func encodeResponse(id any, res *mcp.CallToolResult) ([]byte, error) {
	result, ok := encodeToolResult(res)
	if !ok {
		var err error
		if result, err = marshalNoEscape(res); err != nil {
			return nil, err
		}
	}
	var idJSON []byte
	switch id.(type) {
	case int64, string:
		var err error
		if idJSON, err = marshalNoEscape(id); err != nil {
			return nil, err
		}
	default:
		return marshalNoEscape(struct {
			VersionTag string          `json:"jsonrpc"`
			ID         any             `json:"id,omitempty"`
			Result     json.RawMessage `json:"result,omitempty"`
		}{"2.0", id, result})
	}
	out := make([]byte, 0, len(result)+len(idJSON)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, idJSON...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}'), nil
}

// encodeToolResult encodes res as the SDK's CallToolResult.MarshalJSON,
// compacted, when res has the shape the tool gives: one plain text, and
// structured content as compact JSON (json.Marshal's) or an error flag.
// ok is false for any other shape.
func encodeToolResult(res *mcp.CallToolResult) (out []byte, ok bool) {
	if res == nil || len(res.Content) != 1 || res.Meta != nil || (res.IsError && res.StructuredContent != nil) {
		return nil, false
	}
	tc, isText := res.Content[0].(*mcp.TextContent)
	if !isText || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		raw, isRaw := res.StructuredContent.(json.RawMessage)
		if !isRaw || !compactJSON(raw) {
			return nil, false
		}
		structured = raw
	}
	// The SDK encodes the text with json.Marshal: HTML characters escaped.
	text, err := json.Marshal(tc.Text)
	if err != nil {
		return nil, false
	}
	out = make([]byte, 0, len(text)+len(structured)+64)
	out = append(out, `{"content":[{"type":"text","text":`...)
	out = append(out, text...)
	out = append(out, "}]"...)
	if structured != nil {
		out = append(out, `,"structuredContent":`...)
		out = append(out, structured...)
	}
	if res.IsError {
		out = append(out, `,"isError":true`...)
	}
	return append(out, '}'), true
}

// compactJSON reports whether raw is JSON with no white space outside
// strings, as json.Marshal writes it, so compacting it would change
// nothing. raw is assumed valid (it comes from json.Marshal).
func compactJSON(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return false
		}
	}
	return len(raw) > 0 && !in
}

// marshalNoEscape encodes v as the SDK's JSON-RPC layer does: like
// json.Marshal, without HTML escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
