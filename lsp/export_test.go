package lsp

// Filled returns opts with every zero field as NewManager fills it in.
func Filled(opts Options) Options { return opts.withDefaults() }

// SetCheckSent makes every check call f once its edited content has gone
// to the server, before its diagnostics are awaited.
func SetCheckSent(m *Manager, f func()) { m.checkSent = f }
