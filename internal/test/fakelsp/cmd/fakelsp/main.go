// Command fakelsp runs internal/test/fakelsp's fake language server on stdin and
// stdout, for tests of process-level faults.
//
// Usage: fakelsp -script FILE [-record FILE] [-data DIR]
//
// The script is a fakelsp.Script in JSON. Every received message is appended
// to the record file as one JSON line, after a first "start" line holding
// the pid and process group. Exit status: 0 after shutdown and exit, 1 after
// exit without shutdown, 2 on a scripted crash (after a crash report and a
// stack dump on stderr), 3 on any other error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

func main() {
	scriptPath := flag.String("script", "", "JSON `file` holding a fakelsp.Script")
	recordPath := flag.String("record", "", "`file` to append received messages to, one JSON line each")
	sleep := flag.Bool("sleep", false, "sleep until killed (the grandchild)")
	// -data is accepted as jdtls accepts it, for tests of the folder a
	// client gives each instance; the start line records it with the
	// other arguments.
	flag.String("data", "", "workspace data `folder` (as jdtls's -data); recorded only")
	flag.Parse()
	if *sleep {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
		<-ch
		return
	}
	os.Exit(run(*scriptPath, *recordPath))
}

func run(scriptPath, recordPath string) int {
	var script fakelsp.Script
	if scriptPath != "" {
		s, err := fakelsp.ReadScript(scriptPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		script = s
	}
	var record *os.File
	if recordPath != "" {
		f, err := os.OpenFile(recordPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakelsp:", err)
			return 3
		}
		defer f.Close()
		record = f
		start, _ := json.Marshal(fakelsp.Start{PID: os.Getpid(), PGID: processGroup(), Args: os.Args[1:]})
		line, _ := json.Marshal(fakelsp.Message{Kind: "start", Params: start})
		f.Write(append(line, '\n'))
	}
	// Signals are always watched: besides their purpose this keeps the Go
	// runtime from calling a server blocked for good (StopReading,
	// RefuseExit) a deadlock and crashing it. SIGTERM exits at once (status
	// 0) rather than through Serve, whose blocking read of stdin a close
	// cannot interrupt.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for range sigs {
			if !script.RefuseExit {
				os.Exit(0)
			}
		}
	}()
	if script.Grandchild {
		child := exec.Command(os.Args[0], "-sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fakelsp: grandchild:", err)
			return 3
		}
		// Not waited for: it must outlive us unless the group is killed.
	}
	s := fakelsp.New(script, nil)
	if record != nil {
		s = fakelsp.New(script, record)
	}
	err := s.Serve(context.Background(), os.Stdin, os.Stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, fakelsp.ErrExitWithoutShutdown):
		return 1
	case errors.Is(err, fakelsp.ErrCrashed):
		// As a real server's crash reads: what failed, then a stack dump
		// whose frames say nothing to a reader of the last line.
		fmt.Fprintf(os.Stderr, "fakelsp: Assertion `scripted' failed: %v\n", err)
		for i := range 3 {
			fmt.Fprintf(os.Stderr, " #%d 0x%016x (fakelsp+0x%x)\n", i, 0x5589eac7d000+i*0x40, 0x1d000+i*0x40)
		}
		return 2
	}
	fmt.Fprintln(os.Stderr, err)
	return 3
}
