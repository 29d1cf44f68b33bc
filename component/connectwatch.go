package component

import (
	"sync"
	"time"
)

// connectWatch notices a session whose agent never opens the session's MCP
// server: several ACP agents drop mcpServers without a word
// (shindgew/agy-acp#136, svkozak/pi-acp#67, evalstate/fast-agent#827), and
// the user would otherwise never learn why the model has no lsp tool.
//
// The bound runs from the later of the setup's answer and the session's
// first session/prompt. Not from the answer alone: an agent may open its
// MCP servers lazily, as its first turn starts (it needs the tool list
// before the model's first call), and the user may type that prompt much
// later; an agent that connects at once is done long before either
// (opencode opens it while handling session/new, before its answer:
// TestOpencodeOpensTheServer). So a session nobody prompts is
// never warned about, and an agent that connects lazily has the whole
// bound after the prompt to do so.
//
// When the bound passes unopened, warn runs once (it returns the line for
// the session and the logging of the warning, done after the line is
// queued). The line goes to the editor at the end of the
// turn in progress, just before the turn's answer, so it never splits the
// agent's streamed message; with no turn in progress it goes at once.
type connectWatch struct {
	mu sync.Mutex
	// bound is how long after the later of answer and first prompt the
	// agent may take; negative: never warn.
	bound time.Duration
	// warn returns the session's line and the function that logs the
	// warning, called once the line is queued or sent; send writes a line
	// to the editor. Both nil until the stage sets them (setActions).
	warn func() (line string, log func())
	send func(string)
	// immediate: there is nothing to wait for (no entry was injected), so
	// the line is due with the first prompt.
	immediate bool

	opened, answered, prompted, done bool
	// openedCh is closed at the first open, at openedAt (tests wait on
	// it and measure).
	openedCh chan struct{}
	openedAt time.Time
	timer    *time.Timer
	// turns are the prompt turns in progress; queued is the line waiting
	// for the end of one.
	turns  int
	queued string
}

func newConnectWatch(bound time.Duration) *connectWatch {
	return &connectWatch{bound: bound, openedCh: make(chan struct{})}
}

// setActions sets what expiry does; immediate makes the line due at the
// first prompt (no entry was injected, so no connection can come).
func (w *connectWatch) setActions(warn func() (string, func()), send func(string), immediate bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warn, w.send, w.immediate = warn, send, immediate
}

// open records that the agent opened the MCP server: nothing fires from
// then on.
func (w *connectWatch) open() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.opened {
		w.openedAt = time.Now()
		close(w.openedCh)
	}
	w.opened = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// isOpened reports whether the agent opened the server.
func (w *connectWatch) isOpened() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.opened
}

// setupAnswered records the agent's answer to the session's setup request.
func (w *connectWatch) setupAnswered() {
	w.mu.Lock()
	w.answered = true
	fire := w.armLocked()
	w.mu.Unlock()
	if fire {
		w.expire()
	}
}

// promptSent records a session/prompt going to the agent: a turn starts.
func (w *connectWatch) promptSent() {
	w.mu.Lock()
	w.turns++
	w.prompted = true
	fire := w.armLocked()
	w.mu.Unlock()
	if fire {
		w.expire()
	}
}

// turnEnded records the answer to a session/prompt; it returns the line to
// send before that answer, or "".
func (w *connectWatch) turnEnded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.turns > 0 {
		w.turns--
	}
	if w.turns > 0 {
		return ""
	}
	line := w.queued
	w.queued = ""
	return line
}

// stop ends the watch (the session closed).
func (w *connectWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// armLocked starts the bound once both the answer and a prompt were seen;
// it reports whether the watch expires at once instead.
func (w *connectWatch) armLocked() bool {
	if !w.answered || !w.prompted || w.opened || w.done || w.timer != nil || w.warn == nil || w.bound < 0 {
		return false
	}
	if w.immediate {
		return true
	}
	w.timer = time.AfterFunc(w.bound, w.expire)
	return false
}

// expire warns, once, unless the agent opened the server meanwhile. The
// line is queued (or sent) before the warning is logged: whoever reacts
// to the log by ending the turn gets the line with it.
func (w *connectWatch) expire() {
	w.mu.Lock()
	if w.opened || w.done {
		w.mu.Unlock()
		return
	}
	w.done = true
	line, log := w.warn()
	now := w.turns == 0
	if !now {
		w.queued = line
	}
	send := w.send
	w.mu.Unlock()
	if now {
		send(line)
	}
	log()
}
