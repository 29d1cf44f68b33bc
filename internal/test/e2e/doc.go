// Package e2e runs acp-lsp end to end with real peers: the acpx client,
// the built acp-lsp binary in each of its modes, a real agent (opencode
// driven by a scripted fake model, or acp-lsp's own scripted agent), and a
// real gopls over a small Go workspace. It checks what the agent's model
// reads from the lsp tool, what the editor is asked, what lands on disk,
// and that nothing is left running.
//
// Run: go test -race -count=1 ./internal/test/e2e/ (after scripts/setup.sh; a
// missing peer fails the tests, it never skips them). Set
// ACP_LSP_TRANSCRIPTS=DIR to keep acpx's transcripts, E2E_TRACE_DIR=DIR to
// keep acp-lsp's message traces.
package e2e
