package edit

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

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
	// edited maps the resolved path of every edited file to the path the
	// edit named it by, to catch one file reached through two paths.
	edited map[string]string
	// seen is what validation read from the disk, by path, for Apply to
	// check again (verify).
	seen map[string]*observed
}

// observed is what validation saw of one path on disk.
type observed struct {
	exists bool
	mode   fs.FileMode
	// real is the path with ".." and links resolved ("" when that
	// failed): a link above it that now leads elsewhere changes it.
	real string
	// sum is the content's hash, when validation read the content.
	sum *[sha256.Size]byte
	// size and mtime stand for the content of a regular file validation
	// did not read (one inside a folder deleted or moved): reading a
	// whole tree to delete it would cost more than the delete.
	size  int64
	mtime time.Time
	// names are a directory's entries, when validation listed them.
	names  []string
	listed bool
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
	s := &sim{fs: opts.FS, nodes: map[string]*vnode{}, records: map[string]*record{}, edited: map[string]string{}, seen: map[string]*observed{}}
	changes := we.DocumentChanges
	if len(changes) == 0 {
		uris := slices.Sorted(maps.Keys(we.Changes))
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
			if !n.real || !n.exists || (!n.dir && !s.linkedDir(a, n)) {
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
			s.seen[p] = &observed{real: s.resolved(p)}
			return n, nil
		}
		return nil, err
	}
	n := &vnode{exists: true, real: true, dir: fi.IsDir(), mode: fi.Mode(), src: p}
	s.nodes[p] = n
	s.seen[p] = &observed{exists: true, mode: fi.Mode(), real: s.resolved(p), size: fi.Size(), mtime: fi.ModTime()}
	return n, nil
}

// resolved is resolvePath's answer for p, "" when it fails.
func (s *sim) resolved(p string) string {
	r, err := resolvePath(s.fs, p)
	if err != nil {
		return ""
	}
	return r
}

// verify reports, as ErrChanged, the paths whose state on disk differs
// from what validation read: an edit shown to the user must not land on
// files that changed since, however long they took to allow it. Each
// write and move checks its own file again as it runs; this also covers
// what none of them reads again: the files inside a folder deleted or
// moved, a link above a path that now leads elsewhere, a mode.
func (s *sim) verify() error {
	var changed []string
	for _, p := range slices.Sorted(maps.Keys(s.seen)) {
		if !s.seen[p].still(s, p) {
			changed = append(changed, p)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("edit: apply: %s: %w; nothing was changed", strings.Join(changed, ", "), ErrChanged)
	}
	return nil
}

// still reports whether p is on disk as o saw it.
func (o *observed) still(s *sim, p string) bool {
	fi, err := s.fs.Lstat(p)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotDir(err):
		return false // cannot tell: changed, for safety
	case (err == nil) != o.exists:
		return false
	case err == nil && fi.Mode() != o.mode:
		return false
	case err == nil && o.sum == nil && fi.Mode().IsRegular() && (fi.Size() != o.size || !fi.ModTime().Equal(o.mtime)):
		return false
	case s.resolved(p) != o.real:
		return false
	}
	if o.sum != nil {
		b, err := s.fs.ReadFile(p)
		if err != nil || sha256.Sum256(b) != *o.sum {
			return false
		}
	}
	if o.listed {
		names, err := s.list(p)
		if err != nil || !slices.Equal(names, o.names) {
			return false
		}
	}
	return true
}

// list returns the names in directory p, sorted.
func (s *sim) list(p string) ([]string, error) {
	entries, err := s.fs.ReadDir(p)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	slices.Sort(names)
	return names, nil
}

