package regfile

import (
	"errors"
	"testing"
)

// TestReadGrowing: the cap holds for a file that has more to read than its
// stat said (it grew since): /proc files stat as empty regular files, and
// the read stops one byte past the cap and is refused.
func TestReadGrowing(t *testing.T) {
	const path = "/proc/self/maps"
	b, fi, err := Read(path, 16)
	var se *SizeError
	if !errors.As(err, &se) || !errors.Is(err, ErrTooLarge) || b != nil {
		t.Fatalf("Read(%s, 16) = %q, %v; want a *SizeError", path, b, err)
	}
	if fi.Size() != 0 || se.Size != 17 || se.Limit != 16 {
		t.Errorf("stat size %d, error %+v; want a stat of 0 and 17 bytes seen over the cap of 16", fi.Size(), se)
	}
	if b, _, err := Read(path, -1); err != nil || len(b) <= 16 {
		t.Errorf("Read(%s, no cap) = %d bytes, %v", path, len(b), err)
	}
}
