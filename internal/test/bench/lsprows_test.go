package bench

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// fakeSubject answers every op right at once; diagnostics quote the
// edit's token found in the file on disk, as gopls would.
type fakeSubject struct {
	root  string
	diags int // diagnostics calls
}

var tokenRE = regexp.MustCompile(`"(bench-edit-[0-9-]+)"`)

func (f *fakeSubject) Name() string { return "fake" }
func (f *fakeSubject) Close() error { return nil }
func (f *fakeSubject) Do(ctx context.Context, op Op, t *Target) (string, error) {
	switch op {
	case OpHover:
		return t.HoverWant, nil
	case OpDiagnostics:
		f.diags++
		b, err := os.ReadFile(filepath.Join(f.root, t.EditFile))
		if err != nil {
			return "", err
		}
		if m := tokenRE.FindSubmatch(b); m != nil {
			return `cannot use "` + string(m[1]) + `" (untyped string constant) as int value`, nil
		}
		return "", nil
	}
	return "", nil
}

// TestDiagnosticsRowFirstCallUnmeasured: the diagnostics row, as every
// warm row, makes one unmeasured call first (for the bare client the first
// one opens the file with didOpen, every later one is a didChange), so
// its runs samples are all of the same, warm kind.
func TestDiagnosticsRowFirstCallUnmeasured(t *testing.T) {
	defer func(f func(context.Context) time.Duration) { settleServers = f }(settleServers)
	settleServers = func(context.Context) time.Duration { return 0 }
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "docgen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "docgen", "docgen.go"), []byte("package docgen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Workspace{Src: src}
	env := &Env{Cache: t.TempDir()}
	tg := &Target{HoverWant: "func Compile(", EditFile: "docgen/docgen.go"}
	var fake *fakeSubject
	col := Column{Key: "fake", Name: "fake", Start: func(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
		fake = &fakeSubject{root: root}
		return fake, nil
	}}
	res := &LSPResult{}
	for range LSPRows {
		res.Cells = append(res.Cells, []*Cell{{}})
	}
	const runs = 3
	if err := lspColumn(context.Background(), env, w, tg, col, res, 0, runs, 1, t.Logf); err != nil {
		t.Fatal(err)
	}
	cell := res.Cells[len(LSPRows)-1][0]
	if len(cell.Samples) != runs || !cell.AllRight() {
		t.Fatalf("diagnostics row: %d samples, %d right (%s); want %d right", len(cell.Samples), cell.Right(), cell.FirstWrong(), runs)
	}
	if fake.diags != runs+1 {
		t.Errorf("diagnostics calls: %d, want %d (one unmeasured, then %d measured)", fake.diags, runs+1, runs)
	}
	if b, _ := os.ReadFile(filepath.Join(env.Cache, "ws", "fake", "docgen", "docgen.go")); string(b) != "package docgen\n" {
		t.Errorf("edited file not restored: %q", b)
	}
}
