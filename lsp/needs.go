package lsp

import (
	"cmp"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Which servers a workspace needs: the ones workspace-wide questions
// (workspace symbols, whole-workspace diagnostics) go to and status lists
// as needed. A server that would only cover a few stray files (seven .js
// files in a Go module) starts only when a question names one of them:
// on golang.org/x/tools, starting typescript-language-server and clangd
// for those cost 540–620 MiB and seconds, and the answers gained nothing.

// NeededShare is the share, in percent, of a workspace's source files (the
// files some server handles, as far as the survey walked) from which a
// server's files make it needed without a project marker.
const NeededShare = 10

// MaxSurveyEntries bounds the walk of one workspace root (files and
// folders seen); past it the survey judges by the part walked.
const MaxSurveyEntries = 20000

// Values of ServerConfig.Needed.
const (
	// NeededAuto (or empty) decides from project markers and the share
	// of files.
	NeededAuto = "auto"
	// NeededYes makes the server needed wherever the workspace holds one
	// of its files.
	NeededYes = "yes"
	// NeededNo never makes the server needed: it starts only when a
	// question names one of its files.
	NeededNo = "no"
)

// vcsMarkers are root markers that mark a repository, not a language:
// every built-in server lists .git, so it tells no language apart.
var vcsMarkers = []string{".git", ".hg", ".svn", ".jj"}

// Survey is what one bounded walk of a workspace root found: the servers
// its files are routed to, and which of them the workspace needs.
type Survey struct {
	// Root is the workspace root walked.
	Root string
	// Files counts the files some enabled server handles.
	Files int
	// Truncated is set when the walk stopped at MaxSurveyEntries.
	Truncated bool
	// Servers are the servers with at least one file: needed ones
	// first, then by files (most first) and name.
	Servers []ServerNeed
	// Paths are files in walk order, at most keep of each server.
	Paths []SurveyFile
}

// ServerNeed is one server of a Survey.
type ServerNeed struct {
	// Config is the server the files are routed to: the first installed
	// one that handles them, else the first (Priority order), as
	// Manager.Request routes.
	Config ServerConfig
	// Files counts its files.
	Files int
	// Installed is whether its program is found on the servers' PATH.
	Installed bool
	// Needed is whether workspace-wide questions go to it.
	Needed bool
	// Reason says why it is needed or not, for status: "go.mod at the
	// workspace root", "3 of 48 files (6%)".
	Reason string
}

// SurveyFile is a file of a Survey and the server it is routed to.
type SurveyFile struct {
	Path   string
	Server string
}

// Needed returns the names of the servers s says are needed, in its order.
func (s *Survey) Needed() []string {
	var out []string
	for _, n := range s.Servers {
		if n.Needed {
			out = append(out, n.Config.Name)
		}
	}
	return out
}

// Survey walks root (at most MaxSurveyEntries entries, skipping hidden,
// dependency and build folders) and decides which servers the workspace
// needs. A server is needed when its configuration says needed = "yes"
// and the workspace holds one of its files; never when it says "no";
// otherwise when one of its root markers (a version-control folder does
// not count) is at root and the workspace holds one of its files, or when
// its files are at least NeededShare percent of the files some server
// handles. keep bounds Paths per server. It starts nothing.
func (m *Manager) Survey(root string, keep int) *Survey {
	sv := &Survey{Root: root}
	installed := map[string]bool{}
	isInstalled := func(c ServerConfig) bool {
		v, ok := installed[c.Name]
		if !ok {
			v = m.installed(c)
			installed[c.Name] = v
		}
		return v
	}
	index := map[string]int{}
	sv.Truncated = walkFiles(root, MaxSurveyEntries, func(path string) bool {
		cfg, ok := pickServer(ServersFor(m.opts.Servers, path), isInstalled)
		if !ok {
			return false
		}
		i, seen := index[cfg.Name]
		if !seen {
			i = len(sv.Servers)
			index[cfg.Name] = i
			sv.Servers = append(sv.Servers, ServerNeed{Config: cfg, Installed: isInstalled(cfg)})
		}
		sv.Servers[i].Files++
		sv.Files++
		if sv.Servers[i].Files <= keep {
			sv.Paths = append(sv.Paths, SurveyFile{Path: path, Server: cfg.Name})
		}
		return false
	})
	sv.decide()
	return sv
}

// decide sets Needed and Reason of every server of s.
func (s *Survey) decide() {
	for i := range s.Servers {
		n := &s.Servers[i]
		share := fmt.Sprintf("%d of %d files (%s)", n.Files, s.Files, percent(n.Files, s.Files))
		switch marker := s.marker(n.Config); {
		case n.Config.Needed == NeededNo:
			n.Reason = share + `; configured needed = "no"`
		case n.Config.Needed == NeededYes:
			n.Needed, n.Reason = true, share+`; configured needed = "yes"`
		case marker != "":
			n.Needed, n.Reason = true, marker+" at the workspace root"
		case n.Files*100 >= NeededShare*s.Files:
			n.Needed, n.Reason = true, share
		default:
			n.Reason = fmt.Sprintf("%s, under %d%%, and no project marker at the workspace root", share, NeededShare)
		}
	}
	slices.SortStableFunc(s.Servers, func(a, b ServerNeed) int {
		if a.Needed != b.Needed {
			if a.Needed {
				return -1
			}
			return 1
		}
		return cmp.Or(b.Files-a.Files, strings.Compare(a.Config.Name, b.Config.Name))
	})
}

// marker returns the first of c's root markers, version-control folders
// left out, that s's root holds ("" when none).
func (s *Survey) marker(c ServerConfig) string {
	for _, mk := range c.RootMarkers {
		if slices.Contains(vcsMarkers, mk) {
			continue
		}
		if hasMarker(s.Root, mk) {
			return mk
		}
	}
	return ""
}

// percent says n of total as a whole percentage, "under 1%" for a
// share that rounds down to nothing.
func percent(n, total int) string {
	p := n * 100 / max(total, 1)
	if p == 0 && n > 0 {
		return "under 1%"
	}
	return fmt.Sprintf("%d%%", p)
}

// pickServer returns the server a file is routed to among cands (its
// servers in Priority order): the first installed one, else the first.
func pickServer(cands []ServerConfig, installed func(ServerConfig) bool) (ServerConfig, bool) {
	if len(cands) == 0 {
		return ServerConfig{}, false
	}
	for _, c := range cands {
		if installed(c) {
			return c, true
		}
	}
	return cands[0], true
}

// installed reports whether c's program can be started: found on the
// servers' PATH, or any program when Options.Connect stands in for
// spawning.
func (m *Manager) installed(c ServerConfig) bool {
	if m.opts.Connect != nil {
		return true
	}
	_, err := m.lookPath(c.Command)
	return err == nil
}

// walkFiles calls f for regular files under root, skipping hidden and
// dependency folders (node_modules, vendor, target, __pycache__), until f
// returns true or limit entries were seen. It reports whether it stopped
// at the limit.
func walkFiles(root string, limit int, f func(path string) bool) (truncated bool) {
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n++
		if n > limit {
			truncated = true
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target" || name == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && f(p) {
			return filepath.SkipAll
		}
		return nil
	})
	return truncated
}
