//go:build !unix

package conductor

import "os"

// pollable reports false: where there is no dup and O_NONBLOCK (Windows),
// Input copies the client's input through an io.Pipe (a plain blocking
// read by a goroutine) and output writes the client's output as it is.
func pollable(*os.File) (*os.File, bool) { return nil, false }

// setBlocking is never reached without pollable; nothing was changed.
func setBlocking(*os.File) {}
