package edit

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Errors for resource operations, matched with errors.Is.
var (
	// ErrExists is a create or rename onto an existing path without
	// overwrite or ignoreIfExists.
	ErrExists = errors.New("file already exists")
	// ErrNotExist is an edit, rename or delete of a missing path.
	ErrNotExist = errors.New("file does not exist")
	// ErrVersion is a TextDocumentEdit computed for another version of the
	// document than the one the caller holds.
	ErrVersion = errors.New("document version mismatch")
	// ErrChanged is a path that changed on disk between validation and
	// writing; nothing is written, or what was is rolled back.
	ErrChanged = errors.New("changed on disk since the edit was validated")
)

// Options configure NewPlan and Apply.
type Options struct {
	// Encoding is the position encoding of the edit's ranges: the one
	// negotiated with the server that produced the edit. Empty means
	// UTF-16.
	Encoding position.Encoding
	// Root, when set, is the workspace root: paths are shown relative to
	// it, and when CheckPath is nil every path must resolve inside it.
	Root string
	// CheckPath, when set, is called with every path the edit touches
	// (before and after resolving symbolic links); an error rejects the
	// whole edit. RootChecker builds one.
	CheckPath func(path string) error
	// DocumentVersion, when set, returns the version the caller holds for
	// an open document. A TextDocumentEdit with a non-null version that
	// differs is rejected; ok false means the document is not open and the
	// disk content is authoritative.
	DocumentVersion func(path string) (version int32, ok bool)
	// Strict rejects ranges that name a character past the end of a line
	// or inside a character, instead of reading them as the specification
	// does (end of line, start of character).
	Strict bool
	// FS is the file system; nil means OS.
	FS FS
}

// Op is a kind of change done to a path.
type Op string

// The changes reported in FileResult.Ops.
const (
	OpEdit   Op = "edit"
	OpCreate Op = "create"
	OpRename Op = "rename"
	OpDelete Op = "delete"
)

// FileResult reports what an edit did, or would do, to one file or
// directory.
type FileResult struct {
	// Path is where the file is after the edit (for a deleted file, where
	// it was).
	Path string `json:"path"`
	// OldPath is where the file was before, when it was renamed (directly
	// or with its directory).
	OldPath string `json:"oldPath,omitempty"`
	// Ops lists the operations in the order done, e.g. [create edit].
	Ops []Op `json:"ops"`
	// Existed and Exists tell whether the path existed before the edit and
	// exists after it.
	Existed bool `json:"existed"`
	Exists  bool `json:"exists"`
	// Dir is set for directories.
	Dir bool `json:"dir,omitempty"`
	// Edits is the number of text edits applied.
	Edits int `json:"edits,omitempty"`
	// Added and Removed count the lines of the diff.
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	// Diff is a compact unified diff of the content (empty for
	// directories and unchanged content).
	Diff string `json:"diff,omitempty"`
	// Before is the content before (nil when the file did not exist) and
	// After the content after (nil when it no longer exists); callers use
	// After to send didChange/didOpen to servers.
	Before []byte `json:"-"`
	After  []byte `json:"-"`
}

// Result reports an applied or previewed edit.
type Result struct {
	// Files are the touched paths, sorted by Path.
	Files []FileResult `json:"files"`
	// Applied is false for a preview.
	Applied bool `json:"applied"`
	// Events are the file changes to announce to language servers in
	// workspace/didChangeWatchedFiles, in the order of Files: a rename is a
	// deletion of the old path and a creation of the new one.
	Events []FileEvent `json:"events,omitempty"`
	// Warnings are problems that did not undo the edit, such as a moved-
	// aside deleted file that could not be removed afterwards.
	Warnings []string `json:"warnings,omitempty"`
}

