package component

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// change is the outcome of a previewed or applied WorkspaceEdit.
type change struct {
	Applied  bool              `json:"applied"`
	Files    []edit.FileResult `json:"files"`
	Warnings []string          `json:"warnings,omitempty"`
	// Check is the check of the edit before it was written (checkEdit).
	Check *lspext.CheckResult `json:"check,omitempty"`
}

// applyEdit previews we or, with apply, asks the editor and writes it all
// or nothing, then tells upstream which files changed, then runs after.
// Denied means nothing is written and after does not run. then says what
// after does, for the user to see before allowing it ("" when it changes
// nothing). lk is let go while the user is asked (askUser); what changed
// meanwhile refuses the edit (Plan.Apply).
func (s *Session) applyEdit(ctx context.Context, lk *editLock, action, title string, we *edit.WorkspaceEdit, apply bool, after func(context.Context) error, then string) (*answer, error) {
	if apply && !s.cfg.allowed(action) {
		return nil, fmt.Errorf("%s is turned off in acp-lsp's configuration (allow_mutating); call without apply for a preview", action)
	}
	// The files an edit names are read under the cap the tool's own reads
	// have: a server's answer can name any file in the workspace.
	opts := edit.Options{Encoding: position.UTF16, Root: s.Root, CheckPath: s.checkPath, FS: edit.OS{MaxFileSize: s.c.cfg.MaxFileSize}}
	plan, err := edit.NewPlan(ctx, we, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", action, err)
	}
	pre := plan.Result()
	// An empty edit still goes ahead when something runs after it (a
	// code action's command): the user is asked for that alone.
	if len(pre.Files) == 0 && (!apply || then == "") {
		return &answer{text: title + ": the server proposed no change", data: change{}}, nil
	}
	var checked string
	var checkRes *lspext.CheckResult
	if checkedActions[action] {
		checked, checkRes = s.checkEdit(ctx, pre)
	}
	if !apply {
		text := fmt.Sprintf("%s (preview, nothing written; call again with apply=true to write it)\n%s\n%s%s", title, pre.Summary(s.Root), pre.Diff(), checked)
		return s.textAnswer(text, change{Files: pre.Files, Check: checkRes}, "text", map[string]any{"applied": false}), nil
	}
	if s.c.cfg.AskPermission != nil {
		// The summary as well as the diffs: a move, a folder deleted or a
		// file created empty has no diff, and the user must see every
		// change that is made once they allow it.
		shown := pre.Summary(s.Root) + pre.Diff()
		if then != "" {
			shown += "then " + then + "\n"
		}
		shown += checked
		ok, err := s.askUser(ctx, lk, title, shown)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", action, err)
		}
		if !ok {
			return nil, fmt.Errorf("%s: the user declined; nothing was changed", action)
		}
	}
	res, err := plan.Apply(ctx)
	if errors.Is(err, edit.ErrChanged) {
		return nil, fmt.Errorf("%s: files changed after the edit was computed (while the user was being asked, or by another program), so it no longer fits them; nothing was changed, call again for a fresh preview: %w", action, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: nothing was changed: %w", action, err)
	}
	var changes []lspext.FileChange
	for _, ev := range res.Events {
		changes = append(changes, lspext.FileChange{URI: ev.URI, Type: int(ev.Type)})
		s.c.markTouched(ev.URI)
	}
	for _, f := range res.Files {
		if f.Exists && !f.Dir && f.OldPath == "" {
			u := edit.URIFromPath(f.Path)
			if !slices.ContainsFunc(changes, func(c lspext.FileChange) bool { return c.URI == u }) {
				changes = append(changes, lspext.FileChange{URI: u, Type: 2})
			}
			s.c.markTouched(u)
		}
	}
	var warnings []string
	warnings = append(warnings, res.Warnings...)
	if len(res.Files) > 0 { // else nothing was written: nothing to tell
		if err := s.c.backend.FilesChanged(ctx, changes); err != nil {
			warnings = append(warnings, "language servers were not told about the change: "+err.Error())
		}
	}
	if after != nil {
		if err := after(ctx); err != nil {
			warnings = append(warnings, err.Error())
		}
	}
	text := fmt.Sprintf("%s: applied\n%s", title, res.Summary(s.Root))
	for _, w := range warnings {
		text += "\nwarning: " + w
	}
	if checked != "" {
		text += "\n" + strings.TrimSuffix(checked, "\n")
	}
	return s.textAnswer(text, change{Applied: true, Files: res.Files, Warnings: warnings, Check: checkRes}, "text", map[string]any{"applied": true}), nil
}

