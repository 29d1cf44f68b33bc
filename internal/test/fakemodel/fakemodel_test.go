package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// msg builds one wire chat message.
func msg(role, content string) map[string]any {
	return map[string]any{"role": role, "content": content}
}

func call(id, name, args string) map[string]any {
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
		map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}},
	}}
}

func result(id, content string) map[string]any {
	return map[string]any{"role": "tool", "tool_call_id": id, "content": content}
}

func tools(names ...string) []any {
	var out []any
	for _, n := range names {
		out = append(out, map[string]any{"type": "function", "function": map[string]any{"name": n, "parameters": map[string]any{"type": "object"}}})
	}
	return out
}

// post sends one request and decodes the answer, streamed or whole.
func post(t *testing.T, s *Server, stream bool, messages []any, offered []any) Answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "fake-model", "stream": stream, "messages": messages, "tools": offered})
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var a Answer
	if !stream {
		var whole struct {
			Choices []struct {
				Message struct {
					Content   *string         `json:"content"`
					ToolCalls []chunkToolCall `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil {
			t.Fatal(err)
		}
		m := whole.Choices[0].Message
		if m.Content != nil {
			a.Text = *m.Content
		}
		for _, tc := range m.ToolCalls {
			a.ToolCall = &ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
		return a
	}
	sc := bufio.NewScanner(resp.Body)
	sawDone, finish := false, ""
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			sawDone = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string          `json:"content"`
					ToolCalls []chunkToolCall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &chunk); err != nil {
			t.Fatalf("bad chunk %q: %v", line, err)
		}
		c := chunk.Choices[0]
		a.Text += c.Delta.Content
		for _, tc := range c.Delta.ToolCalls {
			a.ToolCall = &ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
		if c.FinishReason != nil {
			finish = *c.FinishReason
		}
	}
	if !sawDone {
		t.Error("stream did not end with [DONE]")
	}
	if want := map[bool]string{true: "tool_calls", false: "stop"}[a.ToolCall != nil]; finish != want {
		t.Errorf("finish_reason %q, want %q", finish, want)
	}
	return a
}

func TestAnswers(t *testing.T) {
	ab := Script{Calls: []Call{{Tool: `_alpha$`, Arguments: `{"n":1}`}, {Tool: `beta`, Arguments: `{"n":2}`}}, Reply: "hello"}
	tests := []struct {
		name     string
		script   Script
		messages []any
		offered  []any
		wantTool string // name of the called tool, or ""
		wantArgs string
		wantText string
	}{
		{"no tools offered gives the reply", ab, []any{msg("user", "hi")}, nil, "", "", "hello"},
		{"default reply", Script{}, []any{msg("user", "hi")}, nil, "", "", "no tool was called"},
		{"first call", ab, []any{msg("system", "s"), msg("user", "hi")}, tools("x_alpha", "x_beta"), "x_alpha", `{"n":1}`, ""},
		{"second call after the first result", ab,
			[]any{msg("user", "hi"), call("c1", "x_alpha", `{"n":1}`), result("c1", "A says 1")},
			tools("x_alpha", "x_beta"), "x_beta", `{"n":2}`, ""},
		{"final text quotes the last result", ab,
			[]any{msg("user", "hi"), call("c1", "x_alpha", "{}"), result("c1", "A"), call("c2", "x_beta", "{}"), result("c2", "B said this")},
			tools("x_alpha", "x_beta"), "", "", FinalPrefix + "B said this"},
		{"a call whose tool is not offered is skipped", ab, []any{msg("user", "hi")}, tools("x_beta"), "x_beta", `{"n":2}`, ""},
		{"results of an earlier turn do not count", ab,
			[]any{msg("user", "one"), call("c1", "x_alpha", "{}"), result("c1", "A"), msg("assistant", "done"), msg("user", "two")},
			tools("x_alpha"), "x_alpha", `{"n":1}`, ""},
		{"prompt filter that does not match", Script{Calls: []Call{{Tool: "lsp", Arguments: "{}", Prompt: "hover"}}},
			[]any{msg("user", "rename it")}, tools("acp-lsp_lsp"), "", "", "no tool was called"},
		{"prompt filter that matches array content", Script{Calls: []Call{{Tool: "lsp", Arguments: "{}", Prompt: "hover"}}},
			[]any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "please hover"}}}},
			tools("acp-lsp_lsp"), "acp-lsp_lsp", "{}", ""},
		{"the same tool twice", Script{Calls: []Call{{Tool: "t", Arguments: `{"i":1}`}, {Tool: "t", Arguments: `{"i":2}`}}},
			[]any{msg("user", "go"), call("c1", "t", "{}"), result("c1", "one")}, tools("t"), "t", `{"i":2}`, ""},
	}
	for _, stream := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(map[bool]string{true: "stream/", false: "whole/"}[stream]+tt.name, func(t *testing.T) {
				s, err := Start(tt.script)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				got := post(t, s, stream, tt.messages, tt.offered)
				if tt.wantTool != "" {
					if got.ToolCall == nil || got.ToolCall.Name != tt.wantTool || got.ToolCall.Arguments != tt.wantArgs || got.ToolCall.ID == "" {
						t.Fatalf("answer %+v (call %+v), want call %s %s", got, got.ToolCall, tt.wantTool, tt.wantArgs)
					}
				} else if got.ToolCall != nil || got.Text != tt.wantText {
					t.Fatalf("answer %+v, want text %q", got, tt.wantText)
				}
				reqs := s.Requests()
				if len(reqs) != 1 {
					t.Fatalf("recorded %d requests, want 1", len(reqs))
				}
				if diff := cmp.Diff(got, reqs[0].Answer); diff != "" {
					t.Errorf("recorded answer differs (-sent +recorded):\n%s", diff)
				}
				if reqs[0].Stream != stream || reqs[0].Model != "fake-model" {
					t.Errorf("recorded %+v", reqs[0])
				}
			})
		}
	}
}

func TestRecordsWhatTheModelSaw(t *testing.T) {
	s, err := Start(Script{Calls: []Call{{Tool: "t", Arguments: "{}"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	post(t, s, true, []any{msg("system", "be brief"), msg("user", "hi"), call("c1", "t", `{"a":1}`), result("c1", "the result")}, tools("t", "u"))
	r := s.Requests()[0]
	if diff := cmp.Diff([]string{"the result"}, r.ToolResults()); diff != "" {
		t.Error(diff)
	}
	if !r.Offers("u") || r.Offers("v") {
		t.Errorf("tools %v", r.Tools)
	}
	want := []Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":1}`}}},
		{Role: "tool", Content: "the result", ToolCallID: "c1"},
	}
	if diff := cmp.Diff(want, r.Messages); diff != "" {
		t.Error(diff)
	}
}

func TestWait(t *testing.T) {
	s, err := Start(Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := make(chan error, 1)
	go func() {
		got <- s.Wait(context.Background(), func(r []Request) bool { return len(r) == 2 })
	}()
	post(t, s, true, []any{msg("user", "1")}, nil)
	post(t, s, false, []any{msg("user", "2")}, nil)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Wait(ctx, func(r []Request) bool { return len(r) == 3 }); err == nil {
		t.Fatal("Wait on a cancelled context returned nil")
	}
}

func TestBadInput(t *testing.T) {
	if _, err := Start(Script{Calls: []Call{{Tool: "(", Arguments: "{}"}}}); err == nil {
		t.Error("bad pattern accepted")
	}
	if _, err := Start(Script{Calls: []Call{{Tool: "x", Arguments: "{"}}}); err == nil {
		t.Error("bad arguments accepted")
	}
	s, err := Start(Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed body: status %d", resp.StatusCode)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("malformed request recorded (%d)", n)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"t"}}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"tool","content":null}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			return
		}
		s := &Server{}
		_ = s.SetScript(Script{Calls: []Call{{Tool: ".", Arguments: "{}"}}})
		s.decide(r)
	})
}
