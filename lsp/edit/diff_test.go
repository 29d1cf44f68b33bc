package edit

import (
	"math/rand"
	"strings"
	"testing"
)

// checkScript verifies that ops turns a into b.
func checkScript(t *testing.T, a, b []string, ops []op) (changes int) {
	t.Helper()
	var gotA, gotB []string
	for _, o := range ops {
		switch o.kind {
		case ' ':
			gotA, gotB = append(gotA, o.line), append(gotB, o.line)
		case '-':
			gotA = append(gotA, o.line)
			changes++
		case '+':
			gotB = append(gotB, o.line)
			changes++
		}
	}
	if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
		t.Fatalf("script does not reproduce the texts:\na=%q\nb=%q\nops=%v", a, b, ops)
	}
	return changes
}

func TestLineDiffReproduces(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	words := []string{"a\n", "b\n", "c\n", "日本\n", "😀\n", "x\r\n", "y"}
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.Intn(len(words))]
		}
		return out
	}
	for i := 0; i < 500; i++ {
		a, b := gen(r.Intn(30)), gen(r.Intn(30))
		checkScript(t, a, b, lineDiff(a, b))
	}
	// One changed line in a long file costs two lines of script.
	a := gen(5000)
	b := append([]string(nil), a...)
	b[2500] = "changed\n"
	if n := checkScript(t, a, b, lineDiff(a, b)); n != 2 {
		t.Fatalf("single change cost %d", n)
	}
	// Past the cost bound the middle becomes one replacement, still right.
	a, b = make([]string, 3000), make([]string, 3000)
	for i := range a {
		a[i], b[i] = "a\n", "b\n"
		if i%2 == 0 {
			b[i] = "a\n"
		}
	}
	a[0], b[len(b)-1] = "first\n", "last\n"
	checkScript(t, a, b, lineDiff(a, b))
}

func BenchmarkUnifiedDiff(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		sb.WriteString("\tx := computeSomething(alpha, beta, gamma) + 42 // 日本\n")
	}
	before := []byte(sb.String())
	// A rename touching 50 lines spread over the file.
	lines := strings.SplitAfter(sb.String(), "\n")
	for i := 0; i < len(lines); i += 200 {
		lines[i] = strings.Replace(lines[i], "alpha", "omega", 1)
	}
	after := []byte(strings.Join(lines, ""))
	for b.Loop() {
		UnifiedDiff("a", "b", before, after)
	}
}
