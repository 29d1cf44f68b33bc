package lsp

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestSettingsPushedAfterInitialized: a server with Settings gets them in
// a workspace/didChangeConfiguration right after initialized, as editors
// send them (the JSON, YAML and CSS servers read most settings only from
// it); a server without Settings gets none at all, since an empty update
// is not harmless (it turns the JSON server's validation off).
func TestSettingsPushedAfterInitialized(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]json.RawMessage
		want     string // the update's params; "" for none sent
	}{
		{"settings pushed", map[string]json.RawMessage{"json": json.RawMessage(`{"validate":{"enable":true}}`)}, `{"settings":{"json":{"validate":{"enable":true}}}}`},
		{"no empty update", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) { o.Servers[0].Settings = tc.settings })
			e.wantHover()
			e.close()
			var got []string
			seenInitialized := false
			for _, m := range e.messages() {
				switch m.Method {
				case "initialized":
					seenInitialized = true
				case "workspace/didChangeConfiguration":
					if !seenInitialized {
						t.Errorf("didChangeConfiguration before initialized")
					}
					got = append(got, string(m.Params))
				}
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("updates %v, want none", got)
			case tc.want != "" && (len(got) != 1 || !jsonEqual(t, got[0], tc.want)):
				t.Errorf("updates %v, want one with %s", got, tc.want)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := decode(json.RawMessage(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := decode(json.RawMessage(b), &y); err != nil {
		t.Fatal(err)
	}
	ea, _ := encode(x)
	eb, _ := encode(y)
	return string(ea) == string(eb)
}
