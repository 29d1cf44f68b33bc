package lsp

// DataDirVar, in a server's Args, Env or InitializationOptions, stands
// for a folder of that server's own for its root: under
// Options.DataDir, one per server name and root, and never used by two
// running instances at once (jdtls's -data workspace, ccls's cache).
const DataDirVar = "${dataDir}"
