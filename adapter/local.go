package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// saved tells local servers the editor saved uri (they resync it).
func (a *Adapter) saved(uri string) {
	path, err := edit.PathFromURI(uri)
	if err != nil || a.cfg.NoLocal {
		return
	}
	a.resync(func(ctx context.Context) {
		if err := a.mgr.FileSaved(ctx, path); err != nil {
			a.log.Debug("didSave not passed to local servers", "path", path, "err", err)
		}
	})
}

// configs returns the local server registry.
func (a *Adapter) configs() []lsp.ServerConfig {
	if a.cfg.LSP.Servers != nil {
		return a.cfg.LSP.Servers
	}
	return lsp.DefaultServers()
}

func (a *Adapter) localOff(what string) error {
	return unsupported("%s: the editor does not answer it and local language servers are turned off", what)
}

// pathOf returns the local path of a file URI.
func pathOf(uri string) (string, error) {
	p, err := edit.PathFromURI(uri)
	if err != nil {
		return "", badParams("%w", err)
	}
	return p, nil
}

// lspNotifications are LSP client→server notifications `_lsp/request`
// may name; they are answered null once local servers are told.
var lspNotifications = map[string]bool{
	"workspace/didRenameFiles": true, "workspace/didCreateFiles": true, "workspace/didDeleteFiles": true,
	"workspace/didChangeWatchedFiles": true, "textDocument/didSave": true,
	"textDocument/didOpen": true, "textDocument/didChange": true, "textDocument/didClose": true,
	"workspace/didChangeConfiguration": true, "workspace/didChangeWorkspaceFolders": true,
}

// localRequest answers `_lsp/request` from local servers, with the
// readiness of each server that answered.
func (a *Adapter) localRequest(ctx context.Context, p lspext.RequestParams) (json.RawMessage, []lspext.Readiness, error) {
	if a.cfg.NoLocal {
		return nil, nil, a.localOff(p.Method)
	}
	if lspNotifications[p.Method] {
		res, err := a.localNotification(ctx, p)
		return res, nil, err
	}
	if p.Method == "workspace/willRenameFiles" {
		if oldPath, newPath, ok := singleRename(p.Params); ok {
			// Through the Manager: a server that does not take part in
			// file renames answers null (no edits), not -32601, so the
			// move is not refused for it.
			res, err := a.mgr.WillRenameFile(ctx, oldPath, newPath)
			return res, nil, err
		}
	}
	if p.URI != "" {
		path, err := pathOf(p.URI)
		if err != nil {
			return nil, nil, err
		}
		a.noteSample(path)
		ask := a.mgr.Ask
		if p.Peek {
			ask = a.mgr.Peek
		}
		ans, err := ask(ctx, path, p.Method, p.Params)
		return ans.Result, readiness(ans, err), err
	}
	paths, err := a.workspaceFiles(p.Server)
	if err != nil {
		return nil, nil, err
	}
	if p.Method != "workspace/symbol" {
		ans, err := a.mgr.Ask(ctx, paths[0], p.Method, p.Params)
		return ans.Result, readiness(ans, err), err
	}
	if len(paths) == 1 {
		// One server: its answer as it came (a proxy does not decode and
		// re-encode what it does not change); null is an empty list, as
		// from the merge below.
		ans, err := a.mgr.Ask(ctx, paths[0], p.Method, p.Params)
		raw := ans.Result
		if err == nil && (len(raw) == 0 || string(raw) == "null") {
			raw = json.RawMessage("[]")
		}
		return raw, readiness(ans, err), err
	}
	// Workspace symbols come from every server of the workspace, merged.
	var (
		merged []json.RawMessage
		ready  []lspext.Readiness
		errs   []error
	)
	for _, path := range paths {
		ans, err := a.mgr.Ask(ctx, path, p.Method, p.Params)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var items []json.RawMessage
		if raw := ans.Result; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &items); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		merged = append(merged, items...)
		ready = append(ready, readiness(ans, nil)...)
	}
	if len(errs) == len(paths) {
		return nil, nil, errs[0]
	}
	if merged == nil {
		return json.RawMessage("[]"), ready, nil
	}
	raw, err := json.Marshal(merged)
	return raw, ready, err
}

