// Package fakemodel is a scripted, OpenAI-compatible chat-completions server
// on 127.0.0.1 for end-to-end tests: a real agent (opencode) talks to it as
// its model, and the script decides which tools the "model" calls, in which
// order, and what it finally says. Every request is recorded so a test can
// assert what the model saw (prompts, offered tools, tool results).
//
// The script works per turn: the messages after the last user message. For
// each request the server counts the tool results already in the turn (n),
// takes the calls of the script that apply (their tool is offered and their
// prompt filter matches), and answers with a tool call for the n-th of them;
// once all have run it answers with text quoting the last tool result. So a
// script of calls A, B produces: call A; (A's result) call B; (B's result)
// final text.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Call is one tool call the fake model makes.
type Call struct {
	// Tool is a regular expression (Go syntax, unanchored) matched against the
	// names of the tools the request offers; the first offered name that
	// matches is called. opencode offers MCP tools as "<server>_<tool>".
	Tool string
	// Arguments is the JSON object text sent as the call's arguments.
	Arguments string
	// Prompt, when set, restricts the call to turns whose user message
	// contains it.
	Prompt string
}

// Script is what the fake model does in every turn.
type Script struct {
	// Calls are made in order, one per response, each after the previous
	// one's result arrived.
	Calls []Call
	// Reply is the final text when no tool result is in the turn; empty
	// means "no tool was called". With a tool result the final text is
	// FinalPrefix followed by the result's content.
	Reply string
}

// FinalPrefix starts the fake model's final text when the turn has a tool
// result: FinalPrefix + the content of the last tool message.
const FinalPrefix = "tool result: "

// Message is one chat message of a recorded request, with the content
// flattened to text.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a tool call inside an assistant message.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Request is one recorded chat-completions request.
type Request struct {
	Model    string
	Stream   bool
	Messages []Message
	// Tools are the names of the offered function tools, in request order.
	Tools []string
	// Raw is the request body as received.
	Raw json.RawMessage
	// Answer is what the server answered: a tool call or the final text.
	Answer Answer
}

// Answer is what the fake model answered to one request.
type Answer struct {
	// ToolCall is set when the answer was a tool call.
	ToolCall *ToolCall
	// Text is the answer's text when it was not a tool call.
	Text string
}

// ToolResults returns the contents of the tool messages in the request, in
// order.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// Offers reports whether the request offered a tool with exactly that name.
func (r Request) Offers(name string) bool {
	return slices.Contains(r.Tools, name)
}

// Server is a running fake model. Its methods are safe for concurrent use.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{} // closed when Serve returned

	mu       sync.Mutex
	script   Script
	compiled []*regexp.Regexp
	requests []Request
	changed  chan struct{} // closed and replaced on every recorded request
	nextID   int
}

// Start starts a fake model running script on 127.0.0.1 at a random port.
// Close stops it.
func Start(script Script) (*Server, error) {
	s := &Server{done: make(chan struct{}), changed: make(chan struct{})}
	if err := s.SetScript(script); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s.ln = ln
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// SetScript replaces the script; requests already answered are unaffected.
func (s *Server) SetScript(script Script) error {
	compiled := make([]*regexp.Regexp, len(script.Calls))
	for i, c := range script.Calls {
		re, err := regexp.Compile(c.Tool)
		if err != nil {
			return fmt.Errorf("fakemodel: call %d: tool pattern: %w", i, err)
		}
		if !json.Valid([]byte(c.Arguments)) {
			return fmt.Errorf("fakemodel: call %d: arguments are not JSON: %q", i, c.Arguments)
		}
		compiled[i] = re
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.compiled = script, compiled
	return nil
}

// BaseURL returns the OpenAI base URL, http://127.0.0.1:PORT/v1.
func (s *Server) BaseURL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Wait blocks until cond holds for the recorded requests (checked now and
// after each new request) or ctx ends.
func (s *Server) Wait(ctx context.Context, cond func([]Request) bool) error {
	for {
		s.mu.Lock()
		reqs := append([]Request(nil), s.requests...)
		ch := s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fakemodel: wait after %d requests: %w", len(reqs), ctx.Err())
		}
	}
}

// Close stops the server, closing every connection, and waits for it to
// stop.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"fake-model","object":"model","owned_by":"fakemodel"}]}`))
}

// wireRequest is the part of an OpenAI chat request the fake model reads.
type wireRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// ParseRequest decodes a chat-completions request body into a Request.
func ParseRequest(body []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return Request{}, fmt.Errorf("fakemodel: parse request: %w", err)
	}
	r := Request{Model: wr.Model, Stream: wr.Stream, Raw: json.RawMessage(append([]byte(nil), body...))}
	for _, t := range wr.Tools {
		if t.Function.Name != "" {
			r.Tools = append(r.Tools, t.Function.Name)
		}
	}
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, Content: flatten(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		r.Messages = append(r.Messages, msg)
	}
	return r, nil
}