// checkedActions are the actions whose edit is checked before it is
// written: the diagnostics it would add and remove show in the preview,
// in what the user is asked to allow, and in the applied answer, so the
// model learns what an edit breaks before it writes it.
var checkedActions = map[string]bool{"rename": true, "code_actions": true}

// checkEdit checks the edit planned in pre (Checker): the block to show
// (checkBlock, ending in a newline) and the result, nil when the check
// was not done. Every file the edit changes is checked with the others'
// new content, and the files it does not touch are reported where it
// changes their diagnostics (a caller it breaks). A file the edit
// creates is checked as an unsaved document the disk does not have. An
// edit that moves or deletes a file is said not checked: the file stays
// on disk for the server, which would check the edit against it.
func (s *Session) checkEdit(ctx context.Context, pre *edit.Result) (string, *lspext.CheckResult) {
	var files []lspext.CheckFile
	texts := map[string][2]string{}
	var rels []string
	n := 0
	for i := range pre.Files {
		f := &pre.Files[i]
		if f.Dir || bytes.Equal(f.Before, f.After) && f.OldPath == "" && f.Existed == f.Exists {
			continue
		}
		n++
		if f.Exists && f.OldPath == "" {
			uri := edit.URIFromPath(f.Path)
			files = append(files, lspext.CheckFile{URI: uri, Text: string(f.After)})
			texts[uri] = [2]string{string(f.Before), string(f.After)}
			rels = append(rels, relPath(s.Root, f.Path))
		}
	}
	if n == 0 || !canCheck(s.c.backend) {
		return "", nil
	}
	if len(files) < n {
		return fmt.Sprintf("check of the edit: not done: it moves or deletes %d of the %d files it changes, and a language server still reads a moved or deleted file from disk, so the check would count it; ask diagnostics after applying\n", n-len(files), n), nil
	}
	c := s.c.backend.(Checker)
	head := "check of the edit to " + rels[0] + " before writing it"
	if len(rels) > 1 {
		head = fmt.Sprintf("check of the edit to %d files before writing it", len(rels))
	}
	res, err := c.Check(ctx, files, s.cfg.DiagnosticsWait, true)
	if errors.Is(err, errNoCheck) {
		// A backend that never checks (an editor's only) says nothing
		// on every edit.
		return "", nil
	}
	if err != nil {
		return head + ": not done: " + err.Error() + "\n", nil
	}
	text, _, err := s.checkBlock(head, texts, res)
	if err != nil {
		return head + ": not done: " + err.Error() + "\n", nil
	}
	return text + "\n", res
}

func (s *Session) rename(ctx context.Context, lk *editLock, in Input) (*answer, error) {
	if in.NewName == "" {
		return nil, errors.New("rename needs new_name")
	}
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	p := textDocPos(t)
	p["newName"] = in.NewName
	raw, err := s.request(ctx, t.uri, "textDocument/rename", p)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("rename: the server cannot rename at %s", s.newRenderer().loc(t.uri, t.pos))
	}
	we, err := edit.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("rename: %w", err)
	}
	title := fmt.Sprintf("rename %s to %s", cmp.Or(in.Symbol, "symbol"), in.NewName)
	return s.applyEdit(ctx, lk, "rename", title, we, in.Apply, nil, "")
}

func (s *Session) renameFile(ctx context.Context, lk *editLock, in Input) (*answer, error) {
	if in.NewName == "" {
		return nil, errors.New("rename_file needs new_name (the new path)")
	}
	oldPath, err := s.resolve(in.File)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(oldPath); err != nil {
		return nil, fmt.Errorf("rename_file: %w", err)
	}
	if link, ok, err := s.linkEntry(in.File); err != nil {
		return nil, err
	} else if ok {
		// A link is moved as mv moves it: the link, not its target (which
		// resolve checked is inside the workspace, as everything is).
		oldPath = link
	} else if s.holdsRoot(oldPath) {
		// With additional directories, one root could be moved into
		// another: the session and its servers would lose their folder.
		return nil, fmt.Errorf("rename_file: %s is a workspace folder of this session (or holds one); it cannot be moved", relPath(s.Root, oldPath))
	}
	newPath, err := s.resolve(in.NewName)
	if err != nil {
		return nil, err
	}
	oldURI, newURI := edit.URIFromPath(oldPath), edit.URIFromPath(newPath)
	files := map[string]any{"files": []map[string]string{{"oldUri": oldURI, "newUri": newURI}}}
	raw, err := s.request(ctx, oldURI, "workspace/willRenameFiles", files)
	if err != nil {
		// The move must not go ahead without the import updates the
		// server would have made: they would be lost silently.
		return nil, fmt.Errorf("rename_file: the server failed to prepare the move, nothing changed: %w", err)
	}
	combined, err := withRename(raw, oldURI, newURI)
	if err != nil {
		return nil, fmt.Errorf("rename_file: %w", err)
	}
	we, err := edit.Parse(combined)
	if err != nil {
		return nil, fmt.Errorf("rename_file: %w", err)
	}
	title := fmt.Sprintf("move %s to %s", relPath(s.Root, oldPath), relPath(s.Root, newPath))
	after := func(ctx context.Context) error {
		_, err := s.request(ctx, newURI, "workspace/didRenameFiles", files)
		if err != nil {
			return fmt.Errorf("workspace/didRenameFiles: %w", err)
		}
		return nil
	}
	return s.applyEdit(ctx, lk, "rename_file", title, we, in.Apply, after, "")
}

