package component

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestConnectWatch: the warning about an agent that never opens its MCP
// server fires once, bound after the later of the setup's answer and the
// first prompt, and not at all when the agent opens the server in time
// (at once, or lazily as its first turn starts), when nobody prompts, when
// the session closes or when the bound is negative. Its line waits for the
// end of the turn in progress and goes at once between turns; with no
// entry injected it is due at the first prompt.
func TestConnectWatch(t *testing.T) {
	const bound = 10 * time.Second
	type step struct {
		at   time.Duration // since the start
		what string        // answer, prompt, open, end, stop
	}
	for _, tc := range []struct {
		name      string
		bound     time.Duration
		immediate bool
		steps     []step
		// warnAt is when warn runs (-1: never); lines are the sends, with
		// when they happened and whether at a turn's end.
		warnAt time.Duration
		lines  []string
	}{
		{"opens before the answer", bound, false, []step{{0, "open"}, {1 * time.Millisecond, "answer"}, {time.Second, "prompt"}, {time.Hour, "end"}}, -1, nil},
		{"opens at once", bound, false, []step{{0, "answer"}, {60 * time.Millisecond, "open"}, {time.Minute, "prompt"}, {time.Hour, "end"}}, -1, nil},
		{"never prompted", bound, false, []step{{0, "answer"}, {24 * time.Hour, "stop"}}, -1, nil},
		{"lazy, opens as the first turn starts", bound, false, []step{{0, "answer"}, {time.Hour, "prompt"}, {time.Hour + bound - time.Nanosecond, "open"}, {2 * time.Hour, "end"}}, -1, nil},
		{"never opens, long turn", bound, false, []step{{0, "answer"}, {time.Minute, "prompt"}, {time.Minute + 3*bound, "end"}, {time.Hour, "prompt"}, {2 * time.Hour, "end"}},
			time.Minute + bound, []string{"end@" + (time.Minute + 3*bound).String()}},
		{"never opens, short turn", bound, false, []step{{0, "answer"}, {time.Minute, "prompt"}, {time.Minute + time.Second, "end"}, {time.Hour, "prompt"}, {2 * time.Hour, "end"}},
			time.Minute + bound, []string{"now@" + (time.Minute + bound).String()}},
		{"prompt before the answer", bound, false, []step{{0, "prompt"}, {time.Minute, "answer"}, {time.Hour, "end"}},
			time.Minute + bound, []string{"end@1h0m0s"}},
		{"opens after the warning", bound, false, []step{{0, "answer"}, {0, "prompt"}, {2 * bound, "open"}, {time.Hour, "end"}},
			bound, []string{"end@1h0m0s"}},
		{"closed before the bound", bound, false, []step{{0, "answer"}, {0, "prompt"}, {bound - time.Nanosecond, "stop"}, {time.Hour, "end"}}, -1, nil},
		{"never warn", -1, false, []step{{0, "answer"}, {0, "prompt"}, {time.Hour, "end"}}, -1, nil},
		{"nothing injected", bound, true, []step{{0, "answer"}, {time.Minute, "prompt"}, {time.Minute + time.Second, "end"}, {time.Hour, "prompt"}, {2 * time.Hour, "end"}},
			time.Minute, []string{"end@" + (time.Minute + time.Second).String()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				since := func() time.Duration { return time.Since(start) }
				w := newConnectWatch(tc.bound)
				warnAt := time.Duration(-1)
				warns := 0
				var lines []string
				w.setActions(func() (string, func()) {
					warns++
					warnAt = since()
					return "line", func() {}
				}, func(line string) {
					lines = append(lines, "now@"+since().String())
				}, tc.immediate)
				for _, s := range tc.steps {
					time.Sleep(s.at - since())
					switch s.what {
					case "answer":
						w.setupAnswered()
					case "prompt":
						w.promptSent()
					case "open":
						w.open()
					case "stop":
						w.stop()
					case "end":
						if l := w.turnEnded(); l != "" {
							lines = append(lines, "end@"+since().String())
						}
					}
					synctest.Wait()
				}
				time.Sleep(24 * time.Hour)
				synctest.Wait()
				if warns > 1 || warnAt != tc.warnAt {
					t.Errorf("warned %d times, last at %v; want once at %v (-1: never)", warns, warnAt, tc.warnAt)
				}
				if len(lines) != len(tc.lines) || (len(lines) == 1 && lines[0] != tc.lines[0]) {
					t.Errorf("lines sent %v, want %v", lines, tc.lines)
				}
			})
		})
	}
}

// TestConnectWatchLineBeforeLog: the warning is logged only once its line
// is queued, so a turn that ends after the log (the editor, or a test,
// reacting to it) carries the line before its answer instead of getting
// it after. TestUnopenedServerWarning failed this way under load: "turn 2
// ended with … end_turn, want the line".
func TestConnectWatchLineBeforeLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newConnectWatch(time.Second)
		var atLog string
		var sent []string
		w.setActions(func() (string, func()) {
			return "line", func() { atLog = w.turnEnded() }
		}, func(line string) { sent = append(sent, line) }, false)
		w.setupAnswered()
		w.promptSent()
		time.Sleep(time.Second)
		synctest.Wait()
		if atLog != "line" || len(sent) != 0 {
			t.Fatalf("the turn ending as the warning is logged got %q, and %v was sent apart; want the line with the turn", atLog, sent)
		}
	})
}
