package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// FloodResult is what Flood saw.
type FloodResult struct {
	// Answers counts the answers to the flood's requests, each one
	// checked against the request it answers.
	Answers int
	// Asked counts the requests the agent sent toward the client; Flood
	// answered every one.
	Asked int
	// AgentAnswers is the count of answers the agent said it received
	// (its flood/stats notification), or -1 when it said nothing.
	AgentAnswers int
}

// Flood is the client side of a flood (testdata/agents/flood.py on the
// other end, directly or through acp-lsp): it writes initialize and n
// requests to w as fast as w takes them, each asking the agent for a
// request of its own toward the client, answers every request it reads
// from r (from another goroutine than the writer, so the client never
// stops reading), and closes w once all n were answered and all n asked.
// It returns when r ends, with an error when an answer was missing,
// wrong or duplicated; when ctx ends first it closes w and r, waits for
// its goroutines, and returns how far it got.
func Flood(ctx context.Context, w io.WriteCloser, r io.ReadCloser, n int) (FloodResult, error) {
	f := &flood{n: n, seen: make([]bool, n+1), res: FloodResult{AgentAnswers: -1}}
	f.cond = sync.NewCond(&f.mu)
	var wg sync.WaitGroup
	wg.Add(2)
	werr := make(chan error, 1)
	go func() {
		defer wg.Done()
		werr <- f.write(w)
	}()
	rerr := make(chan error, 1)
	go func() {
		defer wg.Done()
		rerr <- f.read(r)
	}()
	var err error
	select {
	case err = <-rerr:
	case <-ctx.Done():
		w.Close()
		r.Close()
		err = fmt.Errorf("flood: %w", ctx.Err())
	}
	f.mu.Lock()
	f.stop = true
	f.cond.Broadcast()
	f.mu.Unlock()
	w.Close()
	wg.Wait()
	if err == nil {
		err = <-werr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && (f.res.Answers != n || f.res.Asked != n) {
		err = fmt.Errorf("flood: the input ended after %d of %d answers and %d of %d asks", f.res.Answers, n, f.res.Asked, n)
	}
	return f.res, err
}

type flood struct {
	n    int
	mu   sync.Mutex
	cond *sync.Cond
	// out holds answers to the agent's requests, written by the
	// writer between its own requests.
	out  [][]byte
	seen []bool
	res  FloodResult
	// stop ends the writer (the reader ended, or ctx did).
	stop bool
}

// write writes initialize, the n requests and the queued answers, then
// closes w once everything was answered both ways.
func (f *flood) write(w io.WriteCloser) error {
	defer w.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	put := func(line []byte) error {
		bw.Write(line)
		return bw.WriteByte('\n')
	}
	if err := put([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)); err != nil {
		return fmt.Errorf("flood: write: %w", err)
	}
	next := 1
	for {
		f.mu.Lock()
		if len(f.out) == 0 && next > f.n && !f.stop && !f.complete() {
			// Everything is written: what is left is the other side's.
			f.mu.Unlock()
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("flood: write: %w", err)
			}
			f.mu.Lock()
			for len(f.out) == 0 && !f.stop && !f.complete() {
				f.cond.Wait()
			}
		}
		out := f.out
		f.out = nil
		stop := f.stop
		finished := next > f.n && len(out) == 0 && f.complete()
		f.mu.Unlock()
		if stop {
			return nil
		}
		for _, line := range out {
			if err := put(line); err != nil {
				return fmt.Errorf("flood: write: %w", err)
			}
		}
		if next <= f.n {
			line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(next) + `,"method":"flood/ping","params":{"ask":true}}`
			if err := put([]byte(line)); err != nil {
				return fmt.Errorf("flood: write: %w", err)
			}
			next++
		}
		if finished {
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("flood: write: %w", err)
			}
			return nil
		}
	}
}

// complete reports whether every request was answered both ways; f.mu
// is held.
func (f *flood) complete() bool { return f.res.Answers == f.n && f.res.Asked == f.n }

// read reads r to its end, checking answers and queueing answers to the
// agent's requests for the writer.
func (f *flood) read(r io.Reader) error {
	lr := bufio.NewReaderSize(r, 64<<10)
	var bad error
	for {
		line, err := lr.ReadBytes('\n')
		if len(line) > 0 {
			if e := f.take(line); e != nil && bad == nil {
				bad = e
			}
		}
		if errors.Is(err, io.EOF) {
			return bad
		}
		if err != nil {
			if bad != nil {
				return bad
			}
			return fmt.Errorf("flood: read: %w", err)
		}
	}
}

func (f *flood) take(line []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result struct {
			Echo json.RawMessage `json:"echo"`
		} `json:"result"`
		Error *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("flood: not JSON: %q: %w", line, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.cond.Broadcast()
	switch {
	case m.Method == "flood/stats":
		var s struct{ Answers int }
		json.Unmarshal(m.Params, &s)
		f.res.AgentAnswers = s.Answers
	case m.Method != "" && m.ID != nil:
		f.res.Asked++
		f.out = append(f.out, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`))
	case m.Method == "" && string(m.ID) == "0":
		// initialize's answer
	case m.Method == "":
		id, err := strconv.Atoi(string(m.ID))
		if err != nil || id < 1 || id > f.n {
			return fmt.Errorf("flood: an answer to no request: %s", line)
		}
		if m.Error != nil || string(m.Result.Echo) != string(m.ID) {
			return fmt.Errorf("flood: a wrong answer: %s", line)
		}
		if f.seen[id] {
			return fmt.Errorf("flood: a second answer: %s", line)
		}
		f.seen[id] = true
		f.res.Answers++
	}
	return nil
}
