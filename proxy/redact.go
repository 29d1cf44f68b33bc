package proxy

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
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

// secretWords are what a header or environment variable of an MCP server
// is called when its value is a credential: a name holding one of them
// (case aside) is secret. Over-matching (KEYBOARD_LAYOUT) costs a
// [redacted] in a debugging file; under-matching leaks a credential.
var secretWords = []string{"auth", "token", "secret", "key", "pass", "cookie", "credential"}

// secretName reports whether a header or environment variable named name
// holds a credential (secretWords): Authorization, Proxy-Authorization,
// X-Api-Key, GITHUB_TOKEN, DB_PASSWORD and the like.
func secretName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactSetup returns raw, the valid JSON of a session setup request
// (sessionsetup), with the credentials of its params.mcpServers entries
// replaced by "[redacted]", every other byte as it was; raw itself when
// there is none. Credentials are the value of every secret-named
// (secretName) header and environment variable, and in the url and the
// args: a URL's user information and secret-named query parameters, an
// argument's value after a secret-named flag ("--api-key=V", or
// "--token V").
// It goes by shape, not by value: an MCP server's credential is hidden
// whoever put it there (the editor, acp-lsp, another proxy of the chain),
// the other values stay readable. headers and env are taken as ACP writes
// them, arrays of {name, value}, and as objects of name: value too. Keys
// are matched as a case-insensitive decoder (Go's) reads them, and every
// duplicate counts: a pair with a secret name among its names loses every
// value it has.
func redactSetup(raw []byte) []byte {
	var cuts []cut
	for _, p := range objectsAt(raw, skipWS(raw, 0), "params") {
		for _, list := range valuesAt(raw, p, "mcpServers") {
			for _, e := range arrayElems(raw, list) {
				if raw[e] != '{' {
					continue
				}
				for _, field := range valuesAt(raw, e, "headers", "env") {
					cuts = appendSecretCuts(cuts, raw, field)
				}
				for _, u := range valuesAt(raw, e, "url") {
					cuts = appendStringCut(cuts, raw, u, redactURL)
				}
				for _, args := range valuesAt(raw, e, "args") {
					cuts = appendArgCuts(cuts, raw, args)
				}
			}
		}
	}
	if len(cuts) == 0 {
		return raw
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.s - b.s })
	out := make([]byte, 0, len(raw)+len(cuts)*len(redactedMark))
	at := 0
	for _, c := range cuts {
		out = append(out, raw[at:c.s]...)
		out = append(out, c.with...)
		at = c.e
	}
	return append(out, raw[at:]...)
}

// cut is a value span of the setup request to write to the trace as
// with, a JSON value. The cuts of one request are disjoint: each is a
// whole value, and no two are the same value or one inside the other.
type cut struct {
	s, e int
	with string
}

// redactedValue is a whole value hidden.
const redactedValue = `"` + redactedMark + `"`

// appendStringCut appends the cut that writes the string at raw[at] as
// redact has it, when that changes it; any other value is left.
func appendStringCut(cuts []cut, raw []byte, at int, redact func(string) string) []cut {
	end, why := skipStr(raw, at)
	if why != "" {
		return cuts
	}
	v, err := unquote(raw[at:end])
	if err != nil {
		return cuts
	}
	if r := redact(v); r != v {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // a URL's & stays readable
		_ = enc.Encode(r)
		cuts = append(cuts, cut{at, end, strings.TrimSuffix(b.String(), "\n")})
	}
	return cuts
}

