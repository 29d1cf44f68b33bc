package component

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Outside the workspace. A definition, declaration, type definition,
// implementation or reference in a file outside the session's workspace
// (the standard library, a dependency, a server's bundled declarations)
// is shown by its path, marked as outside, and with its source line when
// the rule below allows reading that file. The line comes from the server's
// answer alone, and a server (buggy, or configured by a hostile project)
// may name any file: /home/user/.ssh/id_rsa at line 1 would put a secret in
// the answer. So a file outside is read only when, links resolved,
//
//   - it is a source file of the language of the file the call is about
//     (its extension among outsideLang.exts), and
//   - it lies below one of that language's standard-library, SDK or
//     dependency folders (outsideLang: the go command's GOROOT and
//     GOMODCACHE, node_modules, site-packages, typeshed, …),
//
// and then only as a workspace file is: a regular file (never a pipe or a
// device), under the size cap, read-only. Everything else is shown by path
// alone, with a note saying why (outsideNotes). The rule lives here and
// nowhere else; docs/tool.md states it.

// outsideLang is one language's rule: which files outside the workspace
// results of a call on one of its files may show the line of.
type outsideLang struct {
	// name is the language as notes say it.
	name string
	// exts are its source files' extensions, with the dot; "" stands for
	// none (C++'s standard headers).
	exts []string
	// dirs are absolute folders whose files may be read.
	dirs func() []string
	// under are runs of folder names (path.Match patterns, one per name)
	// whose files may be read wherever the run is on a file's path:
	// {"node_modules"} takes …/node_modules/react/index.d.ts.
	under [][]string
	// where says in notes where its files must be.
	where string
}

// outsideLangs are the languages whose results outside the workspace show
// their lines.
var outsideLangs = []outsideLang{
	{
		name: "Go", exts: []string{".go", ".s"}, dirs: goRoots,
		where: "GOROOT or the module cache (go env GOROOT GOMODCACHE)",
	},
	{
		name: "TypeScript/JavaScript", exts: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
		under: [][]string{{"node_modules"}},
		where: "a node_modules folder",
	},
	{
		name: "Python", exts: []string{".py", ".pyi"},
		under: [][]string{{"site-packages"}, {"dist-packages"}, {"typeshed"}, {"typeshed-fallback"}, {"lib", "python[0-9].[0-9]*"}},
		where: "site-packages, dist-packages, typeshed or a Python installation's lib/pythonX.Y",
	},
	{
		name: "C/C++",
		exts: []string{"", ".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc", ".tpp", ".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm"},
		dirs: func() []string { return []string{"/usr/include", "/usr/local/include"} },
		// The compilers' own headers (stddef.h and the like).
		under: [][]string{{"lib", "clang", "*", "include"}, {"lib", "gcc", "*", "*", "include"}},
		where: "/usr/include, /usr/local/include or a compiler's include folder",
	},
	{
		name: "Rust", exts: []string{".rs"},
		under: [][]string{{"rustlib", "src"}, {".cargo", "registry", "src"}, {".cargo", "git", "checkouts"}},
		where: "the toolchain's rustlib/src or Cargo's registry",
	},
}

// outsideLangOf returns the rule of the language of file (the file a call
// is about), nil when there is none.
func outsideLangOf(file string) *outsideLang {
	ext := strings.ToLower(filepath.Ext(file))
	if ext == "" {
		return nil // a file without extension says no language
	}
	for i := range outsideLangs {
		if slices.Contains(outsideLangs[i].exts, ext) {
			return &outsideLangs[i]
		}
	}
	return nil
}

// refusal says why real, a resolved absolute path outside the workspace,
// may not be read for a result of a call on a file of lang's language; ""
// when it may.
func (lang *outsideLang) refusal(real string) string {
	if lang == nil {
		return "outside the workspace, and no rule reads the files its language depends on"
	}
	if !slices.Contains(lang.exts, strings.ToLower(filepath.Ext(real))) {
		return "outside the workspace, and not a " + lang.name + " source file"
	}
	if lang.dirs != nil && slices.ContainsFunc(lang.dirs(), func(d string) bool { return real != d && edit.Within(d, real) }) {
		return ""
	}
	names := strings.Split(filepath.ToSlash(real), "/")
	names = names[:len(names)-1] // folders only
	for _, run := range lang.under {
		for i := 0; i+len(run) <= len(names); i++ {
			if matchNames(run, names[i:i+len(run)]) {
				return ""
			}
		}
	}
	return "outside the workspace, and not in " + lang.where
}

// matchNames reports whether each of names matches its pattern in run.
func matchNames(run, names []string) bool {
	for i, pat := range run {
		if ok, _ := path.Match(pat, names[i]); !ok {
			return false
		}
	}
	return true
}

// goRoots are GOROOT and GOMODCACHE as the go command says them (gopls
// asks it the same), links resolved; none when it cannot be run. Asked
// once per process, without a toolchain switch (GOTOOLCHAIN=local: no
// download), bounded by goEnvTimeout.
var goRoots = sync.OnceValue(func() []string {
	ctx, cancel := context.WithTimeout(context.Background(), goEnvTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOMODCACHE")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return goEnvRoots(string(out))
})

// goEnvRoots reads the folders `go env` printed, one a line, links
// resolved where they exist.
func goEnvRoots(out string) []string {
	var roots []string
	for _, d := range strings.Split(strings.TrimSpace(out), "\n") {
		if !filepath.IsAbs(d) {
			continue
		}
		// The module cache may not be there yet: kept as said, it
		// counts once something is downloaded into it.
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		roots = append(roots, filepath.Clean(d))
	}
	return roots
}

// goEnvTimeout bounds `go env`.
const goEnvTimeout = 10 * time.Second

// outsideRead reads, for its source line, the file at p outside the
// workspace (links resolved and the rule of r.lang checked first): its
// document, or nil and why not, briefly. It is read as a workspace file
// is (regfile: a regular file, under the cap), by its resolved path, so
// what was checked is what is read.
func (r *renderer) outsideRead(p string) (*position.Document, string) {
	real, err := edit.EvalLinks(p)
	if err != nil {
		return nil, "outside the workspace, and " + briefErr(err)
	}
	if why := r.lang.refusal(real); why != "" {
		return nil, why
	}
	d, err := r.s.c.docs.read(real)
	if err != nil {
		return nil, briefErr(err)
	}
	return d, ""
}

// briefErr is a file error without the path the note names already.
func briefErr(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file"
	}
	var se *regfile.SizeError
	if errors.As(err, &se) {
		return "too large: " + regfile.SizeAndBytes(se.Size) + ", over the cap of " + regfile.ByteSize(se.Limit)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
