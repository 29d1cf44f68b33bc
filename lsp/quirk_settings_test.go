package lsp

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestQuirkObjectSettings: a workspace/configuration item whose section
// has no settings is answered null, as the protocol allows, except for a
// server whose entry says Quirks.ObjectSettings (the CSS server crashes
// reading a property of null): it gets {}. Configured sections and the
// whole-settings item answer the same either way.
func TestQuirkObjectSettings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		quirks Quirks
		want   []string
	}{
		{"null by default", Quirks{}, []string{`{"validate":true}`, `null`, `{"css":{"validate":true}}`}},
		{"an object for a server that needs it", Quirks{ObjectSettings: true}, []string{`{"validate":true}`, `{}`, `{"css":{"validate":true}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{ClientRequests: []fakelsp.ClientRequest{
				{Method: "workspace/configuration", Params: json.RawMessage(`{"items":[{"section":"css"},{"section":"less"},{}]}`)},
			}}, func(o *Options) {
				o.Servers[0].Settings = map[string]json.RawMessage{"css": json.RawMessage(`{"validate":true}`)}
				o.Servers[0].Quirks = tc.quirks
			})
			e.wantHover() // answered only after the configuration request was
			e.close()
			resp := fakelsp.Responses(e.messages())
			if len(resp) != 1 {
				t.Fatalf("responses %+v, want the configuration answer", resp)
			}
			var got []json.RawMessage
			if err := decode(resp[0].Result, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("answer %s, want %v", resp[0].Result, tc.want)
			}
			for i := range got {
				if string(got[i]) != tc.want[i] {
					t.Errorf("item %d: %s, want %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}
