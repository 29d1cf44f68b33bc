package component

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// workspaceLocks admits one applying change at a time per workspace: a
// server computes an edit from the files as they are, so a second edit
// computed while the first is being written would be applied to content
// it never saw. Workspaces that overlap (a root inside another session's)
// count as one; changes in other workspaces go on meanwhile. The user's
// permission is asked with no lock held (editLock), so a prompt left
// unanswered holds up nothing but its own call.
type workspaceLocks struct {
	mu sync.Mutex
	// held are the roots held, each with a channel closed when its
	// holder releases it.
	held map[string]chan struct{}
}

// lock waits until no root overlapping one of roots is held, then holds
// them all; release gives them back. It returns ctx's error if ctx ends
// first.
func (l *workspaceLocks) lock(ctx context.Context, roots []string) (release func(), err error) {
	for {
		l.mu.Lock()
		busy := l.overlapping(roots)
		if busy == nil {
			if l.held == nil {
				l.held = map[string]chan struct{}{}
			}
			done := make(chan struct{})
			for _, r := range roots {
				l.held[r] = done
			}
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				for _, r := range roots {
					delete(l.held, r)
				}
				l.mu.Unlock()
				close(done)
			}, nil
		}
		l.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// overlapping returns the release channel of a held root that is one of
// roots, or a folder above or below one, nil when there is none. l.mu is
// held.
func (l *workspaceLocks) overlapping(roots []string) chan struct{} {
	for h, done := range l.held {
		for _, r := range roots {
			if edit.Within(h, r) || edit.Within(r, h) {
				return done
			}
		}
	}
	return nil
}

// editLock is one applying call's hold on its session's workspace: held
// while the server computes the edit and it is validated, let go while the
// user is asked, taken again to check and write it (Plan.Apply refuses
// what changed meanwhile). The zero value (nil session) holds nothing: a
// call that does not apply.
type editLock struct {
	s       *Session
	release func()
}

// acquire takes the lock for the session's roots.
func (l *editLock) acquire(ctx context.Context) error {
	if l == nil || l.s == nil || l.release != nil {
		return nil
	}
	release, err := l.s.c.locks.lock(ctx, append([]string{l.s.Root}, l.s.Extra...))
	if err != nil {
		return fmt.Errorf("waiting for another change to this workspace to finish: %w", err)
	}
	l.release = release
	return nil
}

// unlock lets the lock go, if held.
func (l *editLock) unlock() {
	if l != nil && l.release != nil {
		l.release()
		l.release = nil
	}
}

// askUser asks the editor's permission (Config.AskPermission; true when
// there is none) with lk let go while the user decides, for at most
// Config.PermissionWait: then the request's ctx ends, so the editor's
// prompt is cancelled, and the error says permission was not given in
// time. lk is taken again before it returns true.
func (s *Session) askUser(ctx context.Context, lk *editLock, title, shown string) (bool, error) {
	ask := s.c.cfg.AskPermission
	if ask == nil {
		return true, nil
	}
	lk.unlock()
	wait := s.c.cfg.PermissionWait
	actx, cancel := context.WithTimeout(ctx, wait)
	ok, err := ask(actx, s.acpSessionID(), title, shown)
	cancel()
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded):
		return false, fmt.Errorf("no answer from the user within %s (timeouts.permission): permission was not given, and the request was withdrawn", wait)
	case err != nil:
		return false, fmt.Errorf("asking permission: %w", err)
	case !ok:
		return false, nil
	}
	if err := lk.acquire(ctx); err != nil {
		return false, err
	}
	return true, nil
}
