package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// dataEnv is a registry entry that wants a data folder (as jdtls's -data
// and ccls's cache.directory), played by the fake, and the record of
// what it was started with.
type dataEnv struct {
	cfg     ServerConfig
	record  string
	dataDir string
}

func newDataEnv(t *testing.T, cfg ServerConfig) *dataEnv {
	t.Helper()
	e := &dataEnv{record: filepath.Join(t.TempDir(), "record.jsonl"), dataDir: t.TempDir()}
	script := filepath.Join(t.TempDir(), "script.json")
	if err := fakelsp.WriteScript(script, fakelsp.Script{}); err != nil {
		t.Fatal(err)
	}
	cfg.Command = fakeBinary(t)
	cfg.Args = append(cfg.Args, fakelsp.Args(script, e.record)...)
	e.cfg = cfg
	return e
}

func (e *dataEnv) manager(t *testing.T, roots ...string) *Manager {
	t.Helper()
	m, err := NewManager(Options{Roots: roots, Servers: []ServerConfig{e.cfg}, DataDir: e.dataDir,
		Timeouts: Timeouts{Request: Duration(time.Minute), Shutdown: Duration(300 * time.Millisecond), Idle: Duration(-1)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(t.Context()) })
	return m
}

// folders returns the -data folder of every start in the record and the
// cache.directory each sent in initialize, in order.
func (e *dataEnv) folders(t *testing.T) (args, inits []string) {
	t.Helper()
	msgs, err := fakelsp.ReadRecord(e.record)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		switch {
		case m.Kind == "start":
			var st fakelsp.Start
			if err := decode(m.Params, &st); err != nil {
				t.Fatal(err)
			}
			i := slices.Index(st.Args, "-data")
			if i < 0 || i+1 >= len(st.Args) {
				t.Fatalf("start args %q lack -data DIR", st.Args)
			}
			args = append(args, st.Args[i+1])
		case m.Method == "initialize":
			var p struct {
				InitializationOptions struct {
					Cache struct {
						Directory string `json:"directory"`
					} `json:"cache"`
				} `json:"initializationOptions"`
			}
			if err := decode(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			inits = append(inits, p.InitializationOptions.Cache.Directory)
		}
	}
	return args, inits
}

// TestDataDirPerRootAndInstance: a server whose entry names DataDirVar
// gets a folder of its own under Options.DataDir, in its arguments and its
// initialization options alike: one per root, so two roots get two, and
// one per running instance, so a second Manager on the same root (another
// acp-lsp process, another server host) never shares the first one's
// folder while the first runs; once it has ended, its folder (and the
// index in it) is used again.
func TestDataDirPerRootAndInstance(t *testing.T) {
	ws := disk.Tree(t, map[string]string{
		"a/fake.root": "", "a/x.fk": fakeText,
		"b/fake.root": "", "b/y.fk": fakeText,
	})
	e := newDataEnv(t, ServerConfig{Name: "datafake", Args: []string{"-data", DataDirVar},
		InitializationOptions: json.RawMessage(`{"cache":{"directory":"` + DataDirVar + `"}}`),
		Extensions:            []string{"fk"}, Language: "fake", RootMarkers: []string{"fake.root"}})
	first := e.manager(t, ws)
	for _, f := range []string{"a/x.fk", "b/y.fk"} {
		if _, err := documentSymbols(t.Context(), first, filepath.Join(ws, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	second := e.manager(t, ws)
	if _, err := documentSymbols(t.Context(), second, filepath.Join(ws, "a/x.fk")); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	third := e.manager(t, ws)
	if _, err := documentSymbols(t.Context(), third, filepath.Join(ws, "a/x.fk")); err != nil {
		t.Fatal(err)
	}
	args, inits := e.folders(t)
	if len(args) != 4 || !slices.Equal(args, inits) {
		t.Fatalf("-data folders %q, initializationOptions folders %q: want 4 starts, the same folder in both", args, inits)
	}
	rootA, rootB, secondA, thirdA := args[0], args[1], args[2], args[3]
	for _, d := range args {
		if !strings.HasPrefix(d, e.dataDir+string(filepath.Separator)) || strings.Contains(d, DataDirVar) {
			t.Errorf("folder %s: want one under %s", d, e.dataDir)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Errorf("folder %s does not exist: %v", d, err)
		}
	}
	if rootA == rootB {
		t.Errorf("roots a and b share %s", rootA)
	}
	if secondA == rootA {
		t.Errorf("a second instance on root a shares the running first one's %s", rootA)
	}
	if thirdA != rootA {
		t.Errorf("root a after the first instance ended: %s, want its folder %s again", thirdA, rootA)
	}
}