// appendArgCuts appends the cuts of an MCP server's args, the array at
// raw[at]: "--api-key=V" keeps its flag, a value after a lone
// secret-named flag ("--token", "V") goes whole, and a URL argument is
// redacted as the url field is.
func appendArgCuts(cuts []cut, raw []byte, at int) []cut {
	afterFlag := false
	for _, e := range arrayElems(raw, at) {
		if raw[e] != '"' {
			afterFlag = false
			continue
		}
		end, _ := skipStr(raw, e)
		v, err := unquote(raw[e:end])
		if err != nil {
			afterFlag = false
			continue
		}
		flag := strings.HasPrefix(v, "-")
		if afterFlag && !flag {
			cuts = append(cuts, cut{e, end, redactedValue})
			afterFlag = false
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(v, "-"), "=")
		afterFlag = flag && !hasValue && secretName(name)
		cuts = appendStringCut(cuts, raw, e, func(v string) string {
			if flag && hasValue && secretName(name) {
				i := strings.IndexByte(v, '=')
				return v[:i+1] + redactedMark
			}
			return redactURL(v)
		})
	}
	return cuts
}

// redactURL returns u with its user information and the values of its
// secret-named query parameters (secretName) redacted; u itself when it
// is not an absolute URL or has none.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/?#@ ") {
		return u
	}
	out := scheme + "://"
	authEnd := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authEnd = i
	}
	if i := strings.LastIndexByte(rest[:authEnd], '@'); i >= 0 {
		out += redactedMark + rest[i:authEnd] // user, or user:password: a token either way
	} else {
		out += rest[:authEnd]
	}
	rest = rest[authEnd:]
	path, query, hasQuery := strings.Cut(rest, "?")
	if !hasQuery {
		return out + rest
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	params := strings.Split(query, "&")
	for i, p := range params {
		k, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && secretName(name) {
			params[i] = k + "=" + redactedMark
		}
	}
	out += path + "?" + strings.Join(params, "&")
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// appendSecretCuts appends to cuts the spans of the secret values of the
// headers or env value starting at raw[at]: an array of {name, value} or
// an object of name: value.
func appendSecretCuts(cuts []cut, raw []byte, at int) []cut {
	switch raw[at] {
	case '{':
		ms, _, err := objectMembers(raw, at)
		if err != nil {
			return cuts
		}
		for _, m := range ms {
			if secretName(m.key) {
				cuts = append(cuts, cut{m.valS, m.valE, redactedValue})
			}
		}
	case '[':
		for _, e := range arrayElems(raw, at) {
			if raw[e] != '{' {
				continue
			}
			ms, _, err := objectMembers(raw, e)
			if err != nil {
				continue
			}
			secret := false
			for _, m := range ms {
				if strings.EqualFold(m.key, "name") && raw[m.valS] == '"' {
					n, err := unquote(raw[m.valS:m.valE])
					secret = secret || err == nil && secretName(n)
				}
			}
			for _, m := range ms {
				if secret && strings.EqualFold(m.key, "value") {
					cuts = append(cuts, cut{m.valS, m.valE, redactedValue})
				}
			}
		}
	}
	return cuts
}

// valuesAt returns where the values of the object at raw[at] under any of
// keys (case aside, duplicates included) start, in order.
func valuesAt(raw []byte, at int, keys ...string) []int {
	if at >= len(raw) || raw[at] != '{' {
		return nil
	}
	ms, _, err := objectMembers(raw, at)
	if err != nil {
		return nil
	}
	var out []int
	for _, m := range ms {
		for _, k := range keys {
			if strings.EqualFold(m.key, k) {
				out = append(out, m.valS)
				break
			}
		}
	}
	return out
}

// objectsAt is valuesAt for the values that are objects.
func objectsAt(raw []byte, at int, key string) []int {
	return slices.DeleteFunc(valuesAt(raw, at, key), func(i int) bool { return raw[i] != '{' })
}

// arrayElems returns where the elements of the array at raw[at] start;
// none when it is not one.
func arrayElems(raw []byte, at int) []int {
	s := scanner{b: raw, i: at}
	if !s.eat('[') {
		return nil
	}
	s.ws()
	if s.eat(']') {
		return nil
	}
	var out []int
	for {
		s.ws()
		vs := s.i
		if s.value(0) != nil {
			return nil
		}
		out = append(out, vs)
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			return out
		}
		return nil
	}
}
