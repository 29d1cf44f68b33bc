package edit

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change:
// enough for a model or a person to place the change, small enough to keep a
// rename across many files readable.
const diffContext = 2

// maxDiffCost bounds the Myers search (edit distance in lines); past it the
// changed middle is shown as one replacement, which is still a correct diff.
// The saved trace grows with its square: 1,000 keeps it near 8 MB.
const maxDiffCost = 1000

// splitLines splits text into lines that keep their terminators, so that
// joining them gives the text back and a changed line ending is a change.
// Lines end at "\n" only, as in diff(1): a lone "\r" is text, because a
// diff line ended by "\r" alone runs into the next one for every reader.
func splitLines(text string) []string {
	var lines []string
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// op is one line of a line diff: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	line string
}

// lineDiff returns a shortest line edit script from a to b.
func lineDiff(a, b []string) []op {
	// Common prefix and suffix cost nothing and make most edits tiny.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

// myers is the greedy O((N+M)D) algorithm of Myers (1986) with the trace
// kept for backtracking.
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	replaceAll := func() []op {
		ops := make([]op, 0, n+m)
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replaceAll()
	}
	max := n + m
	if max > maxDiffCost {
		max = maxDiffCost
	}
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	found := -1
	for d := 0; d <= max && found < 0; d++ {
		// Only diagonals -d..d can be read when backtracking step d.
		lo := off - d - 1
		if lo < 0 {
			lo = 0
		}
		trace = append(trace, append([]int(nil), v[lo:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replaceAll()
	}
	// Backtrack from (n, m) through the saved V arrays.
	var rev []op
	x, y := n, m
	for d := found; d > 0; d-- {
		lo := off - d - 1
		if lo < 0 {
			lo = 0
		}
		at := func(k int) int { return trace[d][off+k-lo] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{' ', a[x]})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{'+', b[y]})
		} else {
			x--
			rev = append(rev, op{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{' ', a[x]})
	}
	ops := make([]op, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}

// Hunk is one changed run of a sequence diff: A[A:A+NA] replaced by
// B[B:B+NB].
type Hunk struct{ A, NA, B, NB int }

// Hunks returns the changed runs of a shortest edit script from a to b
// (the diff UnifiedDiff shows, with its bound on the search: past it the
// changed middle is one run).
func Hunks(a, b []string) []Hunk {
	var out []Hunk
	i, j := 0, 0
	open := false
	for _, o := range lineDiff(a, b) {
		if o.kind == ' ' {
			i, j, open = i+1, j+1, false
			continue
		}
		if !open {
			out = append(out, Hunk{A: i, B: j})
			open = true
		}
		h := &out[len(out)-1]
		if o.kind == '-' {
			h.NA++
			i++
		} else {
			h.NB++
			j++
		}
	}
	return out
}

// UnifiedDiff returns a unified diff from before to after with
// diffContext lines of context, labelled with the given names ("" for a
// side that does not exist is shown as /dev/null). Equal texts give "".
// The counts of added and removed lines are returned too.
func UnifiedDiff(oldName, newName string, before, after []byte) (diff string, added, removed int) {
	if string(before) == string(after) {
		return "", 0, 0
	}
	ops := lineDiff(splitLines(string(before)), splitLines(string(after)))
	var sb strings.Builder
	if oldName == "" {
		oldName = "/dev/null"
	}
	if newName == "" {
		newName = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	// Walk the ops, grouping changes whose context would touch into hunks.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := i - diffContext
		if start < 0 {
			start = 0
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// Count the run of kept lines; a short run joins two changes.
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run < len(ops) && run-end <= 2*diffContext {
				end = run
				continue
			}
			end += min(diffContext, run-end)
			break
		}
		// Line numbers of the hunk start in both texts.
		oldLine, newLine := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				oldLine++
			}
			if o.kind != '-' {
				newLine++
			}
		}
		var oldN, newN int
		var body strings.Builder
		for _, o := range ops[start:end] {
			switch o.kind {
			case ' ':
				oldN++
				newN++
			case '-':
				oldN++
				removed++
			case '+':
				newN++
				added++
			}
			body.WriteByte(o.kind)
			line := o.line
			if strings.HasSuffix(line, "\n") {
				body.WriteString(line)
			} else {
				body.WriteString(line)
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		sb.WriteString(body.String())
		i = end
	}
	return sb.String(), added, removed
}

// hunkRange formats a unified diff range; an empty range names the line
// before it, as diff(1) does.
func hunkRange(line, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", line-1)
	}
	if n == 1 {
		return fmt.Sprintf("%d", line)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
