//go:build linux

package proxy

import (
	"os"
	"testing"
	"time"
)

// TestIdleHoldsNoReadLock: the idle hook, which flushes what the reader
// wrote and may wait for a peer that does not read, runs while nothing
// of the file being read is held, so closing that file still returns.
// It ran inside the read's raw callback, holding the descriptor: an
// editor that died while the chain flushed toward a stuck agent left
// Chain.Run waiting in the client's Close for good, deaf to SIGTERM
// (found by review after issue 18, item 1).
func TestIdleHoldsNoReadLock(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := NewStream(r, nil, StreamOptions{Name: "test"})
	if s.raw == nil {
		t.Fatal("an os.Pipe is not read raw")
	}
	inIdle := make(chan struct{})
	release := make(chan struct{})
	var once bool
	s.OnIdle(func() {
		if !once {
			once = true
			close(inIdle)
			<-release // a flush toward a peer that never reads
		}
	})
	read := make(chan error, 1)
	go func() {
		_, err := s.Read()
		read <- err
	}()
	<-inIdle
	closed := make(chan struct{})
	go func() {
		r.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		close(release)
		<-closed
		t.Fatal("closing the file waited for the idle hook")
	}
	close(release)
	if err := <-read; err == nil {
		t.Fatal("Read returned a message from a closed pipe")
	}
}
