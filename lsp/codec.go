package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// This file is the only place that turns Go values into LSP JSON and back.
// go.lsp.dev/protocol v1 types are wrong under encoding/json on Go 1.26
// (Optional fields encode as {}), so everything goes through
// protocol.Marshal/Unmarshal; codec_test.go fails if another file of the
// package calls encoding/json's Marshal or Unmarshal.

// encode returns the LSP JSON for v; nil encodes as JSON null.
func encode(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := protocol.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// decode reads LSP JSON into v.
func decode(raw []byte, v any) error {
	if err := protocol.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

// isEmptyResult reports whether a result carries no answer: null, [] or {}.
func isEmptyResult(raw json.RawMessage) bool {
	s := string(raw)
	switch s {
	case "", "null", "[]", "{}":
		return true
	}
	return false
}

// isArray reports whether raw is a JSON array (what diagnostics lists must
// be before they are stored or joined).
func isArray(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' && json.Valid(b)
}
