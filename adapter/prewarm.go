package adapter

import (
	"context"
	"errors"
	"sync"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// prewarm starts the servers root needs (the survey's needed and
// installed ones, each on a file of its own) side by side, and returns
// once each has started (initialize answered) or failed. A failure is
// only logged: the first question that needs the server tries again and
// says why.
func (a *Adapter) prewarm(ctx context.Context, root string) {
	a.prewarmWhere(ctx, root, func(lsp.ServerConfig, string) bool { return true })
}

// prewarmWhere is prewarm of the servers keep accepts (given the server
// and the file it would start on): with the editor's RFD servers, those
// no editor server covers.
func (a *Adapter) prewarmWhere(ctx context.Context, root string, keep func(c lsp.ServerConfig, path string) bool) {
	sv := a.survey(root, true)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		started []string
		errs    []error
	)
	for _, n := range sv.Servers {
		if !n.Needed || !n.Installed {
			continue
		}
		path := firstPath(sv, n.Config.Name)
		if !keep(n.Config, path) {
			a.log.Debug("prewarm: the editor's server covers it", "server", n.Config.Name, "root", root)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := a.mgr.Prewarm(ctx, path)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if !errors.Is(err, lsp.ErrClosed) && ctx.Err() == nil {
					a.log.Warn("prewarm: server did not start", "server", n.Config.Name, "root", root, "err", err)
				}
				errs = append(errs, err)
				return
			}
			a.log.Debug("prewarm: server started", "server", n.Config.Name, "root", root)
			started = append(started, n.Config.Name)
		}()
	}
	wg.Wait()
	if a.cfg.OnPrewarm != nil {
		a.cfg.OnPrewarm(root, started, errors.Join(errs...))
	}
}
