package serverhost

import (
	"context"
	"testing"
)

// TestCallAtOnceAfterConnect: a client's first call may be read before
// the host has set up the connection it answers on (every client sends
// its hello at once). Each of many connections here asks the status right
// after connecting; the host must answer every one, with nothing read
// before the connection's setup is complete (the race detector checks
// the setup is ordered before the handler).
func TestCallAtOnceAfterConnect(t *testing.T) {
	dir := hostDir(t)
	id := "atonce0000000000"
	pl := place{dir: dir, id: id}
	ln, err := listen(pl.socket())
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, HostConfig{Listener: ln, Socket: pl.socket(), Identity: id}) }()
	defer func() {
		cancel()
		<-served
	}()
	for range 50 {
		if _, err := Inspect(t.Context(), Config{Dir: dir, Identity: id}); err != nil {
			t.Fatal(err)
		}
	}
}
