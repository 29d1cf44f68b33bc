package edit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
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
	// ErrChanged is a file that changed on disk between validation and
	// writing; the edit is rolled back.
	ErrChanged = errors.New("file changed on disk during the edit")
)

// Options configure Apply and Preview.
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
		if rel, err := filepath.Rel(root, p); err == nil && within(filepath.Clean(root), p) {
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

// Preview validates we against the disk exactly as Apply does and reports
// the result without writing anything.
func Preview(ctx context.Context, we *WorkspaceEdit, opts Options) (*Result, error) {
	p, err := NewPlan(ctx, we, opts)
	if err != nil {
		return nil, err
	}
	return p.Result(), nil
}

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
// undone and the error says so. Each file is checked just before it is
// written: one whose content differs from what was validated stops the
// apply with ErrChanged and rolls back. ctx is checked between steps.
func (p *Plan) Apply(ctx context.Context) (*Result, error) {
	if p.applied {
		return nil, errors.New("edit: apply: plan already applied")
	}
	p.applied = true
	s := p.s
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

// vnode is the simulated state of one path.
type vnode struct {
	exists bool
	dir    bool
	// real means that paths below this one that the simulation has not
	// touched are as on disk (false for created and moved directories).
	real   bool
	mode   fs.FileMode
	src    string // disk path holding the original content, "" if none
	data   []byte
	loaded bool
}

// record tracks what happens to one original file or directory for the
// report.
type record struct {
	oldPath string // path before the edit, "" if created
	ops     []Op
	edits   int
	dir     bool
	before  []byte
}

type sim struct {
	fs      FS
	nodes   map[string]*vnode
	records map[string]*record // by current path
	steps   []step
	trash   []string
	retired []retired // records of paths replaced by a rename
}

type retired struct {
	path string
	rec  *record
}

func plan(ctx context.Context, we *WorkspaceEdit, opts *Options) (*sim, error) {
	if we == nil {
		return nil, errors.New("edit: nil workspace edit")
	}
	if opts.FS == nil {
		opts.FS = OS{}
	}
	enc := opts.Encoding
	if enc == "" {
		enc = position.UTF16
	}
	if !enc.Valid() {
		return nil, fmt.Errorf("edit: position encoding %q: %w", enc, position.ErrEncoding)
	}
	opts.Encoding = enc
	if opts.CheckPath == nil && opts.Root != "" {
		check, err := RootChecker(opts.Root)
		if err != nil {
			return nil, err
		}
		opts.CheckPath = check
	}
	s := &sim{fs: opts.FS, nodes: map[string]*vnode{}, records: map[string]*record{}}
	changes := we.DocumentChanges
	if len(changes) == 0 {
		uris := make([]string, 0, len(we.Changes))
		for u := range we.Changes {
			uris = append(uris, u)
		}
		sort.Strings(uris)
		// Each key of changes is one document edited from its current
		// content; two spellings of one file would apply the second list to
		// ranges the first already moved.
		seen := map[string]string{}
		for _, u := range uris {
			if p, err := PathFromURI(u); err == nil {
				if prev, dup := seen[p]; dup {
					return nil, fmt.Errorf("edit: changes name %s twice (%s and %s); nothing was changed", p, prev, u)
				}
				seen[p] = u
			}
		}
		for _, u := range uris {
			changes = append(changes, DocumentChange{TextDocumentEdit: &TextDocumentEdit{
				TextDocument: VersionedTextDocumentIdentifier{URI: u}, Edits: we.Changes[u]}})
		}
	}
	for i, c := range changes {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("edit: validate: %w", err)
		}
		var err error
		switch {
		case c.TextDocumentEdit != nil:
			err = s.textEdit(c.TextDocumentEdit, opts)
		case c.CreateFile != nil:
			err = s.create(c.CreateFile, opts)
		case c.RenameFile != nil:
			err = s.rename(c.RenameFile, opts)
		case c.DeleteFile != nil:
			err = s.delete(c.DeleteFile, opts)
		default:
			err = errors.New("empty document change")
		}
		if err != nil {
			return nil, fmt.Errorf("edit: change %d of %d: %w; nothing was changed", i+1, len(changes), err)
		}
	}
	return s, nil
}

// path converts a URI and runs the caller's check on it.
func (s *sim) path(uri string, opts *Options) (string, error) {
	p, err := PathFromURI(uri)
	if err != nil {
		return "", err
	}
	if opts.CheckPath != nil {
		if err := opts.CheckPath(p); err != nil {
			return "", err
		}
	}
	return p, nil
}

// get returns the simulated node of p, loading it from disk on first use.
func (s *sim) get(p string) (*vnode, error) {
	if n, ok := s.nodes[p]; ok {
		return n, nil
	}
	for a := filepath.Dir(p); ; a = filepath.Dir(a) {
		if n, ok := s.nodes[a]; ok {
			if !n.real || !n.exists || !n.dir {
				n := &vnode{}
				s.nodes[p] = n
				return n, nil
			}
			break
		}
		if a == filepath.Dir(a) {
			break
		}
	}
	fi, err := s.fs.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			n := &vnode{real: true}
			s.nodes[p] = n
			return n, nil
		}
		return nil, err
	}
	n := &vnode{exists: true, real: true, dir: fi.IsDir(), mode: fi.Mode(), src: p}
	s.nodes[p] = n
	return n, nil
}

