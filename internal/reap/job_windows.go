package reap

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobMsgActiveProcessZero is the job's note, on its completion port, that
// no process is left in it (JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO).
const jobMsgActiveProcessZero = 4

// jobCompletionPort is JOBOBJECT_ASSOCIATE_COMPLETION_PORT.
type jobCompletionPort struct {
	Key  uintptr
	Port windows.Handle
}

// Start starts cmd (made by exec.Command, not yet started; no SysProcAttr
// of its own) in a job object of its own, which holds everything the
// child starts (no breaking away). The child is created suspended and runs
// only once in the job, so nothing it starts escapes. Terminate and Kill
// end the whole job, and so does the child's exit; the job is killed on
// close too, and acp-lsp holds its only handle, so when acp-lsp ends, its
// children's trees end, however it ends.
func Start(cmd *exec.Cmd) (*Child, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.SysProcAttr != nil {
		return nil, errors.New("reap: a command with a SysProcAttr cannot be started in a job")
	}
	j, err := newJob()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
	if err := cmd.Start(); err != nil {
		j.close()
		return nil, err
	}
	pid := cmd.Process.Pid
	if err := j.adopt(pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		j.close()
		return nil, err
	}
	c := &Child{pid: pid, exited: make(chan struct{}), gone: make(chan struct{})}
	c.kill = j.terminate
	c.term = j.terminate // no SIGTERM to ask with
	go func() {
		c.err = waitErr(cmd.Wait())
		close(c.exited)
		// What the child started ends with it.
		j.terminate()
		<-j.empty
		j.close()
		close(c.gone)
	}()
	return c, nil
}

// job is a job object that kills its processes when its last handle
// closes, with a completion port that says when it has none left.
type job struct {
	mu     sync.Mutex
	h      windows.Handle
	port   windows.Handle
	empty  chan struct{} // closed once no process is left in the job
	closed bool          // h and port are closed
}

func newJob() (*job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("reap: create job object: %w", err)
	}
	j := &job{h: h, empty: make(chan struct{})}
	limit := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limit)), uint32(unsafe.Sizeof(limit))); err != nil {
		j.close()
		return nil, fmt.Errorf("reap: set job object limits: %w", err)
	}
	j.port, err = windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		j.close()
		return nil, fmt.Errorf("reap: create completion port: %w", err)
	}
	assoc := jobCompletionPort{Port: j.port}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&assoc)), uint32(unsafe.Sizeof(assoc))); err != nil {
		j.close()
		return nil, fmt.Errorf("reap: associate job object with its completion port: %w", err)
	}
	go j.watch()
	return j, nil
}

// watch closes empty once the job has no process left. The port's other
// notes (a process started, exited) do not matter here.
func (j *job) watch() {
	for {
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped // a pid for most notes, not a pointer
		if err := windows.GetQueuedCompletionStatus(j.port, &msg, &key, &ov, windows.INFINITE); err != nil {
			return // the port closed: the job never had a process
		}
		if msg == jobMsgActiveProcessZero {
			close(j.empty)
			return
		}
	}
}

// adopt puts the suspended process pid in the job, then lets it run.
func (j *job) adopt(pid int) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("reap: open process %d: %w", pid, err)
	}
	err = windows.AssignProcessToJobObject(j.h, p)
	windows.CloseHandle(p)
	if err != nil {
		return fmt.Errorf("reap: assign process %d to its job object: %w", pid, err)
	}
	return resume(pid)
}

// resume resumes the threads of the suspended process pid: one, its main
// thread (os/exec keeps no handle to it).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("reap: list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("reap: open thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("reap: resume thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("reap: resume process %d: no thread found", pid)
	}
	return nil
}

// terminate kills every process in the job (a no-op once it is closed).
func (j *job) terminate() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.closed {
		_ = windows.TerminateJobObject(j.h, 1)
	}
}

// close closes the job (killing what is left in it) and its port.
func (j *job) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return
	}
	j.closed = true
	windows.CloseHandle(j.h)
	if j.port != 0 {
		windows.CloseHandle(j.port)
	}
}
