package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

func rng(l1, c1, l2, c2 uint32) position.Range {
	return position.Range{Start: position.Position{Line: l1, Character: c1}, End: position.Position{Line: l2, Character: c2}}
}

// TestParseLocations reads every form a location answer takes.
func TestParseLocations(t *testing.T) {
	const r = `{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}`
	const whole = `{"start":{"line":0,"character":0},"end":{"line":9,"character":0}}`
	for _, tt := range []struct {
		name, raw string
		want      []Location
		wantErr   string
	}{
		{"null", `null`, nil, ""},
		{"empty", ``, nil, ""},
		{"empty list", `[]`, []Location{}, ""},
		{"one location", ` {"uri":"file:///a","range":` + r + `}`, []Location{{"file:///a", rng(1, 2, 1, 5)}}, ""},
		{"locations", `[{"uri":"file:///a","range":` + r + `},{"uri":"file:///b","range":` + whole + `}]`,
			[]Location{{"file:///a", rng(1, 2, 1, 5)}, {"file:///b", rng(0, 0, 9, 0)}}, ""},
		{"link: the selection range", `[{"targetUri":"file:///b","targetRange":` + whole + `,"targetSelectionRange":` + r + `}]`,
			[]Location{{"file:///b", rng(1, 2, 1, 5)}}, ""},
		{"link without selection range: the whole target", `{"targetUri":"file:///b","targetRange":` + whole + `}`,
			[]Location{{"file:///b", rng(0, 0, 9, 0)}}, ""},
		{"negative line", `[{"uri":"file:///a","range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}}}]`, nil, "cannot unmarshal"},
		{"string", `"x"`, nil, "cannot unmarshal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLocations(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.want == nil) || len(got) != len(tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %#v, want %#v", got, tt.want)
				}
			}
		})
	}
}

// FuzzParseLocations feeds arbitrary server answers to ParseLocations: no
// panic, and what it accepts encodes again as Locations that read back the
// same.
func FuzzParseLocations(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `{}`, `"x"`, `[null]`,
		`{"uri":"file:///a","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}`,
		`[{"targetUri":"file:///b","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"targetSelectionRange":{"start":{"line":4294967295,"character":0},"end":{"line":0,"character":0}}}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		locs, err := ParseLocations(json.RawMessage(raw))
		if err != nil {
			return
		}
		b, err := json.Marshal(locs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseLocations(b)
		if err != nil || len(again) != len(locs) {
			t.Fatalf("%s: read back %v, %v", b, again, err)
		}
		for i := range locs {
			if again[i] != locs[i] {
				t.Fatalf("%s: read back %v", b, again)
			}
		}
	})
}
