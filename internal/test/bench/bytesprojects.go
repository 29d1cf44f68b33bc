package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// BytesProject is a large real project of another language the bytes rows
// ask the same questions over, with that language's server under every
// column. Its source comes pinned from npm (scripts/bench.sh installs it
// into .cache/bench); places are found by text, as Spec's are. The right
// answers are the server's own, asked by the bare client.
type BytesProject struct {
	Name string
	// Package and Version are the npm package, Dir the project's folder in
	// it (the workspace root).
	Package, Version, Dir string
	// Server is the language server: a program on the peers' path and its
	// arguments; LangID and Ext as Server's.
	Server      []string
	LangID, Ext string
	// Extra are files written into every copy (Workspace.Extra).
	Extra map[string]string
	// References ask about the declaration of RefsSymbol on the first
	// line of RefsFile containing RefsLine; definition about UseSymbol on
	// the first such line of UseFile; hover about HoverSymbol likewise.
	RefsFile, RefsLine, RefsSymbol    string
	UseFile, UseLine, UseSymbol       string
	HoverFile, HoverLine, HoverSymbol string
	// EditFile is the file the diagnostics row edits.
	EditFile string
	// Edit appends one type error whose message quotes token (an
	// identifier).
	Edit         func(orig []byte, token string) []byte
	Grep         grepLang
	CheckCommand string // column (d)'s checker, for the column's name
}

// BytesProjects are the bytes rows' projects besides Go's.
var BytesProjects = []BytesProject{
	{
		Name: "gyp (Python), node-gyp 8.4.1's gyp/pylib", Package: "node-gyp", Version: "8.4.1", Dir: "gyp/pylib",
		Server: []string{"pyright-langserver", "--stdio"}, LangID: "python", Ext: "py",
		RefsFile: "gyp/common.py", RefsLine: "def ParseQualifiedTarget(", RefsSymbol: "ParseQualifiedTarget",
		UseFile: "gyp/generator/ninja.py", UseLine: "gyp.common.EncodePOSIXShellArgument(output)", UseSymbol: "EncodePOSIXShellArgument",
		HoverFile: "gyp/common.py", HoverLine: "def QualifiedTarget(", HoverSymbol: "QualifiedTarget",
		EditFile: "gyp/easy_xml.py",
		Edit: func(orig []byte, token string) []byte {
			return fmt.Appendf(nil, "%s\nbench_edit: int = %q\n", orig, token)
		},
		Grep: grepLang{
			Include: "*.py",
			Decl:    func(s string) string { return `^\s*(async\s+)?(def|class)\s+` + s + `\b` },
			// pyright's command line, of the server's own package.
			Check: func(server, f string) []string { return []string{filepath.Join(filepath.Dir(server), "pyright"), f} },
		},
		CheckCommand: "pyright",
	},
	{
		Name: "RxJS (TypeScript), rxjs 7.8.2's src", Package: "rxjs", Version: "7.8.2", Dir: "src",
		Server: []string{"typescript-language-server", "--stdio"}, LangID: "typescript", Ext: "ts",
		// The package's own compiler options (its tsconfig.json sits
		// beside src, with the built dist).
		Extra:    map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noImplicitReturns": true, "moduleResolution": "node", "noEmit": true, "lib": ["esnext", "dom"], "target": "esnext"}}` + "\n"},
		RefsFile: "internal/util/noop.ts", RefsLine: "export function noop(", RefsSymbol: "noop",
		UseFile: "internal/observable/concat.ts", UseLine: "popScheduler(args)", UseSymbol: "popScheduler",
		HoverFile: "internal/operators/mergeInternals.ts", HoverLine: "export function mergeInternals", HoverSymbol: "mergeInternals",
		EditFile: "internal/util/args.ts",
		Edit: func(orig []byte, token string) []byte {
			// An unknown name: TypeScript's message quotes it (a string
			// literal's would be widened to string).
			return fmt.Appendf(nil, "%s\nexport const benchEdit: number = %s;\n", orig, token)
		},
		Grep: grepLang{
			Include: "*.ts",
			Decl: func(s string) string {
				return `^\s*(export\s+)?(declare\s+)?(default\s+)?(abstract\s+)?(async\s+)?(function|class|interface|type|const|let|var|enum)\s+` + s + `\b`
			},
			// The server's own TypeScript (5.9.3; the peers' path also holds
			// TypeScript 7's tsc, which refuses moduleResolution node).
			Check: func(server, _ string) []string {
				return []string{filepath.Join(filepath.Dir(server), "tsc"), "--noEmit", "-p", "."}
			},
		},
		CheckCommand: "tsc --noEmit",
	},
}

