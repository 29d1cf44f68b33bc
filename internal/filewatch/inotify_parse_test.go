package filewatch

import "testing"

// FuzzParseInotify: a buffer of any bytes is walked without reading past
// its end.
func FuzzParseInotify(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 'a', '.', 'g', 0})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_ = parseInotify(b, func(wd int32, mask uint32, name string) {
			n += 16 + len(name)
			if n > len(b) {
				t.Fatalf("record past the buffer's end")
			}
		})
	})
}
