//go:build unix

package memory

import (
	"os"
	"testing"
)

// TestResidentByPS runs the real /bin/ps (procps on Linux, macOS' own
// there) as macOS' Resident does: this process and a child are read, a
// pid that does not exist is absent and does not lose the others.
func TestResidentByPS(t *testing.T) {
	self, kid, none := os.Getpid(), startChild(t), 1<<30
	got := residentByPS([]int{self, none, kid})
	if len(got) != 2 || got[self] <= 0 || got[kid] <= 0 {
		t.Errorf("residentByPS(self %d, %d, child %d) = %v, want self and child > 0, nothing else", self, none, kid, got)
	}
}
