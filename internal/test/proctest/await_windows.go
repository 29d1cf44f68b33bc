package proctest

import (
	"time"

	"golang.org/x/sys/windows"
)

// awaitExit waits up to d for pid to end, through a handle on the process
// (no polling), and reports whether it is gone.
func awaitExit(pid int, d time.Duration) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process (anymore)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(d/time.Millisecond))
	return err == nil && ev == windows.WAIT_OBJECT_0
}