// linkEntry returns the path of file itself, its folder resolved, when
// file names a link, symbolic or a Windows junction (ok false otherwise).
// resolve answers where a link leads, which is what reading a file needs;
// moving one must not move what it leads to.
func (s *Session) linkEntry(file string) (string, bool, error) {
	p := s.absPath(file)
	if !edit.IsLink(p) {
		return "", false, nil
	}
	dir, err := s.resolve(filepath.Dir(p))
	if err != nil {
		return "", false, err
	}
	return filepath.Join(dir, filepath.Base(p)), true, nil
}

// withRename returns the server's WorkspaceEdit (raw, may be null) as
// documentChanges followed by the rename of oldURI to newURI.
func withRename(raw json.RawMessage, oldURI, newURI string) (json.RawMessage, error) {
	var we struct {
		Changes         map[string]json.RawMessage `json:"changes"`
		DocumentChanges []json.RawMessage          `json:"documentChanges"`
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &we); err != nil {
			return nil, fmt.Errorf("malformed willRenameFiles answer: %w", err)
		}
	}
	dcs := we.DocumentChanges
	if dcs == nil {
		for _, uri := range slices.Sorted(maps.Keys(we.Changes)) {
			b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "version": nil}, "edits": we.Changes[uri]})
			dcs = append(dcs, b)
		}
	}
	op, _ := json.Marshal(map[string]string{"kind": "rename", "oldUri": oldURI, "newUri": newURI})
	dcs = append(dcs, op)
	return json.Marshal(map[string]any{"documentChanges": dcs})
}

// rangeOf builds an LSP range from line/column..end_line/end_column, or a
// symbol's position when no column is given.
func (s *Session) rangeOf(ctx context.Context, in Input) (*target, position.Range, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, position.Range{}, err
	}
	start := t.pos
	endLine := cmp.Or(in.EndLine, in.Line)
	var end position.Position
	if in.EndColumn > 0 {
		end, err = t.doc.FromUser(endLine, in.EndColumn, position.UTF16)
	} else {
		end, err = t.doc.FromUser(endLine, len([]rune(t.doc.Line(endLine-1)))+1, position.UTF16)
	}
	if err != nil {
		return nil, position.Range{}, err
	}
	return t, position.Range{Start: start, End: end}, nil
}

