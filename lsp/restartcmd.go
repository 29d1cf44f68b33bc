package lsp

import (
	"context"
	"errors"
	"fmt"
)

// Restart stops the process of the server handling path (or, with path
// empty, of every root of the server named name), starts it again with its
// open documents reopened, and returns once the new process is
// initialized. The crash history is cleared, so a server whose circuit
// opened can be retried on request. Why: a model or a user who sees a
// wedged or confused server must be able to recover without restarting the
// whole session.
func (m *Manager) Restart(ctx context.Context, name, path string) error {
	var targets []*server
	if path != "" {
		_, s, err := m.resolve(path)
		if err != nil {
			return fmt.Errorf("restart: %w", err)
		}
		targets = append(targets, s)
	} else {
		m.mu.Lock()
		for _, s := range m.servers {
			if s.cfg.Name == name {
				targets = append(targets, s)
			}
		}
		closed := m.closed
		m.mu.Unlock()
		if closed {
			return ErrClosed
		}
		if len(targets) == 0 {
			return fmt.Errorf("restart: no language server named %q has been used yet (give a file instead)", name)
		}
	}
	var errs []error
	for _, s := range targets {
		errs = append(errs, s.restart(ctx))
	}
	return errors.Join(errs...)
}

func (s *server) restart(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	p := s.cur
	if p != nil {
		s.cur = nil
		s.dead = append(s.dead, p)
		s.reopen = p.openPaths()
	}
	s.crashes = nil
	s.lastErr = nil
	s.state = StateStopped
	s.mu.Unlock()
	if p != nil {
		p.shutdown(ctx)
		s.forget(p)
	}
	if _, err := s.ensure(ctx); err != nil {
		return fmt.Errorf("restart %s: %w", s.cfg.Name, err)
	}
	s.mu.Lock()
	s.restarts++
	s.mu.Unlock()
	return nil
}