// content returns the simulated content of a file node.
func (s *sim) content(n *vnode) ([]byte, error) {
	if !n.loaded {
		if n.src != "" {
			b, err := s.fs.ReadFile(n.src)
			if err != nil {
				return nil, err
			}
			n.data = b
		}
		n.loaded = true
	}
	return n.data, nil
}

// rec returns the report record of the path p, creating it from the
// node's current state.
func (s *sim) rec(p string, n *vnode) (*record, error) {
	if r, ok := s.records[p]; ok {
		return r, nil
	}
	r := &record{dir: n.dir}
	// n.src is where the node was on disk before the edit ("" for paths
	// this edit created), which differs from p inside a renamed directory.
	if n.exists && n.src != "" {
		r.oldPath = n.src
		if !n.dir {
			b, err := s.content(n)
			if err != nil {
				return nil, err
			}
			r.before = b
		}
	}
	s.records[p] = r
	return r, nil
}

func (s *sim) textEdit(e *TextDocumentEdit, opts *Options) error {
	p, err := s.path(e.TextDocument.URI, opts)
	if err != nil {
		return err
	}
	n, err := s.get(p)
	if err != nil {
		return err
	}
	if n.exists && n.mode&fs.ModeSymlink != 0 && !n.real {
		return fmt.Errorf("edit %s: cannot edit a symbolic link moved by this edit", p)
	}
	if n.exists && n.mode&fs.ModeSymlink != 0 && n.real {
		// Edit the file a link points to, not the link: a rename over the
		// link would replace it with a regular file.
		target, err := resolvePath(s.fs, p)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", p, err)
		}
		if opts.CheckPath != nil {
			if err := opts.CheckPath(target); err != nil {
				return err
			}
		}
		p = target
		if n, err = s.get(p); err != nil {
			return err
		}
	}
	if !n.exists {
		return fmt.Errorf("edit %s: %w", p, ErrNotExist)
	}
	if n.dir {
		return fmt.Errorf("edit %s: is a directory", p)
	}
	if !n.mode.IsRegular() && n.mode&fs.ModeType != 0 {
		return fmt.Errorf("edit %s: not a regular file (%s)", p, n.mode.Type())
	}
	if v := e.TextDocument.Version; v != nil && opts.DocumentVersion != nil {
		if cur, ok := opts.DocumentVersion(p); ok && cur != *v {
			return fmt.Errorf("edit %s: computed for version %d, the open document is at version %d: %w", p, *v, cur, ErrVersion)
		}
	}
	before, err := s.content(n)
	if err != nil {
		return err
	}
	r, err := s.rec(p, n)
	if err != nil {
		return err
	}
	after, _, err := applyTextEdits(position.NewDocument(before), e.Edits, opts.Encoding, opts.Strict)
	if err != nil {
		return fmt.Errorf("edit %s: %w", p, err)
	}
	if len(e.Edits) == 0 {
		return nil
	}
	r.ops = appendOp(r.ops, OpEdit)
	r.edits += len(e.Edits)
	if bytes.Equal(before, after) {
		return nil
	}
	s.steps = append(s.steps, &writeStep{path: p, data: after, mode: perm(n.mode), before: before, existed: true})
	n.data = after
	return nil
}