func (s *Session) format(ctx context.Context, lk *editLock, in Input) (*answer, error) {
	path, err := s.resolve(in.File)
	if err != nil {
		return nil, err
	}
	uri := edit.URIFromPath(path)
	opts := s.formattingOptions(path)
	var raw json.RawMessage
	if in.Line > 0 {
		if in.Column == 0 && in.Symbol == "" {
			in.Column = 1
		}
		_, r, err := s.rangeOf(ctx, in)
		if err != nil {
			return nil, err
		}
		raw, err = s.request(ctx, uri, "textDocument/rangeFormatting", map[string]any{"textDocument": map[string]string{"uri": uri}, "range": r, "options": opts})
		if err != nil {
			return nil, err
		}
	} else {
		raw, err = s.request(ctx, uri, "textDocument/formatting", map[string]any{"textDocument": map[string]string{"uri": uri}, "options": opts})
		if err != nil {
			return nil, err
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("[]")
	}
	var edits []json.RawMessage
	if err := json.Unmarshal(raw, &edits); err != nil {
		return nil, fmt.Errorf("format: malformed answer: %w", err)
	}
	if len(edits) == 0 {
		return &answer{text: relPath(s.Root, path) + " is already formatted", data: change{}}, nil
	}
	weRaw, _ := json.Marshal(map[string]any{"changes": map[string]any{uri: edits}})
	we, err := edit.Parse(weRaw)
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	return s.applyEdit(ctx, lk, "format", "format "+relPath(s.Root, path), we, in.Apply, nil, "")
}

// codeAction is a server's code action and, for resolve, the whole action
// as the server sent it.
type codeAction struct {
	wire.CodeAction
	raw json.RawMessage
}

func (s *Session) codeActions(ctx context.Context, lk *editLock, in Input) (*answer, error) {
	if in.Line == 0 {
		return nil, errors.New("code_actions needs file and line (and symbol or column; end_line for a range)")
	}
	if in.Column == 0 && in.Symbol == "" {
		in.Column = 1
	}
	t, r, err := s.rangeOf(ctx, in)
	if err != nil {
		return nil, err
	}
	// Diagnostics overlapping the range, so servers offer their fixes.
	diags := []wire.Diagnostic{}
	if cached, ok := s.c.cache.Get(t.uri); ok {
		for _, d := range cached {
			if d.Range.Start.Line <= r.End.Line && d.Range.End.Line >= r.Start.Line {
				diags = append(diags, d)
			}
		}
	}
	cctx := map[string]any{"diagnostics": diags}
	if in.Kind != "" {
		cctx["only"] = []string{in.Kind}
	}
	raw, err := s.request(ctx, t.uri, "textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": t.uri}, "range": r, "context": cctx})
	if err != nil {
		return nil, err
	}
	var list []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("code_actions: malformed answer: %w", err)
		}
	}
	var actions []codeAction
	for _, a := range list {
		var ca codeAction
		if err := json.Unmarshal(a, &ca); err != nil {
			continue
		}
		ca.raw = a
		if ca.Kind == "" && ca.Edit == nil && len(ca.Command) > 0 && ca.Command[0] == '"' {
			// A bare Command: its command field is a string.
			ca.Command = a
		}
		if in.Kind != "" && !strings.HasPrefix(ca.Kind, in.Kind) {
			continue
		}
		actions = append(actions, ca)
	}
	if !in.Apply {
		return s.listActions(s.newRenderer().loc(t.uri, r.Start), actions, in), nil
	}
	if in.ActionIndex < 1 || in.ActionIndex > len(actions) {
		return nil, fmt.Errorf("code_actions apply: index must be 1..%d (list them without apply first)", len(actions))
	}
	a := actions[in.ActionIndex-1]
	if a.Disabled != nil {
		return nil, fmt.Errorf("code action %q is disabled: %s", a.Title, a.Disabled.Reason)
	}
	if len(a.Edit) == 0 && len(a.Data) > 0 {
		resolved, err := s.c.backend.Request(ctx, t.uri, "codeAction/resolve", a.raw)
		if err != nil {
			return nil, fmt.Errorf("code action %q: resolve: %w", a.Title, err)
		}
		var ra codeAction
		if err := json.Unmarshal(resolved.Result, &ra); err == nil {
			a.Edit, a.Command = ra.Edit, cmpRaw(ra.Command, a.Command)
		}
	}
	runCommand := func(ctx context.Context) error {
		if len(a.Command) == 0 || string(a.Command) == "null" {
			return nil
		}
		if _, err := s.c.backend.Request(ctx, t.uri, "workspace/executeCommand", a.Command); err != nil {
			return fmt.Errorf("code action command: %w", err)
		}
		return nil
	}
	title := "code action: " + a.Title
	if len(a.Edit) == 0 || string(a.Edit) == "null" {
		if len(a.Command) == 0 {
			return nil, fmt.Errorf("code action %q has neither an edit nor a command", a.Title)
		}
		if !s.cfg.allowed("code_actions") {
			return nil, errors.New("code_actions is turned off in acp-lsp's configuration (allow_mutating)")
		}
		ok, err := s.askUser(ctx, lk, title, "the language server runs the command "+string(a.Command))
		if err != nil {
			return nil, fmt.Errorf("code action %q: %w; the command was not run", a.Title, err)
		}
		if !ok {
			return nil, errors.New("code action: the user declined; nothing was changed")
		}
		if err := runCommand(ctx); err != nil {
			return nil, err
		}
		return &answer{text: title + ": command run by the server"}, nil
	}
	we, err := edit.Parse(a.Edit)
	if err != nil {
		return nil, fmt.Errorf("code action %q: %w", a.Title, err)
	}
	then := ""
	if len(a.Command) > 0 && string(a.Command) != "null" {
		then = "the language server runs the command " + string(a.Command)
	}
	return s.applyEdit(ctx, lk, "code_actions", title, we, true, runCommand, then)
}

