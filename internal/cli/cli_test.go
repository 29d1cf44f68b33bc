package cli

import (
	"context"
	"fmt"
	"os"
	"testing"

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
	testscript.Run(t, testscript.Params{Dir: "../../testdata/script", Cmds: map[string]func(*testscript.TestScript, bool, []string){
		"perm": perm,
	}})
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
