// Package sessionsetup names the ACP requests that set up a session, for
// the two stages that act on them: the component gives each such session
// the lsp tool (an entry appended to mcpServers), the adapter makes its
// folders workspace roots of the local language servers. Both read this one
// list, so a session that gets the tool also gets its roots.
package sessionsetup

// methods are the ACP session setup requests (client → agent). Each one's
// params carry
//
//   - cwd: the session's working directory, an absolute path (required);
//   - mcpServers: the MCP servers the agent is to connect to (required in
//     new and load, optional in resume and fork);
//   - additionalDirectories: further absolute roots of the session
//     (optional; sent when the agent advertises
//     sessionCapabilities.additionalDirectories);
//
// and sessionId as the value says:
//
//	session/new            none; the answer's sessionId is the new session
//	session/load           the session loaded (history replayed before the answer)
//	session/resume         the session resumed (no replay)
//	session/fork           the source session (ACP unstable); the answer's
//	                       sessionId is the fork
//	session/unstable_fork  as session/fork: the spelling OpenCode's ACP
//	                       clients send
//
// ACP v2's draft keeps new, load and resume with these params. session/list
// carries a cwd too, but as a filter: it sets nothing up.
var methods = map[string]setup{
	"session/new":           {},
	"session/load":          {namesSession: true},
	"session/resume":        {namesSession: true},
	"session/fork":          {},
	"session/unstable_fork": {},
}

type setup struct {
	// namesSession: params.sessionId is the session being set up.
	namesSession bool
}

// Is reports whether method is an ACP session setup request: its params
// carry cwd, mcpServers and maybe additionalDirectories.
func Is(method string) bool {
	_, ok := methods[method]
	return ok
}

// NamesSession reports whether the params of setup request method name, in
// sessionId, the very session it sets up (load, resume). Otherwise there is
// none (new) or it names a fork's source, and the session's id is the one
// in the answer.
func NamesSession(method string) bool {
	return methods[method].namesSession
}
