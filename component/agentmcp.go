package component

import (
	"bytes"
	"encoding/json"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// AgentMCP is what an agent's ACP initialize result says of the MCP
// servers it takes, and who the agent is (for messages).
type AgentMCP struct {
	// Version is the ACP protocol version the agent answered: 1 when it
	// is absent or not a positive integer.
	Version int
	// Stdio and HTTP report that the agent takes MCP servers over that
	// transport.
	Stdio, HTTP bool
	// Name and AgentVersion are agentInfo's name and version ("" when
	// absent).
	Name, AgentVersion string
}

// agentV1 is an agent before its initialize result is seen: every v1
// agent takes stdio.
var agentV1 = AgentMCP{Version: 1, Stdio: true}

// ParseAgentMCP reads an ACP initialize result. v1: stdio always (the spec
// requires it of every agent), http when agentCapabilities.mcpCapabilities.http
// is true. v2 (protocolVersion 2 or later, a draft): capabilities.mcp.stdio
// and .http, or capabilities.session.mcp.* (two snapshots of the draft, both
// read); an object (the draft's {}) takes the transport, null, false or
// absence does not, so stdio is opt-in. Anything malformed counts as not
// advertised.
func ParseAgentMCP(result json.RawMessage) AgentMCP {
	a := AgentMCP{Version: 1}
	if raw, ok := proxy.GetPath(result, "protocolVersion"); ok {
		var v int
		if json.Unmarshal(raw, &v) == nil && v > 0 {
			a.Version = v
		}
	}
	str := func(path ...string) string {
		var s string
		if raw, ok := proxy.GetPath(result, path...); ok {
			json.Unmarshal(raw, &s)
		}
		return s
	}
	a.Name, a.AgentVersion = str("agentInfo", "name"), str("agentInfo", "version")
	if a.Version < 2 {
		a.Stdio = true
		raw, ok := proxy.GetPath(result, "agentCapabilities", "mcpCapabilities", "http")
		a.HTTP = ok && string(raw) == "true"
		return a
	}
	for _, base := range [][]string{{"capabilities", "mcp"}, {"capabilities", "session", "mcp"}} {
		a.Stdio = a.Stdio || advertised(result, append(base, "stdio")...)
		a.HTTP = a.HTTP || advertised(result, append(base, "http")...)
	}
	return a
}

// advertised reports whether the v2 capability at path is given: an object
// (the draft writes {}), or true from an agent that reads "supported" as a
// boolean.
func advertised(result json.RawMessage, path ...string) bool {
	raw, ok := proxy.GetPath(result, path...)
	if !ok {
		return false
	}
	return string(raw) == "true" || (bytes.HasPrefix(raw, []byte("{")) && json.Valid(raw))
}

// transport is the transport of the session's entry: the configured one;
// under auto HTTP when the agent takes it (no bridge process, and the fast
// path), else stdio when it takes that, else "" (no entry: a v2 agent that
// advertises neither).
func (a AgentMCP) transport(configured Transport) Transport {
	switch {
	case configured != TransportAuto:
		return configured
	case a.HTTP:
		return TransportHTTP
	case a.Stdio:
		return TransportStdio
	}
	return ""
}

// agentName names the agent in messages: agentInfo's name and version, or
// "the agent" when it gave none.
func (a AgentMCP) agentName() string {
	switch {
	case a.Name == "":
		return "the agent"
	case a.AgentVersion == "":
		return a.Name
	}
	return a.Name + " " + a.AgentVersion
}
