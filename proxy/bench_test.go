package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

var benchMsgs = map[string]string{
	"update-300B":  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_abc123def456","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_1","content":{"type":"text","text":"Here is the change you asked for: the function now returns early when the slice is empty, and the loop below no longer indexes past the end."}}}}`,
	"prompt-64KiB": `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"file:///a.go","mimeType":"text/x-go","text":"` + strings.Repeat(`func f() { return \"x\" }\n`, 2700) + `"}}]}}`,
}

// BenchmarkParse is the per-message scan the chain does.
func BenchmarkParse(b *testing.B) {
	for name, s := range benchMsgs {
		raw := []byte(s)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Parse(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJSONDecode is one full encoding/json decode of the same
// messages, the yardstick for BenchmarkParse and BenchmarkForward.
func BenchmarkJSONDecode(b *testing.B) {
	for name, s := range benchMsgs {
		raw := []byte(s)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkForward is the whole in-process cost of forwarding one message
// client → agent (read line, scan, queue, write), with 0 and 2 identity
// components.
func BenchmarkForward(b *testing.B) {
	for _, name := range []string{"update-300B"} {
		s := benchMsgs[name]
		for _, ncomp := range []int{0, 2} {
			b.Run(name+"/"+string(rune('0'+ncomp))+"-components", func(b *testing.B) {
				line := []byte(s + "\n")
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				agentIn, agentInW := io.Pipe()
				comps := make([]Stage, ncomp)
				for i := range comps {
					comps[i] = Identity{}
				}
				c := NewChain(Config{
					Client: NewStream(inR, outW, StreamOptions{}),
					Agent:  NewStream(agentIn, io.Discard, StreamOptions{}),
					Stages: comps,
				})
				done := make(chan error, 1)
				go func() { done <- c.Run(context.Background()) }()
				b.SetBytes(int64(len(line)))
				b.ResetTimer()
				for b.Loop() {
					if _, err := inW.Write(line); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				inW.Close()
				agentInW.Close()
				<-done
				outR.Close()
			})
		}
	}
}

// BenchmarkChainStream is the chain's own cost per forwarded session/update
// from the agent to the client, without pipes or other processes: the
// agent's output is in memory, the client's input never ends, its output
// is discarded. With 0 and 2 identity components.
func BenchmarkChainStream(b *testing.B) {
	line := benchMsgs["update-300B"] + "\n"
	for _, ncomp := range []int{0, 2} {
		b.Run(fmt.Sprintf("%d-components", ncomp), func(b *testing.B) {
			comps := make([]Stage, ncomp)
			for i := range comps {
				comps[i] = Identity{}
			}
			clientIn, clientInW := io.Pipe()
			c := NewChain(Config{
				Client: NewStream(clientIn, io.Discard, StreamOptions{}),
				Agent:  NewStream(&lines{line: []byte(line), n: b.N}, io.Discard, StreamOptions{}),
				Stages: comps,
			})
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			b.ResetTimer()
			err := c.Run(context.Background())
			b.StopTimer()
			clientInW.Close()
			if !errors.Is(err, ErrAgentGone) {
				b.Fatal(err)
			}
		})
	}
}

// lines reads as n copies of line, filling each read with whole lines, as a
// pipe from a fast writer does.
type lines struct {
	line []byte
	n    int
}

func (l *lines) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for l.n > 0 && len(p)-k >= len(l.line) {
		k += copy(p[k:], l.line)
		l.n--
	}
	return k, nil
}

// BenchmarkReadLongLine reads lines longer than the read buffer (a prompt
// holding a file, an image): the bytes and allocations per line.
func BenchmarkReadLongLine(b *testing.B) {
	for _, size := range []int{200 << 10, 4 << 20, 40 << 20} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			line := append(bytes.Repeat([]byte("a"), size), '\n')
			b.SetBytes(int64(size))
			b.ReportAllocs()
			r := bytes.NewReader(line)
			lr := NewLineReader(r, 0)
			for b.Loop() {
				r.Reset(line)
				lr.r.Reset(r)
				if _, err := lr.ReadLine(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
