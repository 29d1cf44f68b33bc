package bench

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/forwardbench"
)

// Sample is one measured answer.
type Sample struct {
	D time.Duration
	// Right says the answer had what it must (the right place, the edit's
	// error); a wrong or stale answer still counts its time.
	Right bool
	// Why explains a wrong answer.
	Why string
}

// Cell is one row × column of a table.
type Cell struct {
	Samples []Sample
	// Err is set when the subject could not answer at all.
	Err string
}

// Median returns the median time of the samples (0 without any): the
// middle one, or the mean of the two middle ones of an even number.
func (c *Cell) Median() time.Duration { return forwardbench.Median(c.sorted()) }

// Quantile returns the q-quantile (nearest rank: the smallest sample with
// at least q of the samples at or below it) of the sample times.
func (c *Cell) Quantile(q float64) time.Duration {
	return forwardbench.NearestRank(c.sorted(), q)
}

// sorted returns the sample times in ascending order.
func (c *Cell) sorted() []time.Duration {
	ds := make([]time.Duration, len(c.Samples))
	for i, s := range c.Samples {
		ds[i] = s.D
	}
	slices.Sort(ds)
	return ds
}

// Right counts the right answers.
func (c *Cell) Right() int {
	n := 0
	for _, s := range c.Samples {
		if s.Right {
			n++
		}
	}
	return n
}

// FirstWrong returns why the first wrong answer was wrong.
func (c *Cell) FirstWrong() string {
	for _, s := range c.Samples {
		if !s.Right {
			return s.Why
		}
	}
	return ""
}

// Usable says the cell has at least one sample.
func (c *Cell) Usable() bool { return c.Err == "" && len(c.Samples) > 0 }

// AllRight says every sample was right.
func (c *Cell) AllRight() bool { return c.Usable() && c.Right() == len(c.Samples) }

// fmtDur prints a duration for a table: ms with two significant decimals
// below 10 ms.
func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.0f ms", ms)
	}
}

// hasLocation says whether text names file at 1-based line, as
// "file:line" (any path prefix, a column or not after it) or as lsmcp's
// "File: file" followed by "Range: line:col".
func hasLocation(text, file string, line int) bool {
	f, l := regexp.QuoteMeta(file), strconv.Itoa(line)
	re := regexp.MustCompile(`(^|[\s/("'\x60])` + f + `:` + l + `(\D|$)|File: (\S*/)?` + f + `\s+Range: ` + l + `:`)
	return re.MatchString(text)
}

// judge says whether an answer to op is right for t; token is the edit's
// marker for diagnostics.
func judge(op Op, t *Target, text, token string) (bool, string) {
	switch op {
	case OpHover:
		if strings.Contains(text, t.HoverWant) {
			return true, ""
		}
		return false, "hover lacks the signature: " + firstLineOf(text)
	case OpDefinition:
		if hasLocation(text, t.DeclFile, t.DeclLine) {
			return true, ""
		}
		return false, fmt.Sprintf("definition lacks %s:%d: %s", t.DeclFile, t.DeclLine, firstLineOf(text))
	case OpReferences:
		var missing []string
		for _, r := range t.Refs {
			file, line, _ := strings.Cut(r, ":")
			n, _ := strconv.Atoi(line)
			if !hasLocation(text, file, n) {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return true, ""
		}
		return false, fmt.Sprintf("references miss %d of %d (%s)", len(missing), len(t.Refs), strings.Join(missing, ", "))
	case OpSymbols:
		if hasLocation(text, t.DeclFile, t.DeclLine) {
			return true, ""
		}
		return false, fmt.Sprintf("symbols lack %s:%d: %s", t.DeclFile, t.DeclLine, firstLineOf(text))
	case OpDiagnostics:
		if !strings.Contains(text, token) {
			return false, "stale: the edit's error is not in the answer: " + firstLineOf(text)
		}
		missing := 0
		for _, w := range t.DiagWant {
			if !strings.Contains(text, w) {
				missing++
			}
		}
		if missing > 0 {
			return false, fmt.Sprintf("%d of the server's %d errors are not in the answer", missing, len(t.DiagWant))
		}
		return true, ""
	}
	return false, "unknown op"
}
