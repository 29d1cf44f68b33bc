//go:build linux

package proxy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestStreamRawPipe runs a Stream over non-blocking pipes, which it reads
// and writes with raw system calls: lines come through whole and in
// order, idle runs only when nothing more is buffered in the kernel, a
// write larger than the pipe waits for room, and the end and a close are
// reported as os.File reports them.
func TestStreamRawPipe(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"x":1}}`
	big := `{"jsonrpc":"2.0","method":"big","params":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name   string
		writes []string // each written at once before reading
		want   []string
		// idleMax is the most idle calls before the last message.
		idleMax int
	}{
		{name: "two writes buffered", writes: []string{line + "\n" + line[:10], line[10:] + "\n"}, want: []string{line, line}, idleMax: 0},
		{name: "one line", writes: []string{line + "\n"}, want: []string{line}, idleMax: 0},
		{name: "line larger than the pipe", writes: []string{big + "\n"}, want: []string{big}, idleMax: 1 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer outR.Close()
			s := NewStream(inR, outW, StreamOptions{Name: "test"})
			if s.raw == nil {
				t.Fatal("an os.Pipe is not read raw")
			}
			idle := 0
			s.OnIdle(func() { idle++ })
			wrote := make(chan error, 1)
			go func() {
				var err error
				for _, w := range tt.writes {
					if _, err = inW.WriteString(w); err != nil {
						break
					}
				}
				wrote <- errors.Join(err, inW.Close())
			}()
			// Let everything reach the pipe before the first read, so
			// idle counts only waits for more (the big line cannot fit).
			if len(tt.writes[0]) < 1<<16 {
				if err := <-wrote; err != nil {
					t.Fatal(err)
				}
				wrote <- nil
			}
			var got []*Message
			idleBeforeLast := 0
			for {
				m, err := s.Read()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, m)
				idleBeforeLast = idle
			}
			if idle == idleBeforeLast {
				t.Error("idle not called at the end of input (a Process waits for the exit there)")
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("read %d messages, want %d", len(got), len(tt.want))
			}
			if len(tt.writes[0]) < 1<<16 && idleBeforeLast > tt.idleMax {
				t.Errorf("idle called %d times with input buffered, want at most %d", idleBeforeLast, tt.idleMax)
			}
			// Back out through the raw writer, larger than the pipe.
			read := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(outR)
				read <- b
			}()
			var want bytes.Buffer
			for i, m := range got {
				if string(m.Raw) != tt.want[i] {
					t.Errorf("message %d differs", i)
				}
				if err := s.Write(m); err != nil {
					t.Fatal(err)
				}
				want.WriteString(tt.want[i] + "\n")
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if b := <-read; !bytes.Equal(b, want.Bytes()) {
				t.Errorf("wrote %d bytes, want %d", len(b), want.Len())
			}
			if _, err := s.Read(); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Read after Close: %v, want os.ErrClosed", err)
			}
		})
	}
}

// TestStreamRawCloseUnblocks checks that closing a raw-read pipe ends a
// Read waiting in the poller, as Endpoint.Close must.
func TestStreamRawCloseUnblocks(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	s := NewStream(inR, io.Discard, StreamOptions{Name: "test"})
	waiting := make(chan struct{})
	var once sync.Once
	s.OnIdle(func() { once.Do(func() { close(waiting) }) })
	done := make(chan error, 1)
	go func() {
		_, err := s.Read()
		done <- err
	}()
	<-waiting
	s.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read: %v, want os.ErrClosed", err)
	}
}

// TestNewRawFile: only a non-blocking file in the poller is read and
// written raw.
func TestNewRawFile(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	br, bw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	defer bw.Close()
	br.Fd() // puts it into blocking mode
	reg, err := os.Create(t.TempDir() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	tests := []struct {
		name string
		x    any
		raw  bool
	}{
		{"pipe read end", r, true},
		{"pipe write end", w, true},
		{"blocking pipe", br, false},
		{"regular file", reg, false},
		{"not a file", io.Discard, false},
		{"nil file", (*os.File)(nil), false},
	}
	for _, tt := range tests {
		if got := newRawFile(tt.x) != nil; got != tt.raw {
			t.Errorf("%s: raw %v, want %v", tt.name, got, tt.raw)
		}
	}
}
