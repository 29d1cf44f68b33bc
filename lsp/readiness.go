package lsp

import (
	"fmt"
	"strings"
)

// ReadyState is how far a server is with loading its project.
type ReadyState string

// Ready states. A list a server gives while it is not Ready (references,
// workspace symbols) may be incomplete: typescript-language-server,
// clangd and pyright answer from what they have loaded so far.
const (
	// ReadyStarting: the process is starting or initializing.
	ReadyStarting ReadyState = "starting"
	// ReadyLoading: the server runs but has not finished loading its
	// project (see LoadSignals).
	ReadyLoading ReadyState = "loading"
	// Ready: the server has loaded its project, as far as it shows.
	Ready ReadyState = "ready"
)

// Progress is one piece of work a server reports with $/progress, as last
// reported.
type Progress struct {
	Title   string `json:"title"`
	Message string `json:"message,omitempty"`
	// Percentage is 0 to 100, nil when the server gives none.
	Percentage *int `json:"percentage,omitempty"`
}

// String is "indexing 40%: 600/1502".
func (w Progress) String() string {
	s := w.Title
	if w.Percentage != nil {
		s = strings.TrimSpace(fmt.Sprintf("%s %d%%", s, *w.Percentage))
	}
	switch {
	case w.Message == "":
	case s == "":
		s = w.Message
	default:
		s += ": " + w.Message
	}
	return s
}

// Readiness is a server's readiness at one moment: for an answer, when
// the answer arrived.
type Readiness struct {
	Server string     `json:"server"`
	State  ReadyState `json:"state"`
	// Progress is the loading work in progress, as last reported; empty
	// while loading for a server that reports none (LoadSignals.DoneLog).
	Progress []Progress `json:"progress,omitempty"`
}

// Work describes what the server is doing: the progress it reports, or
// that it reports none.
func (r Readiness) Work() string {
	if len(r.Progress) == 0 {
		if r.State == ReadyStarting {
			return "starting"
		}
		return "no progress reported"
	}
	parts := make([]string, len(r.Progress))
	for i, w := range r.Progress {
		parts[i] = w.String()
	}
	return strings.Join(parts, "; ")
}