// listedAction is a code action as a code_actions list shows it, with
// the index apply takes.
type listedAction struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	Kind  string `json:"kind,omitempty"`
}

// actionList is a code_actions list's structuredContent: the actions the
// text lists and what was left out, in a listing's terms.
type actionList struct {
	Actions   []listedAction `json:"actions"`
	Total     int            `json:"total"`
	Offset    int            `json:"offset"`
	Shown     int            `json:"shown"`
	NextPage  int            `json:"next_offset,omitempty"`
	Truncated bool           `json:"truncated"`
}

// listActions lists the page of actions that in's offset and limit ask
// for, numbered as apply takes them, as far as it fits the budget as text
// and the data budget as structuredContent: the actions that do not fit
// are left to the next page, which the note names, rather than cut off
// mid-line by the budget, so the text and the data list the same ones.
// At least one is listed, so paging always moves on; titles, kinds and
// reasons are cut to a tenth of the budget each, so that one action
// cannot take the budget alone.
func (s *Session) listActions(at string, actions []codeAction, in Input) *answer {
	budget := s.cfg.Budget
	off, end := window(in, len(actions))
	long := budget / 10
	lines := make([]string, 0, end-off)
	list := make([]listedAction, 0, end-off)
	for i, a := range actions[off:end] {
		la := listedAction{Index: off + i + 1, Title: headOf(a.Title, long), Kind: headOf(a.Kind, long)}
		line := fmt.Sprintf("%d. %s", la.Index, la.Title)
		if la.Kind != "" {
			line += " [" + la.Kind + "]"
		}
		if a.IsPreferred {
			line += " (preferred)"
		}
		if a.Disabled != nil {
			line += " (disabled: " + headOf(a.Disabled.Reason, long) + ")"
		}
		lines = append(lines, line+"\n")
		list = append(list, la)
	}
	header := func(k int) string {
		h := fmt.Sprintf("code actions at %s: %d", at, len(actions))
		switch {
		case k == 0 && off > 0:
			h += fmt.Sprintf(" (none shown: offset %d is past the last one)", off)
		case off > 0 || off+k < len(actions):
			h += fmt.Sprintf(" (showing %d-%d)", off+1, off+k)
		}
		return h + "\n"
	}
	const (
		applyNote = "note: apply one with apply=true and index=N (same file, line and kind)\n"
		cutNote   = "note: %d more actions of this page do not fit the output budget; narrow with kind\n"
		nextNote  = "note: more results: call again with offset=%d\n"
	)
	notes := func(k int) string {
		var b strings.Builder
		if k > 0 {
			b.WriteString(applyNote)
		}
		if k < len(lines) {
			fmt.Fprintf(&b, cutNote, len(lines)-k)
		}
		if off+k < len(actions) {
			fmt.Fprintf(&b, nextNote, off+k)
		}
		return b.String()
	}
	data := func(k int) actionList {
		d := actionList{Actions: list[:k], Total: len(actions), Offset: off, Shown: k}
		if off+k < len(actions) {
			d.NextPage, d.Truncated = off+k, true
		}
		return d
	}
	// The whole page, as a rule, fits. Else as many actions as fit,
	// counted with the parts around them at their longest (the budget's
	// note, every number as long as the total's).
	k := len(lines)
	full, err := json.Marshal(data(k))
	if err != nil || len(header(k))+len(strings.Join(lines, ""))+len(notes(k)) > budget || len(full) > dataBudget(budget) {
		n := len(actions)
		meta, err := json.Marshal(actionList{Actions: []listedAction{}, Total: n, Offset: off, Shown: n, NextPage: n, Truncated: true})
		if err != nil {
			return &answer{text: header(0) + notes(0)}
		}
		textLen := len(fmt.Sprintf("code actions at %s: %d (showing %d-%d)\n", at, n, n, n)) +
			len(applyNote) + len(fmt.Sprintf(cutNote, len(lines))) + len(fmt.Sprintf(nextNote, n))
		dataLen := len(meta)
		k = 0
		for k < len(lines) {
			b, err := json.Marshal(list[k])
			if err != nil || k > 0 && (textLen+len(lines[k]) > budget || dataLen+len(b)+1 > dataBudget(budget)) {
				break
			}
			k, textLen, dataLen = k+1, textLen+len(lines[k]), dataLen+len(b)+1
		}
	}
	text := header(k) + strings.Join(lines[:k], "") + notes(k)
	b, err := json.Marshal(data(k))
	if err != nil {
		return &answer{text: text}
	}
	return &answer{text: text, data: encoded(b)}
}

func cmpRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}
