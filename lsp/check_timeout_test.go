package lsp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestCheckTimeout: a server that has not reported on the checked content
// when the wait ends gives a Timeout verdict with nothing added or
// removed, never a clean check; its report on the checked version,
// arriving after the check, is dropped, so the next diagnostics are the
// disk's.
func TestCheckTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = time.Hour
		e := newMemEnv(t, fakelsp.Script{PublishDelay: fakelsp.Duration(delay)}, nil)
		events, unsub := e.m.Subscribe(64)
		defer unsub()
		rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 2 * delay})
		if err != nil || rep.Files[0].Verdict != Fresh || !strings.Contains(string(rep.Files[0].Diagnostics), fakelsp.DiagnosticMessage) {
			t.Fatalf("diagnostics before: %+v %v", rep, err)
		}
		<-events // the disk's report
		chk, err := e.m.Check(t.Context(), e.file, "package fake\nfunc Foo() {}\n", DiagnosticsOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if chk.Before.Verdict != Fresh || chk.After.Verdict != Timeout {
			t.Fatalf("verdicts: before %s, after %s (%s); want fresh, timeout", chk.Before.Verdict, chk.After.Verdict, chk.After.Detail)
		}
		if string(chk.Added) != "[]" || string(chk.Removed) != "[]" {
			t.Errorf("a timed-out check added %s and removed %s", chk.Added, chk.Removed)
		}
		time.Sleep(2 * delay) // fake time: the late report on the checked version arrives
		synctest.Wait()
		for drained := false; !drained; {
			select {
			case ev := <-events:
				if ev.Version == chk.After.Version {
					t.Errorf("a subscriber was told the checked version %d: %s", ev.Version, ev.Diagnostics)
				}
			default:
				drained = true
			}
		}
		rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 2 * delay})
		if fd := rep.Files[0]; err != nil || fd.Verdict != Fresh || !strings.Contains(string(fd.Diagnostics), fakelsp.DiagnosticMessage) {
			t.Errorf("diagnostics after the check: %s v%d %s %v, want the disk's error", fd.Verdict, fd.Version, fd.Diagnostics, err)
		}
		if b, err := os.ReadFile(e.file); err != nil || string(b) != fakeText {
			t.Errorf("disk after the check: %q %v", b, err)
		}
	})
}

// FuzzDiagMatch: any two reports and contents give JSON arrays no
// longer than the reports, and a report against itself over an unchanged
// content gives none.
func FuzzDiagMatch(f *testing.F) {
	f.Add(`[{"message":"a","severity":1},{"message":"a","severity":1}]`, `[{"message":"a","severity":1}]`, "x Foo\n", "x Bar\n")
	f.Add(`[{"message":"a","code":"x"}]`, `[{"message":"a","code":1}]`, "", "y")
	f.Add(`[{"range":{"start":{"line":0,"character":2},"end":{"line":0,"character":5}},"message":"undefined: Foo"}]`, `[{"range":{"start":{"line":0,"character":2},"end":{"line":0,"character":5}},"message":"undefined: Bar"}]`, "x Foo\n", "x Bar\n")
	f.Add(`null`, `{}`, "a\nb", "a\nc\nb")
	f.Fuzz(func(t *testing.T, a, b, before, after string) {
		reps := replacements{}
		m := newEditMap(before, after, reps)
		added, removed := diagMatch(json.RawMessage(a), json.RawMessage(b), m, reps)
		var ad, rm, ina, inb []json.RawMessage
		if err := decode(added, &ad); err != nil {
			t.Fatalf("%s: %v", added, err)
		}
		if err := decode(removed, &rm); err != nil {
			t.Fatalf("%s: %v", removed, err)
		}
		if decode([]byte(b), &inb) == nil && len(ad) > len(inb) {
			t.Fatalf("%d added out of %d", len(ad), len(inb))
		}
		if decode([]byte(a), &ina) == nil {
			if len(rm) > len(ina) {
				t.Fatalf("%d removed out of %d", len(rm), len(ina))
			}
			same := newEditMap(before, before, replacements{})
			if ad, rm := diagMatch(json.RawMessage(a), json.RawMessage(a), same, nil); string(ad) != "[]" || string(rm) != "[]" {
				t.Fatalf("a against itself: %s %s", ad, rm)
			}
		}
	})
}
