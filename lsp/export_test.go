package lsp

// Filled returns opts with every zero field as NewManager fills it in.
func Filled(opts Options) Options { return opts.withDefaults() }

// SetCheckSent makes every check call f once the server has answered on
// its edited content, before the disk's content goes back.
func SetCheckSent(m *Manager, f func()) { m.checkSent = f }

// SetCheckWaits makes a check call f when requests in flight make it wait.
func SetCheckWaits(m *Manager, f func()) { m.checkWaits = f }

// SetRequestSynced makes every request call f once its document is
// synced, before the request is sent.
func SetRequestSynced(m *Manager, f func(path string)) { m.requestSynced = f }
