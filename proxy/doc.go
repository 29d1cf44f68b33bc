// Package proxy forwards ACP (JSON-RPC 2.0 over newline-delimited JSON)
// between a client end and an agent end through a chain of stages.
//
// A Chain joins two Endpoints (a Stream over stdio or a pipe, a Process
// for a child) with Stages between them; each Stage sees every
// message at its position through its Hop and decides what travels on.
// Messages are kept as the raw bytes read: Parse scans a line and decodes
// only its id and method, and GetPath, SetPath, AppendPath and the
// Message.With* copies change one field without re-encoding the rest, so
// what is not changed is written exactly as it came. Flow control bounds
// what one side may have in the chain; each side's reader never waits on
// writing to that same side.
//
// docs/architecture.md describes the contracts (ordering, answering later,
// cancellation, shutdown) and how a message travels.
package proxy