// linkedDir reports whether n, the node of p, is a symbolic link this edit
// has not touched that points to a directory: paths below it are the
// target's, so files can be created and renamed in a symlinked folder.
// A link moved by this edit is not followed, since a relative link may
// point elsewhere once moved.
func (s *sim) linkedDir(p string, n *vnode) bool {
	if !n.exists || !n.real || n.mode&fs.ModeSymlink == 0 {
		return false
	}
	target, err := s.fs.EvalSymlinks(p)
	if err != nil {
		return false
	}
	t, err := s.get(target)
	return err == nil && t.exists && t.dir
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
			if o := s.seen[n.src]; o != nil {
				sum := sha256.Sum256(b)
				o.sum = &sum
			}
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
		// Only a regular file has content of its own: reading a symbolic
		// link reads its target, and fails for a link to a directory or a
		// dangling one, which can still be deleted or renamed.
		if !n.dir && n.mode&fs.ModeType == 0 {
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
	// name is the path the edit used, p the file it reaches.
	name := p
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
	if n.real {
		// Through a symbolic link (to the file or to a directory above it)
		// one file has two names; edits computed for each name separately
		// cannot both apply. Compare the names the edit used: p is already
		// the link's target.
		if resolved, err := resolvePath(s.fs, p); err == nil {
			if prev, ok := s.edited[resolved]; ok && prev != name {
				return fmt.Errorf("edit %s: the same file as %s (through a symbolic link); edit it under one name", name, prev)
			}
			s.edited[resolved] = name
		}
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
		if !n.dir && !s.linkedDir(parent, n) {
			return fmt.Errorf("parent %s is not a directory", parent)
		}
		return nil
	}
	if err := s.ensureParent(parent); err != nil {
		return err
	}
	s.steps = append(s.steps, &mkdirStep{path: parent})
	*n = vnode{exists: true, dir: true, loaded: true}
	if r, ok := s.records[parent]; ok {
		// The directory was deleted or moved away earlier in this edit and
		// comes back: the report must not call it gone.
		r.ops = append(r.ops, OpCreate)
	}
	return nil
}

// moveAside schedules moving p to a fresh name in its directory, to be
// removed once the whole edit succeeded, and marks its subtree gone.
func (s *sim) moveAside(p string) error {
	if err := s.expand(p); err != nil {
		return err
	}
	n, err := s.get(p)
	if err != nil {
		return err
	}
	st := &moveStep{from: p, to: filepath.Join(filepath.Dir(p), hiddenName("trash", p))}
	if n.exists && !n.dir && n.mode&fs.ModeType == 0 {
		// Deleting or overwriting a file someone changed since validation
		// would throw their change away: check it when the step runs.
		b, err := s.content(n)
		if err != nil {
			return err
		}
		st.expect, st.check = b, true
	}
	s.relocateTrash(p, st.to)
	s.steps = append(s.steps, st)
	s.trash = append(s.trash, st.to)
	s.vanish(p)
	return nil
}

// relocateTrash follows moved-aside paths below from when from moves to to,
// so that the final cleanup removes them where they ended up.
func (s *sim) relocateTrash(from, to string) {
	prefix := from + string(filepath.Separator)
	for i, t := range s.trash {
		if strings.HasPrefix(t, prefix) {
			s.trash[i] = to + t[len(from):]
		}
	}
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
	names, err := s.list(p)
	if err != nil {
		return err
	}
	if o := s.seen[p]; o != nil {
		o.names, o.listed = names, true
	}
	for _, name := range names {
		if err := s.expand(filepath.Join(p, name)); err != nil {
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
	if strings.HasPrefix(from, to+string(filepath.Separator)) {
		return fmt.Errorf("rename %s to %s: the target directory contains the source", from, to)
	}
	dst, err := s.get(to)
	if err != nil {
		return err
	}
	if dst.exists {
		switch {
		case o.Overwrite:
			if dst.dir {
				// Replacing a whole tree is not what a refactoring means;
				// refuse rather than delete someone's directory.
				if err := s.expand(to); err != nil {
					return err
				}
				for _, k := range s.below(to) {
					if s.nodes[k].exists {
						return fmt.Errorf("rename %s to %s: overwrite would replace a non-empty directory", from, to)
					}
				}
			}
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
			if old, ok := s.records[nk]; ok && len(old.ops) > 0 {
				// nk was deleted earlier in this edit (or went with its
				// directory): keep its record, or the report would hide
				// that its content is gone.
				if old.ops[len(old.ops)-1] != OpDelete {
					old.ops = append(old.ops, OpDelete)
				}
				s.retired = append(s.retired, retired{nk, old})
			}
			s.records[nk] = r
			delete(s.records, k)
		}
	}
	for _, k := range moved {
		s.nodes[k] = &vnode{}
	}
	s.records[to].ops = append(s.records[to].ops, OpRename)
	s.relocateTrash(from, to)
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
		fr := FileResult{Path: p, Ops: r.ops, Edits: r.edits, Before: r.before,
			Existed: r.oldPath != "", Exists: n != nil && n.exists}
		if r.oldPath != "" && r.oldPath != p {
			fr.OldPath = r.oldPath
		}
		if n != nil && n.exists && n.dir {
			fr.Dir = true
		}
		if n != nil && n.exists && !n.dir && n.mode&fs.ModeType == 0 {
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
	sort.SliceStable(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	res.Events = events(res.Files)
	return res
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
