package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/serverhost"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"acp-lsp": func() {
			os.Exit(Main(context.Background(), os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
		},
	})
}

// TestScripts runs the command-line scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "../../testdata/script", Setup: privateHosts, Cmds: map[string]func(*testscript.TestScript, bool, []string){
		"perm":       perm,
		"hostserver": hostServer,
	}})
}

// privateHosts gives each script a server host folder of its own
// ($XDG_RUNTIME_DIR), so the hosts its acp-lsp processes start never meet
// another script's, and stops them when the script ends: none outlives it.
func privateHosts(env *testscript.Env) error {
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		return err
	}
	env.Setenv("XDG_RUNTIME_DIR", dir)
	env.Defer(func() {
		defer os.RemoveAll(dir)
		if err := proctest.StopHosts(dir, 20*time.Second); err != nil {
			env.T().Fatal(err)
		}
	})
	return nil
}

// perm is the script command "perm MODE FILE": FILE's permission bits are
// MODE (octal, as ls -l counts them).
func perm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: perm MODE FILE")
	}
	fi, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	if got := fmt.Sprintf("%04o", fi.Mode().Perm()); (got == args[0]) == neg {
		ts.Fatalf("%s has mode %s", args[1], got)
	}
}

// hostServer is the script command "hostserver DIR": the script's acp-lsp
// (its own copy, so its own build identity) runs a server host in
// $XDG_RUNTIME_DIR/acp-lsp, and a fake language server there for the
// workspace DIR (its .go files), used by this test process as a client
// until the script ends.
func hostServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hostserver DIR")
	}
	var exe string
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, "acp-lsp")); err == nil && fi.Mode().IsRegular() {
			exe = filepath.Join(d, "acp-lsp")
			break
		}
	}
	if exe == "" {
		ts.Fatalf("no acp-lsp on the script's PATH")
	}
	ts.Check(os.MkdirAll(ts.MkAbs("fakelsp-bin"), 0o755))
	bin, err := fakelsp.BuildTo(ts.MkAbs("fakelsp-bin"))
	ts.Check(err)
	script := ts.MkAbs("fakelsp.json")
	ts.Check(fakelsp.WriteScript(script, fakelsp.Script{}))
	servers := []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(script, ts.MkAbs("fakelsp.record")), Extensions: []string{"go"}}}
	dir := filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "acp-lsp")
	ts.Check(os.MkdirAll(dir, 0o700))
	root := ts.MkAbs(args[0])
	cfg := serverhost.Config{Dir: dir, Executable: exe, Idle: -1}
	c, err := serverhost.NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, cfg)
	ts.Check(err)
	ts.Defer(func() {
		c.Close(context.Background())
		// Whatever the script did, no host is left (none: ErrNoHost).
		serverhost.StopHost(context.Background(), serverhost.Config{Dir: dir, Executable: exe})
	})
	if err := c.Prewarm(context.Background(), filepath.Join(root, "a.go")); err != nil {
		logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			ts.Logf("%s:\n%s", l, b)
		}
		ts.Fatalf("prewarm: %v", err)
	}
}
