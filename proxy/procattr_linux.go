package proxy

import "syscall"

// childProcAttr puts a child in its own process group, so it is ended as
// a group, and has the kernel kill it should acp-lsp die without ending
// it (SIGKILL from an impatient editor): its own group would otherwise
// keep the agent running, orphaned. The signal follows the thread that
// started the child; Go ends no thread but one locked by a goroutine
// that exits, and acp-lsp locks none.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
