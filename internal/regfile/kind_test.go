package regfile

import (
	"io/fs"
	"testing"
)

// TestKind: an error for a file that is not regular says what it is.
func TestKind(t *testing.T) {
	for _, tt := range []struct {
		mode fs.FileMode
		want string
	}{
		{fs.ModeDir | 0o755, "a directory"},
		{fs.ModeNamedPipe | 0o644, "a named pipe"},
		{fs.ModeSocket | 0o755, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "a character device"},
		{fs.ModeDevice | 0o660, "a block device"},
		{fs.ModeIrregular, "a special file (?---------)"},
	} {
		if got := kind(tt.mode); got != tt.want {
			t.Errorf("kind(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
