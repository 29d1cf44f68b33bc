package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

func TestBinaryAt(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", -1},
		{"ascii", "package main\n", -1},
		{"cjk and emoji", "// 日本語 🎉\n", -1},
		{"bom", "\ufeffpackage main\n", -1},
		{"nul", "package main\n\x00", 13},
		{"invalid utf-8", "abc\xffdef", 3},
		{"truncated rune", "ab\xe6\x97", 2},
		{"invalid before nul", "a\xfe\x00", 1},
		{"nul before invalid", "a\x00\xfe", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := binaryAt([]byte(c.in)); got != c.want {
				t.Fatalf("binaryAt(%q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

// didTraffic lists the document notifications the fake received, as
// "method file[ version]" and "watched file:type".
func didTraffic(t *testing.T, msgs []fakelsp.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		switch {
		case m.Method == "workspace/didChangeWatchedFiles":
			var p struct {
				Changes []struct {
					URI  string `json:"uri"`
					Type int    `json:"type"`
				} `json:"changes"`
			}
			if err := decode(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Changes {
				out = append(out, "watched "+filepath.Base(c.URI)+":"+strconv.Itoa(c.Type))
			}
		case strings.HasPrefix(m.Method, "textDocument/did"):
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			}
			if err := decode(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			s := strings.TrimPrefix(m.Method, "textDocument/") + " " + filepath.Base(p.TextDocument.URI)
			if p.TextDocument.Version != 0 {
				s += " " + strconv.Itoa(p.TextDocument.Version)
			}
			out = append(out, s)
		}
	}
	return out
}

// noWatch turns file watching off, for the tests of what stands without
// it.
func noWatch(o *Options) { o.MaxWatchedDirs = -1 }

// watcherScript registers file watchers, as gopls does after initialized.
var watcherScript = fakelsp.Script{ClientRequests: []fakelsp.ClientRequest{
	{Method: "client/registerCapability", Params: json.RawMessage(`{"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.fk"}]}}]}`)},
}}

// TestFaultFileCaps: a file over MaxFileSize, or with NUL bytes or
// invalid UTF-8, is never sent to the server: requests get a *FileError
// naming the file and the reason, diagnostics the verdict failed with it
// (never an empty "fresh"), a copy the server had open before is closed,
// and the server keeps answering about other files.
func TestFaultFileCaps(t *testing.T) {
	const limit = 200
	for _, c := range []struct {
		name    string
		content string
		is      error
		want    []string
	}{
		{"too large", "package fake\n// " + strings.Repeat("x", limit) + "\n", ErrFileTooLarge, []string{"too large", "217 bytes", "over the cap of 200 bytes"}},
		{"nul bytes", "package fake\n\x00\x01\x02 data\n", ErrBinaryFile, []string{"binary", "a NUL byte at byte 13 of 22"}},
		{"invalid utf-8", "package fake\n// caf\xe9\n", ErrBinaryFile, []string{"binary", "invalid UTF-8 at byte 19 of 21"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) { o.MaxFileSize = limit })
			bad := filepath.Join(e.root, "bad.fk")
			// Open as text first: the server must lose its copy when the
			// file turns bad.
			if err := os.WriteFile(bad, []byte("package fake\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if rep, err := e.m.Diagnostics(t.Context(), []string{bad}, DiagnosticsOptions{}); err != nil || rep.Files[0].Verdict != Fresh {
				t.Fatalf("diagnostics as text: %+v %v", rep, err)
			}
			if err := os.WriteFile(bad, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := documentSymbols(t.Context(), e.m, bad)
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, c.is) || fe.Path != bad {
				t.Fatalf("symbols: %v, want a *FileError for %s wrapping %v", err, bad, c.is)
			}
			for _, w := range append([]string{bad}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("symbols error %q lacks %q", err, w)
				}
			}
			rep, err := e.m.Diagnostics(t.Context(), []string{bad, e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Failed || !strings.Contains(fd.Detail, bad) || !strings.Contains(fd.Detail, c.want[0]) {
				t.Errorf("diagnostics of the bad file: %s %q, want failed naming it and %q", fd.Verdict, fd.Detail, c.want[0])
			}
			if fd := rep.Files[1]; fd.Verdict != Fresh || !strings.Contains(string(fd.Diagnostics), "ERROR") {
				t.Errorf("diagnostics of the good file: %s %s", fd.Verdict, fd.Diagnostics)
			}
			e.wantHover()
			if n := e.status().OpenDocuments; n != 1 {
				t.Errorf("open documents %d, want 1 (the good file)", n)
			}
			e.close()
			got := didTraffic(t, e.messages())
			want := []string{"didOpen bad.fk 1", "didClose bad.fk", "didOpen a.fk 1"}
			if !slices.Equal(got, want) {
				t.Fatalf("document traffic %q, want %q", got, want)
			}
		})
	}
}

// TestMaxFileSizeOption: zero takes the default, negative lifts the cap.
func TestMaxFileSizeOption(t *testing.T) {
	for _, c := range []struct {
		in, want int64
	}{{0, DefaultMaxFileSize}, {-1, -1}, {1 << 30, 1 << 30}} {
		m, err := NewManager(Options{MaxFileSize: c.in, Servers: []ServerConfig{}})
		if err != nil {
			t.Fatal(err)
		}
		if m.opts.MaxFileSize != c.want {
			t.Errorf("MaxFileSize %d → %d, want %d", c.in, m.opts.MaxFileSize, c.want)
		}
	}
}

// TestFaultVanishedDocument: a file the server has open is deleted on disk
// with nobody telling the Manager. The next sync notices: didClose, a
// Deleted event where the server registered watchers (only there), and
// the documents still open are sent again with a new version, so their
// diagnostics are the server's word after the deletion (not its earlier
// publish for the same version). A request about the deleted file says
// "no such file" and names it. File watching is off: this is the check
// that stands when it is (or when the deleted file's folder is past the
// watch limit); TestShellChangesToServer covers the watched case.
func TestFaultVanishedDocument(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakelsp.Script
		want   []string
	}{
		{"watchers registered", watcherScript,
			[]string{"didOpen a.fk 1", "didOpen gone.fk 1", "didClose gone.fk", "watched gone.fk:3", "didChange a.fk 2"}},
		{"no watchers", fakelsp.Script{},
			[]string{"didOpen a.fk 1", "didOpen gone.fk 1", "didClose gone.fk", "didChange a.fk 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, c.script, noWatch)
			// A request is answered only after the fake's registrations
			// were: diagnostics alone send no request.
			e.wantHover()
			gone := filepath.Join(e.root, "gone.fk")
			if err := os.WriteFile(gone, []byte("package fake\nfunc Gone() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{e.file, gone} { // one after the other: the order of didOpens is checked
				if rep, err := e.m.Diagnostics(t.Context(), []string{f}, DiagnosticsOptions{}); err != nil || rep.Files[0].Version != 1 {
					t.Fatalf("diagnostics before: %+v %v", rep, err)
				}
			}
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Fresh || fd.Version != 2 {
				t.Fatalf("diagnostics after the delete: %s version %d, want fresh for version 2", fd.Verdict, fd.Version)
			}
			_, err = documentSymbols(t.Context(), e.m, gone)
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), gone) || !strings.Contains(err.Error(), "no such file") {
				t.Fatalf("symbols of the deleted file: %v", err)
			}
			rep, _ = e.m.Diagnostics(t.Context(), []string{gone}, DiagnosticsOptions{})
			if fd := rep.Files[0]; fd.Verdict != Failed || !strings.Contains(fd.Detail, "no such file") {
				t.Fatalf("diagnostics of the deleted file: %s %q", fd.Verdict, fd.Detail)
			}
			e.wantHover() // unchanged since version 2: nothing more sent
			if n := e.status().OpenDocuments; n != 1 {
				t.Errorf("open documents %d, want 1", n)
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.want) {
				t.Fatalf("document traffic %q, want %q", got, c.want)
			}
		})
	}
}

// TestFaultFileChangedWatchers: FileChanged sends didChangeWatchedFiles
// only to a server that registered watchers, closes a deleted document,
// resyncs a changed open one, and resends the other open ones before
// their next request (not the changed one again: it was just sent). The
// changed open document gets no watched event: its didChange tells the
// server, which owns no say over an open document's content (LSP). The
// files' creation by the test, seen by the file watcher, is told before
// the first diagnostics; FileChanged's own paths are told with what the
// watcher saw since, once each.
func TestFaultFileChangedWatchers(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakelsp.Script
		want   []string
	}{
		{"watchers registered", watcherScript,
			[]string{"didOpen a.fk 1", "watched b.fk:1", "watched c.fk:1", "watched d.fk:1", "didOpen b.fk 1", "didOpen c.fk 1", "didClose b.fk", "watched b.fk:3", "watched d.fk:2", "didChange c.fk 2", "didChange a.fk 2"}},
		{"no watchers", fakelsp.Script{},
			[]string{"didOpen a.fk 1", "didOpen b.fk 1", "didOpen c.fk 1", "didClose b.fk", "didChange c.fk 2", "didChange a.fk 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, c.script, nil)
			e.wantHover() // registrations are in (see TestFaultVanishedDocument)
			b, cf, df := filepath.Join(e.root, "b.fk"), filepath.Join(e.root, "c.fk"), filepath.Join(e.root, "d.fk")
			for _, f := range []string{b, cf, df} {
				if err := os.WriteFile(f, []byte("package fake\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{b, cf} {
				if _, err := e.m.Diagnostics(t.Context(), []string{f}, DiagnosticsOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Remove(b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cf, []byte("package fake\nfunc C() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := e.m.FileChanged(t.Context(), b, cf, df); err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				file    string
				version int32
			}{{e.file, 2}, {cf, 2}} {
				rep, err := e.m.Diagnostics(t.Context(), []string{w.file}, DiagnosticsOptions{})
				if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != w.version {
					t.Fatalf("diagnostics of %s after FileChanged: %+v %v, want fresh version %d", filepath.Base(w.file), rep.Files[0], err, w.version)
				}
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.want) {
				t.Fatalf("document traffic %q, want %q", got, c.want)
			}
		})
	}
}

// FuzzBinaryAt: -1 exactly for NUL-free UTF-8; otherwise everything
// before the offset is text and the offset starts a NUL or a bad
// sequence.
func FuzzBinaryAt(f *testing.F) {
	for _, s := range []string{"", "package main\n", "a\x00b", "caf\xe9", "日本\xe6\x97", "🎉"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		off := binaryAt(b)
		text := bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
		if (off < 0) != text {
			t.Fatalf("binaryAt(%q) = %d, text %v", b, off, text)
		}
		if off < 0 {
			return
		}
		if bytes.IndexByte(b[:off], 0) >= 0 || !utf8.Valid(b[:off]) {
			t.Fatalf("binaryAt(%q) = %d, but the prefix is not clean text", b, off)
		}
		if r, n := utf8.DecodeRune(b[off:]); r != 0 && !(r == utf8.RuneError && n == 1) {
			t.Fatalf("binaryAt(%q) = %d, which starts %q", b, off, r)
		}
	})
}

// TestFaultVanishedFolderStamps: the check for deleted documents stats
// their folders and re-reads a folder only when its mtime moved (or was
// too recent to trust). With the workspace folder's mtime an hour old, a
// deletion (which moves it) is noticed; a deletion whose folder mtime is
// put back is not noticed by the folder check (proof that the per-file
// stats were spared), yet a request about the deleted file itself still
// says "no such file" and closes it on the server. File watching is off,
// as in TestFaultVanishedDocument.
func TestFaultVanishedFolderStamps(t *testing.T) {
	for _, c := range []struct {
		name     string
		restore  bool
		version  int32
		traffic  []string
		fileOpen int
	}{
		{"folder mtime moved", false, 2,
			[]string{"didOpen a.fk 1", "didOpen gone.fk 1", "didClose gone.fk", "didChange a.fk 2"}, 1},
		{"folder mtime put back", true, 1,
			[]string{"didOpen a.fk 1", "didOpen gone.fk 1", "didClose gone.fk", "didChange a.fk 2"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{}, noWatch)
			gone := filepath.Join(e.root, "gone.fk")
			if err := os.WriteFile(gone, []byte("package fake\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(e.root, old, old); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{e.file, gone, e.file} { // the last sweep records a trusted stamp
				if _, err := e.m.Diagnostics(t.Context(), []string{f}, DiagnosticsOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			if c.restore {
				if err := os.Chtimes(e.root, old, old); err != nil {
					t.Fatal(err)
				}
			}
			rep, _ := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if fd := rep.Files[0]; fd.Verdict != Fresh || fd.Version != c.version {
				t.Fatalf("diagnostics of a.fk after the delete: %s version %d, want fresh version %d", fd.Verdict, fd.Version, c.version)
			}
			if _, err := documentSymbols(t.Context(), e.m, gone); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("symbols of the deleted file: %v", err)
			}
			e.wantHover()
			if n := e.status().OpenDocuments; n != c.fileOpen {
				t.Errorf("open documents %d, want %d", n, c.fileOpen)
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.traffic) {
				t.Fatalf("document traffic %q, want %q", got, c.traffic)
			}
		})
	}
}

// TestFaultVanishedFolder: a whole folder removed (rm -r) takes its open
// documents with it; the folder's failed stat makes them checked (file
// watching off, as in TestFaultVanishedDocument).
func TestFaultVanishedFolder(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, noWatch)
	sub := filepath.Join(e.root, "sub")
	x := filepath.Join(sub, "x.fk")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(x, []byte("package fake\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{e.file, x} {
		if _, err := e.m.Diagnostics(t.Context(), []string{f}, DiagnosticsOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	e.close()
	want := []string{"didOpen a.fk 1", "didOpen x.fk 1", "didClose x.fk", "didChange a.fk 2"}
	if got := didTraffic(t, e.messages()); !slices.Equal(got, want) {
		t.Fatalf("document traffic %q, want %q", got, want)
	}
}