func appendOp(ops []Op, op Op) []Op {
	if len(ops) > 0 && ops[len(ops)-1] == op {
		return ops
	}
	return append(ops, op)
}

func perm(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// ensureParent makes the parent directories of p exist in the simulation,
// adding mkdir steps for the missing ones.
func (s *sim) ensureParent(p string) error {
	parent := filepath.Dir(p)
	if parent == p {
		return nil
	}
	n, err := s.get(parent)
	if err != nil {
		return err
	}
	if n.exists {
		if !n.dir {
			return fmt.Errorf("parent %s is not a directory", parent)
		}
		return nil
	}
	if err := s.ensureParent(parent); err != nil {
		return err
	}
	s.steps = append(s.steps, &mkdirStep{path: parent})
	*n = vnode{exists: true, dir: true, loaded: true}
	return nil
}

// moveAside schedules moving p to a fresh name in its directory, to be
// removed once the whole edit succeeded, and marks its subtree gone.
func (s *sim) moveAside(p string) error {
	if err := s.expand(p); err != nil {
		return err
	}
	t := filepath.Join(filepath.Dir(p), hiddenName("trash", p))
	s.steps = append(s.steps, &moveStep{from: p, to: t})
	s.trash = append(s.trash, t)
	s.vanish(p)
	return nil
}

// expand makes every disk path below p explicit in the simulation, so that
// moving or deleting p can move or delete them.
func (s *sim) expand(p string) error {
	n, err := s.get(p)
	if err != nil {
		return err
	}
	if !n.exists || !n.dir || !n.real || n.mode&fs.ModeSymlink != 0 {
		return nil
	}
	entries, err := s.fs.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := s.expand(filepath.Join(p, e.Name())); err != nil {
			return err
		}
	}
	// Children are all explicit now; nothing below p needs the disk.
	n.real = false
	return nil
}

