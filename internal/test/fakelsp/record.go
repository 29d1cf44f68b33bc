package fakelsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Message is one message the server received, as recorded.
type Message struct {
	// Kind is "request", "notification", "response" (to a server→client
	// request), "invalid" (undecodable body, kept in Params as a JSON
	// string) or, in a subprocess record only, "start" (Params holds
	// {"pid":N,"pgid":N}). A response's Method is that of the request it
	// answers.
	Kind   string          `json:"kind"`
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Start is the first record line of a subprocess.
type Start struct {
	PID  int `json:"pid"`
	PGID int `json:"pgid"`
	// Args are the command-line arguments it was started with, so tests
	// see what a client expanded into them (a -data folder).
	Args []string `json:"args,omitempty"`
}

// ReadRecord reads the messages a subprocess recorded with -record, one JSON
// object per line. A final partial line (the process was killed while
// writing it) is dropped.
func ReadRecord(path string) ([]Message, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fakelsp: read record: %w", err)
	}
	var out []Message
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxFrame+1024)
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			break
		}
		out = append(out, m)
	}
	return out, nil
}

// Starts returns the processes a record file saw start, in order: one per
// spawn when several subprocesses share the file.
func Starts(msgs []Message) []Start {
	var out []Start
	for _, m := range msgs {
		if m.Kind != "start" {
			continue
		}
		var s Start
		if json.Unmarshal(m.Params, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// Methods returns the methods of the requests and notifications in msgs,
// in order.
func Methods(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Kind == "request" || m.Kind == "notification" {
			out = append(out, m.Method)
		}
	}
	return out
}

// Requests returns the requests for method.
func Requests(msgs []Message, method string) []Message {
	var out []Message
	for _, m := range msgs {
		if m.Kind == "request" && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// CancelledIDs returns the ids named by $/cancelRequest notifications, as
// raw JSON text (e.g. `7` or `"a"`), in order.
func CancelledIDs(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Method != "$/cancelRequest" {
			continue
		}
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			out = append(out, string(p.ID))
		}
	}
	return out
}

// Versions returns the document versions the client sent for uri in didOpen
// and didChange, in order.
func Versions(msgs []Message, uri string) []int {
	var out []int
	for _, m := range msgs {
		if m.Method != "textDocument/didOpen" && m.Method != "textDocument/didChange" {
			continue
		}
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.TextDocument.URI == uri {
			out = append(out, p.TextDocument.Version)
		}
	}
	return out
}

// Responses returns the client's answers to server→client requests.
func Responses(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if m.Kind == "response" {
			out = append(out, m)
		}
	}
	return out
}
