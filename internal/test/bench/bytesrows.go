package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The bytes rows (issue 22): what the model receives for the same
// questions from each MCP column's tool, and what an agent without one
// reads with grep, file reads and the compiler, and whether that answer
// holds the whole right answer on its own. A tool's answer is the text
// content of its result: every MCP column answers text only (acp-lsp by
// default, cclsp and lsmcp always), which is what the agents measured in
// issue 22 put in the model's context.

// bytesRefs is the widely used symbol of the references row: the type
// vm.Program of the bench module, declared on the line of its file holding
// the text.
var bytesRefs = struct{ File, Line, Symbol string }{"vm/program.go", "type Program struct", "Program"}

// grepWindow is how many lines around a grep hit the grep column reads,
// each side, as an agent's file read with an offset and a limit would.
const grepWindow = 10

// BytesRows name the bytes table's rows, in order.
var BytesRows = []string{
	"diagnostics of one file (one type error)",
	"references to a widely used type",
	"definition",
	"hover",
}

var bytesOps = []Op{OpDiagnostics, OpReferences, OpDefinition, OpHover}

// BytesCell is one column's answer to one row's question.
type BytesCell struct {
	// Bytes is what the model receives: the tool's text, or for the grep
	// column the outputs and reads the procedure makes.
	Bytes int
	// Right: the answer holds the right answer (judge). Alone: it also
	// needs no file read to act on (every place shows its code line).
	Right, Alone bool
	// Why says what is missing, Detail how the grep column's bytes add
	// up.
	Why, Detail string
	Err         string
}

// BytesResult is the bytes table: Cells[row][column].
type BytesResult struct {
	Columns []string
	Cells   [][]*BytesCell
	Target  *Target
	// RefsTarget is the references row's question, Refs its right answer.
	RefsTarget *Target
	// Title, Server, Files and Ext name a project of another language
	// (empty for the Go table); Projects are those tables, after Go's.
	Title, Server, Ext string
	Files              int
	Projects           []*BytesResult
}

// bytesRuns asks every MCP column (the bare client's answer is no model's
// input) and the grep procedure each question once, after one unmeasured
// call, on its own copy of the workspace with one type error written into
// the diagnostics file.
func bytesRuns(ctx context.Context, env *Env, w *Workspace, cols []Column, logf func(string, ...any)) (*BytesResult, error) {
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "bytes-truth")
	if err != nil {
		return nil, err
	}
	t, err := Locate(root, w.Spec)
	if err != nil {
		return nil, err
	}
	rt := *t
	rt.DeclFile, rt.UseSymbol = bytesRefs.File, bytesRefs.Symbol
	if rt.DeclLine, rt.DeclChar, err = find(root, bytesRefs.File, bytesRefs.Line, bytesRefs.Symbol); err != nil {
		return nil, err
	}
	truth, err := StartBareSubject(ctx, env, root, w.Env)
	if err != nil {
		return nil, err
	}
	for _, tg := range []*Target{t, &rt} {
		refs, err := truth.Do(ctx, OpReferences, tg)
		if err != nil {
			truth.Close()
			return nil, fmt.Errorf("bytes: references truth: %w", err)
		}
		for _, l := range strings.Fields(refs) {
			file, rest, _ := strings.Cut(l, ":")
			line, _, _ := strings.Cut(rest, ":")
			tg.Refs = append(tg.Refs, file+":"+line)
		}
	}
	truth.Close()
	orig, err := os.ReadFile(filepath.Join(root, t.EditFile))
	if err != nil {
		return nil, err
	}
	edited, token := typeErrorEdit(orig, 1)
	res := &BytesResult{Target: t, RefsTarget: &rt}
	for range BytesRows {
		res.Cells = append(res.Cells, nil)
	}
	target := func(op Op) *Target {
		if op == OpReferences {
			return &rt
		}
		return t
	}
	for _, col := range cols {
		if col.Key == "bare" {
			continue
		}
		logf("bytes: %s", col.Name)
		res.Columns = append(res.Columns, col.Name)
		cells := bytesColumn(ctx, env, w, col, target, edited, token)
		for ri := range BytesRows {
			res.Cells[ri] = append(res.Cells[ri], cells[ri])
		}
	}
	if err := os.WriteFile(filepath.Join(root, t.EditFile), edited, 0o644); err != nil {
		return nil, err
	}
	res.Columns = append(res.Columns, "(d) grep, file reads, go build")
	for ri, op := range bytesOps {
		res.Cells[ri] = append(res.Cells[ri], grepAnswer(ctx, root, w.Env, goGrep, env.Gopls, op, target(op), token))
	}
	return res, nil
}

