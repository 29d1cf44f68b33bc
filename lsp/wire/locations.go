package wire

import (
	"bytes"
	"encoding/json"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// locationOrLink reads an LSP Location or LocationLink.
type locationOrLink struct {
	URI                  string          `json:"uri"`
	Range                position.Range  `json:"range"`
	TargetURI            string          `json:"targetUri"`
	TargetRange          position.Range  `json:"targetRange"`
	TargetSelectionRange *position.Range `json:"targetSelectionRange"`
}

// ParseLocations reads what definition, references and the other location
// requests answer: Location | Location[] | LocationLink[] | null (a single
// LocationLink too). A link becomes the Location of its target's selection
// range (the name, where a Location would point), or of its whole target
// range when it has none.
func ParseLocations(raw json.RawMessage) ([]Location, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var many []locationOrLink
	if raw[0] == '{' {
		var one locationOrLink
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		many = []locationOrLink{one}
	} else if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		if l.TargetURI == "" {
			out = append(out, Location{URI: l.URI, Range: l.Range})
			continue
		}
		r := l.TargetRange
		if l.TargetSelectionRange != nil {
			r = *l.TargetSelectionRange
		}
		out = append(out, Location{URI: l.TargetURI, Range: r})
	}
	return out, nil
}
