// Package syncbuf is a byte buffer a test reads while another goroutine
// (a chain writing its trace, a child's stderr copier) writes to it.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer whose Write and String may be called from any
// goroutine; the zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