// bytesColumn asks one column every question on its own copy.
func bytesColumn(ctx context.Context, env *Env, w *Workspace, col Column, target func(Op) *Target, edited []byte, token string) []*BytesCell {
	cells := make([]*BytesCell, len(bytesOps))
	for i := range cells {
		cells[i] = &BytesCell{}
	}
	fail := func(err error) []*BytesCell {
		for _, c := range cells {
			c.Err = firstLineOf(err.Error())
		}
		return cells
	}
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), col.Key+"-bytes")
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(root, target(OpDiagnostics).EditFile), edited, 0o644); err != nil {
		return fail(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	s, err := col.Start(sctx, env, root, w.Env)
	cancel()
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	for i, op := range bytesOps {
		t := target(op)
		var text string
		for range 2 { // the first call may still load packages
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			text, err = s.Do(cctx, op, t)
			cancel()
		}
		if err != nil {
			cells[i].Err = firstLineOf(err.Error())
			continue
		}
		cells[i].Bytes = len(text)
		cells[i].Right, cells[i].Why = judge(op, t, text, token)
		cells[i].Alone, cells[i].Why = alone(root, op, t, text, cells[i].Right, cells[i].Why)
	}
	return cells
}

// alone says whether a right answer needs no file read to act on: for
// places (references, definition), every place shows its code line, so
// the model can judge each hit without opening its file.
func alone(root string, op Op, t *Target, text string, right bool, why string) (bool, string) {
	if !right || (op != OpReferences && op != OpDefinition) {
		return right, why
	}
	places := t.Refs
	if op == OpDefinition {
		places = []string{t.DeclFile + ":" + strconv.Itoa(t.DeclLine)}
	}
	missing := 0
	for _, p := range places {
		if code := codeLine(root, p); code != "" && !strings.Contains(text, code) {
			missing++
		}
	}
	if missing > 0 {
		return false, fmt.Sprintf("the code of %d of %d places is not shown: a file read each", missing, len(places))
	}
	return true, ""
}

// codeLine is the trimmed source line at file:line under root.
func codeLine(root, place string) string {
	file, line, _ := strings.Cut(place, ":")
	n, _ := strconv.Atoi(line)
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// grepLang is what column (d) runs for one language: the files grep
// looks in, the pattern of a declaration of a name, and the checker an
// agent runs for a file's errors.
type grepLang struct {
	Include string
	Decl    func(symbol string) string
	// Check is the checker's command line for the edited file, run in the
	// workspace's root; server is the language server's absolute path,
	// beside which its own checker is installed.
	Check func(server, editFile string) []string
}

// goGrep is column (d) for Go: `go build` of the file's package.
var goGrep = grepLang{
	Include: "*.go",
	Decl:    func(s string) string { return `^(func|type|var|const) (\([^)]*\) )?` + s + `\b` },
	Check:   func(_, f string) []string { return []string{"go", "build", "./" + filepath.Dir(f) + "/"} },
}

// grepAnswer is what an agent without a code tool reads to answer op:
// the diagnostics from the language's checker (`go build` of the file's
// package for Go); the places from `grep -rn` (word match; for a
// definition or hover, a declaration pattern) and a read of grepWindow
// lines each side of every hit, overlapping reads of one file merged, as
// an agent opens each hit to see what it is. Right means the same places
// as the server's answer (or the server's errors for diagnostics, the
// server's signature for hover); grep finds lines, so a name used twice
// on a line, or found where it is not the symbol (another declaration, a
// comment, a string), makes it not right. The detail also gives the
// bytes of whole-file reads of every file a hit names, the count of
// blackwell-systems/agent-lsp's token-savings experiment.
func grepAnswer(ctx context.Context, root string, wsEnv []string, lang grepLang, server string, op Op, t *Target, token string) *BytesCell {
	c := &BytesCell{}
	if op == OpDiagnostics {
		argv := lang.Check(server, t.EditFile)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = root, wsEnv
		out, _ := cmd.CombinedOutput()
		c.Bytes = len(out)
		c.Right, c.Why = judge(op, t, string(out), token)
		c.Alone = c.Right
		argv[0] = filepath.Base(argv[0])
		c.Detail = fmt.Sprintf("`%s`", strings.Join(quoteArgs(argv), " "))
		if !c.Right {
			c.Why = "; " + c.Why
		}
		return c
	}
	symbol := t.UseSymbol
	pattern, args := `\b`+symbol+`\b`, []string{"-rnw", "--include=" + lang.Include, symbol, "."}
	if op == OpDefinition || op == OpHover {
		if op == OpHover {
			symbol = t.HoverSymbol
		}
		pattern = lang.Decl(symbol)
		args = []string{"-rnE", "--include=" + lang.Include, pattern, "."}
	}
	cmd := exec.CommandContext(ctx, "grep", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		c.Err = "grep: " + err.Error()
		return c
	}
	hits := map[string][]int{}
	var places []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		file, rest, _ := strings.Cut(strings.TrimPrefix(l, "./"), ":")
		line, _, _ := strings.Cut(rest, ":")
		n, err := strconv.Atoi(line)
		if err != nil {
			continue
		}
		hits[file] = append(hits[file], n)
		places = append(places, file+":"+line)
	}
	read, whole := 0, 0
	for file, lines := range hits {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			continue
		}
		read += windowBytes(strings.SplitAfter(string(b), "\n"), lines)
		whole += len(b)
	}
	c.Bytes = len(out) + read
	c.Detail = fmt.Sprintf("`grep %s`: %d hits in %d files, %d bytes; reads of ±%d lines: %d bytes (whole files: %d bytes)", strings.Join(quoteArgs(args), " "), len(places), len(hits), len(out), grepWindow, read, whole)
	switch op {
	case OpHover:
		c.Right, c.Why = judge(op, t, string(out), "")
		if !c.Right {
			c.Why = "; the server's signature is not in it (grep shows source lines)"
		}
	case OpDefinition:
		c.Right = len(places) == 1 && places[0] == t.DeclFile+":"+strconv.Itoa(t.DeclLine)
		if !c.Right {
			c.Why = fmt.Sprintf("; %d declarations matched", len(places))
		}
	case OpReferences:
		want := map[string]int{}
		for _, r := range t.Refs {
			want[r]++
		}
		extra, missing := 0, 0
		got := map[string]int{}
		for _, p := range places {
			got[p]++
			if want[p] == 0 {
				extra++
			}
		}
		for r, n := range want {
			missing += max(n-got[r], 0)
		}
		c.Right = extra == 0 && missing == 0
		if !c.Right {
			c.Why = fmt.Sprintf("; %d lines that are not references (another declaration of the name, a comment, a string), %d references missed (two on one line are one hit)", extra, missing)
		}
	}
	c.Alone = c.Right
	return c
}

