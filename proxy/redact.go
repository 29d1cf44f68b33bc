package proxy

import (
	"bytes"
	"slices"
	"sync"
)

// redactedMark stands in the trace where a secret was.
const redactedMark = "[redacted]"

// Redact keeps secret out of the chain's trace (Config.Trace): until
// forget is called, every occurrence of it in a message is written to the
// trace as "[redacted]", at every hop and in both directions, whatever
// field holds it; the message itself travels unchanged. A component that
// puts a credential of its own making into messages (an MCP server's
// token in session/new) registers it before it sends the first message
// holding it. The trace matches bytes, not decoded JSON, so secret should
// be random and long, and read the same inside a JSON string as outside
// (hex, say). forget may be called more than once. Without a trace,
// Redact does nothing.
func (h *Hop) Redact(secret string) (forget func()) {
	c := h.n.c
	if c.traceW == nil || secret == "" {
		return func() {}
	}
	s := &redaction{[]byte(secret)}
	c.traceMu.Lock()
	c.secrets = append(c.secrets, s)
	c.traceMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.traceMu.Lock()
			c.secrets = slices.DeleteFunc(c.secrets, func(x *redaction) bool { return x == s })
			c.traceMu.Unlock()
		})
	}
}

// redaction is one secret Redact registered.
type redaction struct{ secret []byte }

// appendRedacted appends src to dst with every occurrence of each secret
// replaced by redactedMark; where two start at the same byte, the longer
// one goes.
func appendRedacted(dst, src []byte, secrets []*redaction) []byte {
	for {
		at, n := -1, 0
		for _, r := range secrets {
			if i := bytes.Index(src, r.secret); i >= 0 && (at < 0 || i < at || i == at && len(r.secret) > n) {
				at, n = i, len(r.secret)
			}
		}
		if at < 0 {
			return append(dst, src...)
		}
		dst = append(append(dst, src[:at]...), redactedMark...)
		src = src[at+n:]
	}
}