// bytesProjectRuns asks p's questions of every MCP column and of grep,
// as bytesRuns does for Go, the right answers taken from the bare
// client's own answers on an edited copy.
func bytesProjectRuns(ctx context.Context, env *Env, p BytesProject, cols []Column, logf func(string, ...any)) (*BytesResult, error) {
	src := filepath.Join(env.NodeModules, "node_modules", p.Package)
	if err := requireFile(filepath.Join(src, "package.json"), p.Package+"@"+p.Version); err != nil {
		return nil, fmt.Errorf("bytes: %s: %w", p.Name, err)
	}
	if v := env.packageVersion(p.Package); v != p.Version {
		return nil, fmt.Errorf("bytes: %s: %s is %s, want %s: run scripts/bench.sh", p.Name, p.Package, v, p.Version)
	}
	bin, err := peers.Find(p.Server[0])
	if err != nil {
		return nil, fmt.Errorf("bytes: %s: %w", p.Name, err)
	}
	penv := *env
	penv.Server = &Server{Argv: append([]string{bin}, p.Server[1:]...), LangID: p.LangID, Ext: p.Ext}
	w := &Workspace{Src: filepath.Join(src, p.Dir), Env: env.Base, Extra: p.Extra}
	filepath.WalkDir(w.Src, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, "."+p.Ext) {
			w.Files++
		}
		return nil
	})
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "bytes-"+p.Ext+"-truth")
	if err != nil {
		return nil, err
	}
	t := &Target{HoverFile: p.HoverFile, HoverSymbol: p.HoverSymbol, UseFile: p.UseFile, UseSymbol: p.UseSymbol, EditFile: p.EditFile}
	if t.HoverLine, t.HoverChar, err = find(root, p.HoverFile, p.HoverLine, p.HoverSymbol); err != nil {
		return nil, err
	}
	if t.UseLine, t.UseChar, err = find(root, p.UseFile, p.UseLine, p.UseSymbol); err != nil {
		return nil, err
	}
	rt := &Target{DeclFile: p.RefsFile, UseSymbol: p.RefsSymbol, EditFile: p.EditFile}
	if rt.DeclLine, rt.DeclChar, err = find(root, p.RefsFile, p.RefsLine, p.RefsSymbol); err != nil {
		return nil, err
	}
	orig, err := os.ReadFile(filepath.Join(root, p.EditFile))
	if err != nil {
		return nil, err
	}
	token := fmt.Sprintf("benchEdit%d", time.Now().UnixNano()%1e6) // an identifier, for Edit
	edited := p.Edit(orig, token)
	if err := os.WriteFile(filepath.Join(root, p.EditFile), edited, 0o644); err != nil {
		return nil, err
	}
	logf("bytes: %s: the server's own answers", p.Name)
	if err := bytesTruth(ctx, &penv, root, w.Env, t, rt, token); err != nil {
		return nil, fmt.Errorf("bytes: %s: %w", p.Name, err)
	}
	res := &BytesResult{Title: p.Name, Server: filepath.Base(p.Server[0]), Files: w.Files, Ext: p.Ext, Target: t, RefsTarget: rt}
	for range BytesRows {
		res.Cells = append(res.Cells, nil)
	}
	target := func(op Op) *Target {
		if op == OpReferences {
			return rt
		}
		return t
	}
	for _, col := range cols {
		if col.Key == "bare" {
			continue
		}
		logf("bytes: %s: %s", p.Name, col.Name)
		res.Columns = append(res.Columns, col.Name)
		cells := bytesColumn(ctx, &penv, w, col, target, edited, token)
		for ri := range BytesRows {
			res.Cells[ri] = append(res.Cells[ri], cells[ri])
		}
	}
	res.Columns = append(res.Columns, "(d) grep, file reads, "+p.CheckCommand)
	for ri, op := range bytesOps {
		res.Cells[ri] = append(res.Cells[ri], grepAnswer(ctx, root, w.Env, p.Grep, bin, op, target(op), token))
	}
	return res, nil
}

// bytesTruth fills the right answers from the server itself, through the
// bare client on root (the edit already written): the references of rt,
// the definition (every place the server gives; the first is the one
// judged) and the hover's signature line for t, and the error messages
// the server publishes for the edited file.
func bytesTruth(ctx context.Context, env *Env, root string, wsEnv []string, t, rt *Target, token string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	s, err := StartBareSubject(ctx, env, root, wsEnv)
	if err != nil {
		return err
	}
	defer s.Close()
	b := s.(*bareSubject)
	// The diagnostics first: the server has then loaded the project.
	p := filepath.Join(root, t.EditFile)
	if _, err := b.c.Sync(ctx, p); err != nil {
		return err
	}
	pub, err := b.c.WaitPublish(ctx, p, func(pub Publish) bool { return strings.Contains(strings.Join(pub.Messages, "\n"), token) })
	if err != nil {
		return fmt.Errorf("diagnostics truth: %w", err)
	}
	for _, m := range pub.Errors {
		t.DiagWant = append(t.DiagWant, firstLineOf(m))
	}
	refs, err := s.Do(ctx, OpReferences, rt)
	if err != nil {
		return fmt.Errorf("references truth: %w", err)
	}
	for _, l := range strings.Fields(refs) {
		file, rest, _ := strings.Cut(l, ":")
		line, _, _ := strings.Cut(rest, ":")
		rt.Refs = append(rt.Refs, file+":"+line)
	}
	if len(rt.Refs) < 2 {
		return fmt.Errorf("references truth: %d places: %q", len(rt.Refs), refs)
	}
	def, err := s.Do(ctx, OpDefinition, t)
	if err != nil {
		return fmt.Errorf("definition truth: %w", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(def), "\n")
	file, rest, _ := strings.Cut(first, ":")
	line, _, _ := strings.Cut(rest, ":")
	if _, err := fmt.Sscan(line, &t.DeclLine); err != nil || file == "" {
		return fmt.Errorf("definition truth: %q", def)
	}
	t.DeclFile = file
	hover, err := s.Do(ctx, OpHover, t)
	if err != nil {
		return fmt.Errorf("hover truth: %w", err)
	}
	for _, l := range strings.Split(hover, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "```") {
			t.HoverWant = l
			break
		}
	}
	if t.HoverWant == "" {
		return fmt.Errorf("hover truth: no signature in %q", hover)
	}
	return nil
}