// windowBytes counts the bytes of the lines within grepWindow of any of
// hits (1-based), each line once.
func windowBytes(lines []string, hits []int) int {
	slices.Sort(hits)
	n, next := 0, 0 // next: the first line index not yet counted
	for _, h := range hits {
		lo, hi := max(h-1-grepWindow, next), min(h-1+grepWindow, len(lines)-1)
		for i := lo; i <= hi; i++ {
			n += len(lines[i])
		}
		next = max(next, hi+1)
	}
	return n
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./=*-]+$`)

// quoteArgs quotes what a shell would need quoted, for the report.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if !shellSafe.MatchString(a) {
			out[i] = "'" + a + "'"
		}
	}
	return out
}

func (r *BytesResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if r.Title != "" {
		p("\n#### %s\n\n", r.Title)
		p("%d .%s files, %s under every column; the right answers are %s's own (asked by the bare client on the same edited copy): references to `%s` (%s:%d, %d places); definition of `%s` used in %s:%d (%s:%d); hover on `%s` (%s:%d), whose signature line is `%s`; diagnostics of `%s` with one type error appended, %d error(s) from the server, each of which a right answer holds. Column (d)'s hover is right only if its output holds the server's signature line.\n\n",
			r.Files, r.Ext, r.Server, r.Server, r.RefsTarget.UseSymbol, r.RefsTarget.DeclFile, r.RefsTarget.DeclLine, len(r.RefsTarget.Refs),
			r.Target.UseSymbol, r.Target.UseFile, r.Target.UseLine, r.Target.DeclFile, r.Target.DeclLine,
			r.Target.HoverSymbol, r.Target.HoverFile, r.Target.HoverLine, r.Target.HoverWant, r.Target.EditFile, len(r.Target.DiagWant))
	} else {
		p("\n### What the model receives (issue 22)\n\n")
		p("Bytes of the answer the model gets for each question, the same gopls under every tool: a tool's text content (every column answers text only), and for (d) what an agent without a code tool runs and reads: `go build` of the file's package for diagnostics, otherwise `grep -rn` and a read of %d lines each side of every hit (overlapping reads of a file merged), as it opens each hit to see what it is. ", grepWindow)
		p("**Right**: the answer holds the right answer (the places gopls gives, each as often; the edit's error; the signature); **alone**: it is right and also shows the code line of every place, so the model needs no file read to judge a hit. ")
		p("References are to `%s` (%s, %d places); definition of `%s` (%s:%d); hover on `%s`; diagnostics of `%s` with one type error written into it.\n\n",
			r.RefsTarget.UseSymbol, r.RefsTarget.DeclFile, len(r.RefsTarget.Refs), r.Target.UseSymbol, r.Target.DeclFile, r.Target.DeclLine, r.Target.HoverSymbol, r.Target.EditFile)
	}
	tableHead(b, r.Columns)
	var notes []string
	for ri, row := range BytesRows {
		p("| %s |", row)
		for _, c := range r.Cells[ri] {
			switch {
			case c.Err != "":
				p(" error: %s |", c.Err)
			default:
				verdict := "not right"
				if c.Alone {
					verdict = "right, alone"
				} else if c.Right {
					verdict = "right, not alone"
				}
				mark := ""
				if c.Why != "" || c.Detail != "" {
					notes = append(notes, strings.TrimPrefix(strings.TrimSpace(c.Detail+c.Why), "; "))
					mark = fmt.Sprintf(" [%d]", len(notes))
				}
				p(" %d bytes, %s%s |", c.Bytes, verdict, mark)
			}
		}
		p("\n")
	}
	p("\n")
	for i, n := range notes {
		p("%d. %s\n", i+1, n)
	}
	for _, pr := range r.Projects {
		pr.markdown(b)
	}
}
