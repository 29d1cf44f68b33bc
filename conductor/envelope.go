// Package conductor chains ACP components the way the proxy-chain protocol
// describes: it runs a chain in front of an agent process (wrapper and
// conductor modes), talks the proxy side of the protocol to an external
// conductor (proxy mode), and the conductor side of it to external proxy
// processes. docs/conductor.md describes the modes.
package conductor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// Family is one of the two method-name families of the proxy-chain
// protocol. Rust SDKs up to 4.x use "_proxy" (_proxy/initialize,
// _proxy/successor); the RFD and Rust SDK 5 use "proxy".
type Family string

// The two families.
const (
	FamilyUnderscore Family = "_proxy"
	FamilyPlain      Family = "proxy"
)

// Initialize returns the family's proxy-initialize method name.
func (f Family) Initialize() string { return string(f) + "/initialize" }

// Successor returns the family's successor method name.
func (f Family) Successor() string { return string(f) + "/successor" }

// ParseFamily accepts "proxy" or "_proxy".
func ParseFamily(s string) (Family, error) {
	switch Family(s) {
	case FamilyPlain, FamilyUnderscore:
		return Family(s), nil
	}
	return "", fmt.Errorf("parse family: %q is not proxy or _proxy", s)
}

// familyOf reports the family and kind of a proxy-chain method.
func familyOf(method string) (f Family, isInit, isSucc bool) {
	switch method {
	case "_proxy/initialize":
		return FamilyUnderscore, true, false
	case "proxy/initialize":
		return FamilyPlain, true, false
	case "_proxy/successor":
		return FamilyUnderscore, false, true
	case "proxy/successor":
		return FamilyPlain, false, true
	}
	return "", false, false
}

// Envelope is the params of a successor message: the wrapped message's
// method and params, and optional envelope metadata.
type Envelope struct {
	Method string
	Params json.RawMessage // nil when absent
	Meta   json.RawMessage // "_meta" (or "meta" on input); nil when absent
}

// ParseEnvelope reads successor params, in one scan. Params and meta are
// kept raw.
func ParseEnvelope(params []byte) (Envelope, error) {
	var e Envelope
	if params == nil {
		return e, fmt.Errorf("parse envelope: no params")
	}
	f, err := proxy.Fields(params, "method", "params", "_meta", "meta")
	if err != nil {
		return e, fmt.Errorf("parse envelope: %w", err)
	}
	m := f[0]
	if m == nil {
		return e, fmt.Errorf("parse envelope: no method")
	}
	if m[0] != '"' {
		return e, fmt.Errorf("parse envelope: method is not a string")
	}
	// The fast path only for plain valid UTF-8: otherwise decode as
	// encoding/json does (escapes; invalid bytes become U+FFFD), so the
	// method reads the same wherever it is decoded.
	if bytes.IndexByte(m, '\\') < 0 && utf8.Valid(m) {
		e.Method = string(m[1 : len(m)-1])
	} else if err := json.Unmarshal(m, &e.Method); err != nil {
		return e, fmt.Errorf("parse envelope: method: %w", err)
	}
	if e.Method == "" {
		return e, fmt.Errorf("parse envelope: empty method")
	}
	if p := f[1]; p != nil && string(p) != "null" {
		e.Params = p
	}
	if f[2] != nil {
		e.Meta = f[2]
	} else {
		e.Meta = f[3]
	}
	return e, nil
}

// Marshal returns the envelope as successor params (meta written as
// "_meta"); params and meta are copied, not re-encoded.
func (e Envelope) Marshal() []byte {
	b := make([]byte, 0, len(e.Method)+len(e.Params)+len(e.Meta)+40)
	b = append(b, `{"method":`...)
	b = appendString(b, e.Method)
	if e.Params != nil {
		b = append(b, `,"params":`...)
		b = append(b, e.Params...)
	}
	if e.Meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, e.Meta...)
	}
	return append(b, '}')
}

func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return strconv.AppendQuote(b, s)
}

// wrap builds the successor message carrying m (a request or notification)
// with the given outer id (nil for a notification). Its parts come from
// parsed messages, so the result is not scanned again.
func wrap(f Family, outerID json.RawMessage, m *proxy.Message) *proxy.Message {
	env := Envelope{Method: m.Method, Params: m.Params()}.Marshal()
	if m.Kind == proxy.KindRequest {
		return proxy.NewRequestUnchecked(outerID, f.Successor(), env)
	}
	return proxy.NewNotificationUnchecked(f.Successor(), env)
}

// unwrap turns a successor message into the message it carries, with the
// outer id. ParseEnvelope validated the parts, so the result is not
// scanned again.
func unwrap(m *proxy.Message) (*proxy.Message, error) {
	e, err := ParseEnvelope(m.Params())
	if err != nil {
		return nil, err
	}
	if m.Kind == proxy.KindRequest {
		return proxy.NewRequestUnchecked(m.ID, e.Method, e.Params), nil
	}
	return proxy.NewNotificationUnchecked(e.Method, e.Params), nil
}

// cancelParams builds $/cancel_request params for id.
func cancelParams(id json.RawMessage) json.RawMessage {
	b := append([]byte(`{"requestId":`), id...)
	return append(b, '}')
}
