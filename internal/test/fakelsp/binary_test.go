package fakelsp

import (
	"os"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// binary builds cmd/fakelsp once per test binary.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "fakelsp-test")
		if binErr == nil {
			binPath, binErr = BuildTo(binDir)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}