// below returns the simulated paths strictly below p.
func (s *sim) below(p string) []string {
	prefix := p + string(filepath.Separator)
	var out []string
	for k := range s.nodes {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// vanish marks p and everything below it as not existing.
func (s *sim) vanish(p string) {
	for _, k := range append(s.below(p), p) {
		s.nodes[k] = &vnode{}
	}
}

func (s *sim) create(c *CreateFile, opts *Options) error {
	p, err := s.path(c.URI, opts)
	if err != nil {
		return err
	}
	o := CreateFileOptions{}
	if c.Options != nil {
		o = *c.Options
	}
	n, err := s.get(p)
	if err != nil {
		return err
	}
	r, err := s.rec(p, n)
	if err != nil {
		return err
	}
	if n.exists {
		switch {
		case o.Overwrite:
			if n.dir {
				return fmt.Errorf("create %s: overwrite would replace a directory", p)
			}
			if err := s.moveAside(p); err != nil {
				return err
			}
		case o.IgnoreIfExists:
			return nil
		default:
			return fmt.Errorf("create %s: %w (set overwrite or ignoreIfExists)", p, ErrExists)
		}
	}
	if err := s.ensureParent(p); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	s.steps = append(s.steps, &writeStep{path: p, mode: 0o644})
	s.nodes[p] = &vnode{exists: true, mode: 0o644, loaded: true}
	r.ops = append(r.ops, OpCreate)
	r.dir = false
	return nil
}

func (s *sim) rename(c *RenameFile, opts *Options) error {
	from, err := s.path(c.OldURI, opts)
	if err != nil {
		return err
	}
	to, err := s.path(c.NewURI, opts)
	if err != nil {
		return err
	}
	o := RenameFileOptions{}
	if c.Options != nil {
		o = *c.Options
	}
	src, err := s.get(from)
	if err != nil {
		return err
	}
	if !src.exists {
		return fmt.Errorf("rename %s: %w", from, ErrNotExist)
	}
	if from == to {
		return nil
	}
	if strings.HasPrefix(to, from+string(filepath.Separator)) {
		return fmt.Errorf("rename %s to %s: cannot move a directory into itself", from, to)
	}
	dst, err := s.get(to)
	if err != nil {
		return err
	}
	if dst.exists {
		switch {
		case o.Overwrite:
			r, err := s.rec(to, dst)
			if err != nil {
				return err
			}
			r.ops = append(r.ops, OpDelete)
			s.retired = append(s.retired, retired{to, r})
			delete(s.records, to)
			if err := s.moveAside(to); err != nil {
				return err
			}
		case o.IgnoreIfExists:
			return nil
		default:
			return fmt.Errorf("rename %s to %s: %w (set overwrite or ignoreIfExists)", from, to, ErrExists)
		}
	}
	if err := s.ensureParent(to); err != nil {
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	if err := s.expand(from); err != nil {
		return err
	}
	// Make sure the moved file itself has a record so the report shows it.
	if _, err := s.rec(from, src); err != nil {
		return err
	}
	moved := append([]string{from}, s.below(from)...)
	for _, k := range moved {
		nk := to + strings.TrimPrefix(k, from)
		// n.src keeps naming the original disk path: the simulation never
		// writes, so the content stays readable there.
		n := s.nodes[k]
		cp := *n
		cp.real = false
		s.nodes[nk] = &cp
		if r, ok := s.records[k]; ok {
			s.records[nk] = r
			delete(s.records, k)
		}
	}
	for _, k := range moved {
		s.nodes[k] = &vnode{}
	}
	s.records[to].ops = append(s.records[to].ops, OpRename)
	s.steps = append(s.steps, &moveStep{from: from, to: to})
	return nil
}

func (s *sim) delete(c *DeleteFile, opts *Options) error {
	p, err := s.path(c.URI, opts)
	if err != nil {
		return err
	}
	o := DeleteFileOptions{}
	if c.Options != nil {
		o = *c.Options
	}
	n, err := s.get(p)
	if err != nil {
		return err
	}
	if !n.exists {
		if o.IgnoreIfNotExists {
			return nil
		}
		return fmt.Errorf("delete %s: %w (set ignoreIfNotExists)", p, ErrNotExist)
	}
	r, err := s.rec(p, n)
	if err != nil {
		return err
	}
	if n.dir && n.mode&fs.ModeSymlink == 0 {
		if err := s.expand(p); err != nil {
			return err
		}
		if !o.Recursive {
			for _, k := range s.below(p) {
				if s.nodes[k].exists {
					return fmt.Errorf("delete %s: directory not empty (set recursive)", p)
				}
			}
		}
	}
	if err := s.moveAside(p); err != nil {
		return err
	}
	r.ops = append(r.ops, OpDelete)
	return nil
}

// result builds the report from the simulation.
func (s *sim) result(opts *Options, applied bool) *Result {
	res := &Result{Applied: applied}
	all := make([]retired, 0, len(s.records)+len(s.retired))
	all = append(all, s.retired...)
	for p, r := range s.records {
		all = append(all, retired{p, r})
	}
	for _, e := range all {
		p, r := e.path, e.rec
		if len(r.ops) == 0 {
			continue
		}
		n := s.nodes[p]
		if r.ops[len(r.ops)-1] == OpDelete {
			n = nil
		}
		fr := FileResult{Path: p, Ops: r.ops, Edits: r.edits, Before: r.before}
		if r.oldPath != "" && r.oldPath != p {
			fr.OldPath = r.oldPath
		}
		if n != nil && n.exists && n.dir {
			fr.Dir = true
		}
		if n != nil && n.exists && !n.dir {
			b, err := s.content(n)
			if err == nil {
				fr.After = b
				if fr.After == nil {
					fr.After = []byte{}
				}
			}
		}
		if !fr.Dir && !r.dir {
			oldName, newName := "", ""
			if r.oldPath != "" {
				oldName = "a/" + displayPath(opts.Root, r.oldPath)
			}
			if fr.After != nil {
				newName = "b/" + displayPath(opts.Root, p)
			}
			fr.Diff, fr.Added, fr.Removed = UnifiedDiff(oldName, newName, fr.Before, fr.After)
		} else {
			fr.Dir = true
		}
		res.Files = append(res.Files, fr)
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	return res
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