// readiness is the wire form of the readiness of the server that gave
// ans (none for a failure).
func readiness(ans lsp.Answer, err error) []lspext.Readiness {
	r := ans.Readiness
	if err != nil || r.Server == "" {
		return nil
	}
	return []lspext.Readiness{{Server: r.Server, State: string(r.State), Progress: progress(r.Progress)}}
}

// progress is the wire form of reported work.
func progress(ws []lsp.Progress) []lspext.Progress {
	if len(ws) == 0 {
		return nil
	}
	out := make([]lspext.Progress, len(ws))
	for i, w := range ws {
		out[i] = lspext.Progress{Title: w.Title, Message: w.Message, Percentage: w.Percentage}
	}
	return out
}

// singleRename reads the paths of willRenameFiles params naming exactly
// one file.
func singleRename(params json.RawMessage) (oldPath, newPath string, ok bool) {
	var p struct {
		Files []struct {
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"files"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Files) != 1 {
		return "", "", false
	}
	o, err1 := edit.PathFromURI(p.Files[0].OldURI)
	n, err2 := edit.PathFromURI(p.Files[0].NewURI)
	return o, n, err1 == nil && err2 == nil
}

// localNotification passes an LSP notification named in `_lsp/request` to
// local servers through the Manager, which keeps documents in sync itself.
func (a *Adapter) localNotification(ctx context.Context, p lspext.RequestParams) (json.RawMessage, error) {
	var files struct {
		Files []struct {
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"files"`
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if len(p.Params) > 0 {
		if err := json.Unmarshal(p.Params, &files); err != nil {
			return nil, badParams("%s: params: %w", p.Method, err)
		}
	}
	var err error
	switch p.Method {
	case "workspace/didRenameFiles":
		var errs []error
		for _, f := range files.Files {
			oldPath, e1 := pathOf(f.OldURI)
			newPath, e2 := pathOf(f.NewURI)
			if e1 != nil || e2 != nil {
				return nil, errors.Join(e1, e2)
			}
			errs = append(errs, a.mgr.FileRenamed(ctx, oldPath, newPath))
		}
		err = errors.Join(errs...)
	case "workspace/didCreateFiles", "workspace/didDeleteFiles", "workspace/didChangeWatchedFiles":
		var paths []string
		for _, f := range files.Files {
			if path, e := pathOf(f.URI); e == nil {
				paths = append(paths, path)
			}
		}
		for _, c := range files.Changes {
			if path, e := pathOf(c.URI); e == nil {
				paths = append(paths, path)
			}
		}
		err = a.mgr.FileChanged(ctx, paths...)
	case "textDocument/didSave":
		path, e := pathOf(files.TextDocument.URI)
		if e != nil {
			return nil, e
		}
		err = a.mgr.FileSaved(ctx, path)
	default:
		return nil, badParams("%s: acp-lsp keeps documents and configuration in sync with the disk itself; use _lsp/filesChanged after writing files", p.Method)
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage("null"), nil
}

// noteSample remembers a file a request was made about, so workspace-wide
// requests can reach the server that handles it.
func (a *Adapter) noteSample(path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ext := filepath.Ext(path)
	if ext == "" {
		ext = filepath.Base(path)
	}
	if len(a.samples) < 1000 {
		a.samples[ext] = path
	}
}

// workspaceFiles returns one file per local server that a workspace-wide
// request (no uri) should reach, so the Manager routes to each: files
// requests were made about first (their servers were started by naming
// them), then a file of each server the workspace needs (lsp's Survey).
// With server set, only that server's, needed or not: the caller named it.
func (a *Adapter) workspaceFiles(server string) ([]string, error) {
	cfgs := a.configs()
	a.mu.Lock()
	cands := make([]string, 0, len(a.samples))
	for _, p := range a.samples {
		cands = append(cands, p)
	}
	roots := slices.Clone(a.roots)
	a.mu.Unlock()
	slices.Sort(cands)
	var surveys []*lsp.Survey
	for _, root := range roots {
		sv := a.survey(root, false)
		surveys = append(surveys, sv)
		for _, n := range sv.Servers {
			if (server == "" && n.Needed) || n.Config.Name == server {
				cands = append(cands, firstPath(sv, n.Config.Name))
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, path := range cands {
		if !reachable(path, roots) {
			// A file asked about may have been refused (outside every
			// root, not on disk) or be gone since: the Manager would
			// refuse the workspace-wide request sent through it too.
			continue
		}
		c := a.firstInstalled(cfgs, path)
		if c != nil && (server == "" || c.Name == server) && !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, path)
		}
	}
	if len(out) == 0 {
		if server != "" {
			return nil, badParams("no file in the workspace is handled by server %q", server)
		}
		e := &lspNoServer{roots: roots}
		for _, sv := range surveys {
			for _, n := range sv.Servers {
				switch {
				case n.Needed && !n.Installed:
					e.missing = append(e.missing, missingServer{missingError(n.Config), n.Files})
				case !n.Needed:
					e.notNeeded = append(e.notNeeded, n.Config.Name)
				}
			}
		}
		return nil, e
	}
	return out, nil
}

// reachable reports whether a workspace-wide request can reach a server
// through path: a file on disk under one of roots.
func reachable(path string, roots []string) bool {
	if !slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, path) }) {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// firstInstalled returns the server the Manager routes path to: the first
// installed one that handles it (nil when none).
func (a *Adapter) firstInstalled(cfgs []lsp.ServerConfig, path string) *lsp.ServerConfig {
	for _, c := range lsp.ServersFor(cfgs, path) {
		if a.installed(c) {
			return &c
		}
	}
	return nil
}

// survey returns lsp's survey of root: which servers the workspace needs
// and files of each. fresh walks now (status and whole-workspace
// diagnostics, which look at the tree anyway); otherwise the last survey
// serves, walked again only when it found no needed server that can run
// or a file it chose is gone: workspace symbol queries must not walk a
// large tree every time.
func (a *Adapter) survey(root string, fresh bool) *lsp.Survey {
	a.mu.Lock()
	sv := a.surveys[root]
	a.mu.Unlock()
	if !fresh && sv != nil && slices.ContainsFunc(sv.Servers, func(n lsp.ServerNeed) bool { return n.Needed && n.Installed }) &&
		!slices.ContainsFunc(sv.Servers, func(n lsp.ServerNeed) bool { return !reachable(firstPath(sv, n.Config.Name), []string{root}) }) {
		return sv
	}
	sv = a.mgr.Survey(root, maxWorkspaceFiles)
	a.mu.Lock()
	a.surveys[root] = sv
	a.mu.Unlock()
	return sv
}

// firstPath is the first file sv found of server (every server of a
// survey has one).
func firstPath(sv *lsp.Survey, server string) string {
	i := slices.IndexFunc(sv.Paths, func(f lsp.SurveyFile) bool { return f.Server == server })
	if i < 0 {
		return ""
	}
	return sv.Paths[i].Path
}

type lspNoServer struct {
	roots     []string
	missing   []missingServer // servers the workspace needs, not installed
	notNeeded []string        // servers of files under roots the workspace does not need
}

func (e *lspNoServer) Error() string {
	if len(e.roots) == 0 {
		return "no workspace folder is known yet (no session was started); give a file"
	}
	msg := "no file under " + strings.Join(e.roots, ", ") + " is handled by an installed language server"
	for i, ms := range e.missing {
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		msg += sep + fmt.Sprintf("%v (needed by %s)", ms.err, plural(ms.files, "file"))
	}
	if len(e.missing) == 0 && len(e.notNeeded) > 0 {
		msg = "no language server is needed for the workspace-wide questions of " + strings.Join(e.roots, ", ") +
			" (" + strings.Join(e.notNeeded, ", ") + " only have a few files there, or are configured needed = \"no\"; see status); ask about a file"
	}
	return msg
}

// installed reports whether c's program is on the server PATH.
func (a *Adapter) installed(c lsp.ServerConfig) bool {
	_, err := lsp.LookPath(c.Command, a.cfg.LSP.Env)
	return err == nil
}

// localDiagnosticReport answers `_lsp/diagnosticReport` from local
// servers. No uris means every file known to have diagnostics.
func (a *Adapter) localDiagnosticReport(ctx context.Context, p lspext.DiagnosticReportParams) (*lspext.DiagnosticReportResult, error) {
	if a.cfg.NoLocal {
		return nil, a.localOff(lspext.DiagnosticReport)
	}
	var ws workspaceScope
	uris := p.URIs
	if len(uris) == 0 {
		uris, ws = a.workspaceURIs()
	}
	return a.localReport(ctx, uris, p.WaitDuration(), ws)
}

// workspaceScope is what a workspace-wide report leaves out: files beyond
// its bound, files of needed servers not installed, servers the
// workspace does not need.
type workspaceScope struct {
	left    leftOut
	missing []missingServer
	skipped []lsp.ServerNeed
}

// localReport is the local servers' report on uris, with ws's verdicts on
// what a workspace-wide report left out.
func (a *Adapter) localReport(ctx context.Context, uris []string, wait time.Duration, ws workspaceScope) (*lspext.DiagnosticReportResult, error) {
	left, missing, skipped := ws.left, ws.missing, ws.skipped
	paths := make([]string, 0, len(uris))
	for _, u := range uris {
		path, err := pathOf(u)
		if err != nil {
			return nil, err
		}
		a.noteSample(path)
		paths = append(paths, path)
	}
	// Both read zero as the default and negative as no wait.
	rep, err := a.mgr.Diagnostics(ctx, paths, lsp.DiagnosticsOptions{Timeout: wait})
	if err != nil {
		return nil, err
	}
	out := &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{}, Servers: []lspext.ServerVerdict{}}
	for i, f := range rep.Files {
		uri := f.URI
		if uri == "" {
			uri = uris[i]
		}
		server := f.Server
		if server == "" {
			server = "local"
		}
		diags := f.Diagnostics
		if len(diags) == 0 {
			diags = json.RawMessage("[]")
		}
		out.Files = append(out.Files, lspext.FileDiagnostics{URI: uri, Diagnostics: diags, Server: f.Server})
		out.Servers = mergeVerdict(out.Servers, lspext.ServerVerdict{Server: server, Verdict: string(f.Verdict), URIs: []string{uri}, Detail: f.Detail})
	}
	for _, ms := range missing {
		// Files of a language whose server is not installed are not in
		// the report: say so, or the report reads as "no problems".
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: ms.err.Server, Verdict: lspext.VerdictFailed, Unchecked: ms.files,
			Detail: fmt.Sprintf("%v; %s not checked", ms.err, plural(ms.files, "file"))})
	}
	if len(skipped) > 0 {
		// Their files are left out by rule, not found clean: say so.
		var parts []string
		files := 0
		for _, n := range skipped {
			parts = append(parts, fmt.Sprintf("%s of %s", plural(n.Files, "file"), n.Config.Name))
			files += n.Files
		}
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: noteServer, Verdict: lspext.VerdictUnchecked, Unchecked: files,
			Detail: "not checked: " + strings.Join(parts, ", ") + ", servers the workspace does not need (see status); name a file or a glob to check them"})
	}
	if note := a.mgr.WatchStatus().Note; note != "" {
		// A fresh verdict cannot know of files changed outside acp-lsp
		// in folders the watcher does not cover: say so with it.
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: noteServer, Verdict: lspext.VerdictUnsupported, Detail: note})
	}
	if left.files > 0 || left.more {
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: noteServer, Verdict: lspext.VerdictUnchecked, Unchecked: left.files, Detail: left.String()})
	}
	return out, nil
}

// noteServer names the verdicts that are acp-lsp's own caveats on a
// report (files left out of a workspace-wide one, folders file watching
// does not cover), not a server's word on a file.
const noteServer = lspext.NoteServer

// leftOut counts the files of the servers a workspace-wide report asks
// that it leaves out; more says the survey's walk stopped at its bound,
// so there may be others.
type leftOut struct {
	files int
	more  bool
}

// String says what was left out and how to check it.
func (l leftOut) String() string {
	switch {
	case l.files == 0:
		return fmt.Sprintf("the workspace holds more than the %d files and folders a workspace-wide report looks through: files beyond them were not checked; name files or a glob to check them", lsp.MaxSurveyEntries)
	case l.more:
		return fmt.Sprintf("%s or more not checked: a workspace-wide report checks %d source files and looks through %d files and folders; name files or a glob to check others", plural(l.files, "file"), maxWorkspaceFiles, lsp.MaxSurveyEntries)
	}
	return fmt.Sprintf("%s not checked: a workspace-wide report checks %d source files; name files or a glob to check others", plural(l.files, "file"), maxWorkspaceFiles)
}

// mergeVerdict adds v, folding it into an entry with the same server,
// verdict and detail.
func mergeVerdict(list []lspext.ServerVerdict, v lspext.ServerVerdict) []lspext.ServerVerdict {
	for i := range list {
		if list[i].Server == v.Server && list[i].Verdict == v.Verdict && list[i].Detail == v.Detail {
			list[i].URIs = append(list[i].URIs, v.URIs...)
			return list
		}
	}
	return append(list, v)
}

// maxWorkspaceFiles bounds a workspace-wide local diagnostics report.
const maxWorkspaceFiles = 200

// workspaceURIs are the files a workspace-wide local report covers: files
// some server published diagnostics for, then the files under the roots
// of the servers the workspace needs (surveyed now, so new files count).
// At most maxWorkspaceFiles; left counts the files of those servers left
// out (from the survey's counts), so the report can say how many it did
// not check. missing lists the needed servers not installed, with how
// many files each leaves unchecked; skipped the servers with files there
// the workspace does not need.
func (a *Adapter) workspaceURIs() (uris []string, ws workspaceScope) {
	left, missing, skipped := &ws.left, &ws.missing, &ws.skipped
	a.mu.Lock()
	roots := slices.Clone(a.roots)
	a.mu.Unlock()
	seen := map[string]bool{}
	add := func(uri string) bool {
		if seen[uri] {
			return true
		}
		if len(uris) == maxWorkspaceFiles {
			return false
		}
		seen[uri] = true
		uris = append(uris, uri)
		return true
	}
	for _, uri := range a.knownURIs() {
		if path, err := edit.PathFromURI(uri); err == nil && slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, path) }) {
			add(uri)
		}
	}
	for _, root := range roots {
		sv := a.survey(root, true)
		left.more = left.more || sv.Truncated
		checked := map[string]int{} // a server asked: its files not in the report
		for _, n := range sv.Servers {
			switch {
			case n.Needed && n.Installed:
				checked[n.Config.Name] = n.Files
			case n.Needed:
				*missing = append(*missing, missingServer{missingError(n.Config), n.Files})
			default:
				*skipped = append(*skipped, n)
			}
		}
		for _, f := range sv.Paths {
			if _, ok := checked[f.Server]; ok && add(edit.URIFromPath(f.Path)) {
				checked[f.Server]--
			}
		}
		// The survey keeps maxWorkspaceFiles of each server's files and
		// counts them all; a file published for (known) and not kept by
		// the survey is counted here too, so the count errs high, never
		// low.
		for _, n := range checked {
			left.files += max(n, 0)
		}
	}
	return uris, ws
}

// missingServer is a server not installed and how many workspace files
// it was needed for.
type missingServer struct {
	err   *lsp.MissingServerError
	files int
}

// missingError says that c's program is not installed, and how to
// install it.
func missingError(c lsp.ServerConfig) *lsp.MissingServerError {
	return &lsp.MissingServerError{Server: c.Name, Command: c.Command, InstallHint: c.InstallCommand(runtime.GOOS)}
}

// plural says "1 file" or "3 files".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (a *Adapter) knownURIs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.known))
}

// localServers describes local servers: with uri, those that handle it
// (configured ones included, started or not); without, the servers each
// workspace root needs (started or not, with why), the other servers its
// files are routed to, and every other server used.
func (a *Adapter) localServers(uri string) ([]lspext.ServerInfo, error) {
	if a.cfg.NoLocal {
		return []lspext.ServerInfo{}, nil
	}
	cfgs := a.configs()
	byName := map[string]lsp.ServerConfig{}
	for _, c := range cfgs {
		byName[c.Name] = c
	}
	statuses := a.mgr.Servers()
	watchNote := a.mgr.WatchStatus().Note
	out := []lspext.ServerInfo{}
	if uri == "" {
		a.mu.Lock()
		roots := slices.Clone(a.roots)
		a.mu.Unlock()
		listed := make([]bool, len(statuses))
		for _, root := range roots {
			for _, n := range a.survey(root, true).Servers {
				found := false
				for i, st := range statuses {
					if !listed[i] && st.Name == n.Config.Name && edit.Within(root, st.Root) {
						info := serverInfo(st, n.Config, watchNote)
						info.Needed, info.Reason = n.Needed, n.Reason
						out = append(out, info)
						listed[i], found = true, true
					}
				}
				if !found {
					info := a.idleInfo(n.Config)
					info.Root, info.Needed, info.Reason = root, n.Needed, n.Reason
					out = append(out, info)
				}
			}
		}
		for i, st := range statuses {
			if !listed[i] {
				out = append(out, serverInfo(st, byName[st.Name], watchNote))
			}
		}
		return out, nil
	}
	path, err := pathOf(uri)
	if err != nil {
		return nil, err
	}
	for _, c := range lsp.ServersFor(cfgs, path) {
		found := false
		for _, st := range statuses {
			if st.Name == c.Name && edit.Within(st.Root, path) {
				out = append(out, serverInfo(st, c, watchNote))
				found = true
			}
		}
		if !found {
			out = append(out, a.idleInfo(c))
		}
	}
	return out, nil
}

// idleInfo describes local server c where none of its processes was ever
// started: not started yet (it starts on first use), or not installed,
// with how to install it.
func (a *Adapter) idleInfo(c lsp.ServerConfig) lspext.ServerInfo {
	info := lspext.ServerInfo{Name: c.Name, Source: "local", Languages: languages(c), State: "not_started"}
	if !a.installed(c) {
		info.State = "not_installed"
		info.LastError = missingError(c).Error()
	}
	return info
}

// serverInfo describes a local server; watchNote (what file watching does
// not cover, if anything) joins its last error, the status's one free
// text, since it limits what every answer of the server can know.
func serverInfo(st lsp.ServerStatus, c lsp.ServerConfig, watchNote string) lspext.ServerInfo {
	info := lspext.ServerInfo{Name: st.Name, Source: "local", Languages: languages(c), Root: st.Root, PID: st.PID,
		RSS: st.RSSBytes, OverBudget: st.OverBudget, LastError: st.LastError, Capabilities: st.Capabilities, Progress: progress(st.Readiness.Progress)}
	if watchNote != "" {
		info.LastError = strings.TrimPrefix(info.LastError+"; "+watchNote, "; ")
	}
	switch st.State {
	case lsp.StateRunning:
		info.State = "ready"
		if st.Readiness.State == lsp.ReadyLoading {
			info.State = "indexing"
		}
	case lsp.StateStarting:
		info.State = "starting"
	case lsp.StateCrashed, lsp.StateBroken:
		info.State = "failed"
	case lsp.StateMissing:
		info.State = "not_installed"
	default:
		info.State = "stopped"
	}
	return info
}

func languages(c lsp.ServerConfig) []string {
	var out []string
	if c.Language != "" {
		out = append(out, c.Language)
	}
	for _, id := range c.LanguageIDs {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// localRestart restarts the local server named server, or the one
// handling path.
func (a *Adapter) localRestart(ctx context.Context, server, path string) error {
	if path == "" && !a.localName(server) {
		return badParams("no local language server is named %q (see _lsp/status)", server)
	}
	return a.mgr.Restart(ctx, server, path)
}
