package serverhost

import (
	"bytes"
	"testing"
)

// FuzzReadFrame: whatever a peer sends, readFrame returns a frame or an
// error without panicking or allocating past the limit, and a frame it
// returns is written back byte for byte.
func FuzzReadFrame(f *testing.F) {
	for _, m := range []message{
		{kind: kindCall, id: 7, method: mRequest, meta: []byte(`{"path":"/w/a.go","method":"textDocument/hover"}`), raw: []byte(`{"position":{}}`)},
		{kind: kindNotify, method: nDiagnostics, meta: []byte(`{}`)},
		{kind: kindReply, id: 1 << 63},
		{kind: kindError, id: 2, meta: []byte(`{"message":"x","data":{"kind":"outside"}}`)},
	} {
		b, err := appendFrame(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		m, err := readFrame(r)
		if err != nil {
			return
		}
		b, err := appendFrame(nil, m)
		if err != nil {
			t.Fatalf("a frame read cannot be written: %v", err)
		}
		if read := data[:len(data)-r.Len()]; !bytes.Equal(b, read) {
			t.Fatalf("written back %q, read %q", b, read)
		}
	})
}