// Summary returns one line per file, e.g. "edit a.go: 2 edits, +1 -1".
func (r *Result) Summary(root string) string {
	var sb strings.Builder
	for _, f := range r.Files {
		ops := make([]string, len(f.Ops))
		for i, o := range f.Ops {
			ops[i] = string(o)
		}
		fmt.Fprintf(&sb, "%s %s", strings.Join(ops, "+"), displayPath(root, f.Path))
		if f.OldPath != "" {
			fmt.Fprintf(&sb, " (from %s)", displayPath(root, f.OldPath))
		}
		if f.Edits > 0 {
			fmt.Fprintf(&sb, ": %d edit%s", f.Edits, plural(f.Edits))
		}
		if f.Added > 0 || f.Removed > 0 {
			fmt.Fprintf(&sb, ", +%d -%d lines", f.Added, f.Removed)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Diff returns the unified diffs of all files, concatenated.
func (r *Result) Diff() string {
	var sb strings.Builder
	for _, f := range r.Files {
		sb.WriteString(f.Diff)
	}
	return sb.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func displayPath(root, p string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && Within(filepath.Clean(root), p) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// Plan is a validated edit, ready to be shown and then applied. A Plan
// remembers the content every file had when it was validated, so applying it
// later writes exactly what Result showed, or fails with ErrChanged if a file
// changed in between: what a user approved is what gets applied. A Plan is
// applied at most once and is not safe for concurrent use.
type Plan struct {
	s       *sim
	opts    Options
	res     *Result
	applied bool
}

// NewPlan validates we against the current disk content (see the package
// comment) without writing anything.
func NewPlan(ctx context.Context, we *WorkspaceEdit, opts Options) (*Plan, error) {
	s, err := plan(ctx, we, &opts)
	if err != nil {
		return nil, err
	}
	return &Plan{s: s, opts: opts, res: s.result(&opts, false)}, nil
}

// Result reports what applying the plan will do, with diffs.
func (p *Plan) Result() *Result { return p.res }

// Apply validates we against the disk and then applies it, all or nothing.
// It is NewPlan followed by Plan.Apply.
func Apply(ctx context.Context, we *WorkspaceEdit, opts Options) (*Result, error) {
	p, err := NewPlan(ctx, we, opts)
	if err != nil {
		return nil, err
	}
	return p.Apply(ctx)
}

// Apply writes the plan: if any step fails, every step already done is
// undone and the error says so. First everything validation read from the
// disk is read again (contents, modes, folder entries, where links lead):
// any difference refuses the apply with ErrChanged before anything is
// written. Each file is checked again just before it is written: one
// whose content differs from what was validated stops the apply with
// ErrChanged and rolls back. ctx is checked between steps.
func (p *Plan) Apply(ctx context.Context) (*Result, error) {
	if p.applied {
		return nil, errors.New("edit: apply: plan already applied")
	}
	p.applied = true
	s := p.s
	if err := s.verify(); err != nil {
		return nil, err
	}
	res := *p.res
	res.Applied = true
	done := 0
	var stepErr error
	for i, st := range s.steps {
		if err := ctx.Err(); err != nil {
			stepErr = fmt.Errorf("edit: apply: %w", err)
			break
		}
		if err := st.do(s.fs); err != nil {
			stepErr = fmt.Errorf("edit: apply step %d of %d (%s): %w", i+1, len(s.steps), st, err)
			break
		}
		done++
	}
	if stepErr != nil {
		var undoErrs []error
		for i := done - 1; i >= 0; i-- {
			if err := s.steps[i].undo(s.fs); err != nil {
				undoErrs = append(undoErrs, fmt.Errorf("undo %s: %w", s.steps[i], err))
			}
		}
		if len(undoErrs) > 0 {
			return nil, fmt.Errorf("%w; ROLLBACK INCOMPLETE, files may be partly edited: %w", stepErr, errors.Join(undoErrs...))
		}
		return nil, fmt.Errorf("%w; nothing was changed (all steps rolled back)", stepErr)
	}
	for _, t := range s.trash {
		if err := s.fs.RemoveAll(t); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("could not remove %s: %v", t, err))
		}
	}
	return &res, nil
}

// FileChangeType is the LSP FileChangeType of a FileEvent.
type FileChangeType int

// The LSP file change types.
const (
	FileCreated FileChangeType = 1
	FileChanged FileChangeType = 2
	FileDeleted FileChangeType = 3
)

// FileEvent is one LSP FileEvent.
type FileEvent struct {
	URI  string         `json:"uri"`
	Type FileChangeType `json:"type"`
}

// events derives the watched-file events of a report.
func events(files []FileResult) []FileEvent {
	var out []FileEvent
	for _, f := range files {
		existed, exists := f.Existed, f.Exists
		switch {
		case f.OldPath != "":
			out = append(out, FileEvent{URIFromPath(f.OldPath), FileDeleted})
			if exists {
				out = append(out, FileEvent{URIFromPath(f.Path), FileCreated})
			}
		case existed && !exists:
			out = append(out, FileEvent{URIFromPath(f.Path), FileDeleted})
		case !existed && exists:
			out = append(out, FileEvent{URIFromPath(f.Path), FileCreated})
		case f.Diff != "":
			out = append(out, FileEvent{URIFromPath(f.Path), FileChanged})
		}
	}
	return out
}
