// Package component is the downstream half of acp-lsp: it gives every agent
// session one MCP tool, `lsp`, answered through the `_lsp/*` ACP extension by
// whoever sits above it in the chain (acp-lsp's adapter, or an editor that
// speaks the extension), and keeps the newest diagnostics it hears of.
//
// The component never talks to language servers itself. Everything it asks
// goes through a Backend, whose wire implementation (Wire) sends the
// vocabulary of package internal/lspext over a "call upstream" function the
// proxy integration provides.
//
// # Files
//
// One file per family of tool actions, each holding the action's handler
// and what only it uses:
//
//   - locations.go: definition, type_definition, implementation,
//     declaration, references, hover, signature_help, and the resolution of
//     a call's position (file+line+symbol, or a symbol alone)
//   - symbols.go: symbols (a file's, or a workspace query)
//   - hierarchy.go: call_hierarchy, type_hierarchy
//   - impact.go: impact (what breaks if a symbol changes), and which
//     files are test code
//   - diagnostics.go: diagnostics; glob.go its file globs
//   - edits.go: rename, rename_file, format, code_actions, and applying a
//     workspace edit after asking the user (editlock.go: one applying
//     action per workspace; formatopts.go: formatting options)
//   - servers.go: servers, capabilities, status, restart, request
//     (rawparams.go: checks of a raw request's params)
//
// Around them:
//
//   - tool.go: the Tool (New, Start, Close), each session's MCP server,
//     and a call's way in: decoding the arguments (Input) and dispatching
//     on the action
//   - config.go: Config and its defaults
//   - session.go: sessions (NewSession, Bind, CloseSession) and their
//     stdio sockets; http.go the HTTP transport's checks (Origin, bearer
//     token); fastpath.go the HTTP fast path for plain tool calls
//   - acp.go: what the ACP side calls: the session setup's mcpServers
//     entry, `_lsp/*` notifications, and the new-problems block injected
//     into prompts; agentmcp.go what the agent's initialize result says of
//     MCP transports (ACP v1 and v2)
//   - stage.go: Stage, the component as a proxy.Stage in the chain
//   - render.go: rendering answers (workspace-relative places, paged
//     listings cut to the output budget, text answers); enclosing.go the
//     symbol holding each place, from its file's document symbols
//   - roots.go: a session's workspace roots and file arguments in them;
//     outside.go which files outside them results may show the lines of
//   - backend.go: Backend and Wire; cache.go the diagnostics cache;
//     doccache.go the files read
package component
