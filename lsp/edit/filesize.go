package edit

// DefaultMaxFileSize is the default cap on a workspace file that is read
// (to place a position, to show a result's line) or sent to a language
// server: 10 MiB. Larger files are generated data, not code an agent reads
// through a server (gopls type-checks a 12 MiB literal for seconds), and
// reading one costs its size in memory.
const DefaultMaxFileSize = 10 << 20