// flatten turns a message content (a string, or an array of parts with
// text) into plain text.
func flatten(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

// decide picks the answer to r under the current script. The caller holds
// s.mu.
func (s *Server) decide(r Request) Answer {
	turn := r.Messages
	userText := ""
	for i := len(turn) - 1; i >= 0; i-- {
		if turn[i].Role == "user" {
			userText = turn[i].Content
			turn = turn[i+1:]
			break
		}
	}
	var results []string
	for _, m := range turn {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	n := 0
	for i, c := range s.script.Calls {
		if c.Prompt != "" && !strings.Contains(userText, c.Prompt) {
			continue
		}
		name := ""
		for _, t := range r.Tools {
			if s.compiled[i].MatchString(t) {
				name = t
				break
			}
		}
		if name == "" {
			continue
		}
		if n == len(results) {
			s.nextID++
			return Answer{ToolCall: &ToolCall{ID: fmt.Sprintf("call_%d", s.nextID), Name: name, Arguments: c.Arguments}}
		}
		n++
	}
	if len(results) > 0 {
		return Answer{Text: FinalPrefix + results[len(results)-1]}
	}
	if s.script.Reply != "" {
		return Answer{Text: s.script.Reply}
	}
	return Answer{Text: "no tool was called"}
}

func (s *Server) chat(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, hr.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakemodel: read request: "+err.Error())
		return
	}
	r, err := ParseRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	r.Answer = s.decide(r)
	id := fmt.Sprintf("chatcmpl-%d", len(s.requests))
	s.requests = append(s.requests, r)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	if r.Stream {
		writeStream(w, id, r.Model, r.Answer)
	} else {
		writeWhole(w, id, r.Model, r.Answer)
	}
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}

type chunkToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func wireToolCall(tc *ToolCall) chunkToolCall {
	c := chunkToolCall{ID: tc.ID, Type: "function"}
	c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
	return c
}

func usage() map[string]int {
	return map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
}

// writeStream answers as server-sent events: a role chunk, the content or
// tool-call delta, a finish chunk with usage, then [DONE].
func writeStream(w http.ResponseWriter, id, model string, a Answer) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	send := func(delta map[string]any, finish any, withUsage bool) {
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if withUsage {
			chunk["usage"] = usage()
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil, false)
	finish := "stop"
	if a.ToolCall != nil {
		send(map[string]any{"tool_calls": []any{wireToolCall(a.ToolCall)}}, nil, false)
		finish = "tool_calls"
	} else {
		send(map[string]any{"content": a.Text}, nil, false)
	}
	send(map[string]any{}, finish, true)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// writeWhole answers a non-streaming request with one chat.completion.
func writeWhole(w http.ResponseWriter, id, model string, a Answer) {
	msg := map[string]any{"role": "assistant", "content": a.Text}
	finish := "stop"
	if a.ToolCall != nil {
		msg["content"] = nil
		msg["tool_calls"] = []any{wireToolCall(a.ToolCall)}
		finish = "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   usage(),
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
