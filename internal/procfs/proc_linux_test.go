package procfs

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestReadTable reads the real table: this process's own stat, its child
// among its descendants with its command line, and a resident set.
func TestReadTable(t *testing.T) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	self, ok := ReadStat(os.Getpid())
	if !ok || self.Pid != os.Getpid() || self.PPid != os.Getppid() || self.Gone() {
		t.Errorf("ReadStat(self) = %+v, %v; want pid %d, parent %d, alive", self, ok, os.Getpid(), os.Getppid())
	}
	procs, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	kid := cmd.Process.Pid
	if !slices.ContainsFunc(Descendants(procs, os.Getpid()), func(p Stat) bool { return p.Pid == kid }) {
		t.Errorf("child %d not among this process's descendants", kid)
	}
	if args := Cmdline(kid); !slices.Equal(args, []string{"cat"}) {
		t.Errorf("Cmdline(child) = %q, want [cat]", args)
	}
	if RSS(os.Getpid()) <= 0 {
		t.Errorf("RSS(self) = %d, want > 0", RSS(os.Getpid()))
	}
	if _, ok := ReadStat(1 << 30); ok || RSS(1<<30) != 0 || Cmdline(1<<30) != nil {
		t.Errorf("a pid that does not exist was read")
	}
}
