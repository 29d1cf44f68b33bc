package lsp

// Filled returns opts with every zero field as NewManager fills it in.
func Filled(opts Options) Options { return opts.withDefaults() }
