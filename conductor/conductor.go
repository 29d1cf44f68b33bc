package conductor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// Proxy is one position of a chain: an external proxy command or an
// in-process component (exactly one of the two is set).
type Proxy struct {
	Command []string
	Stage   proxy.Stage
}

// Options configure Run.
type Options struct {
	// Agent is the agent's command line. Empty runs the chain in proxy
	// mode: the client and the successor are both reached through the
	// external conductor on In/Out.
	Agent []string
	// Proxies sit between the client and the agent, client side first.
	Proxies []Proxy
	// Family is used toward external proxies (default FamilyPlain).
	Family Family
	// In and Out are the client side (the editor, or the external
	// conductor in proxy mode). Run closes In when it ends, so a blocked
	// read returns; pass a reader whose Close unblocks reads.
	In  io.ReadCloser
	Out io.Writer
	// Stderr receives the children's stderr.
	Stderr io.Writer
	// Logger receives logs; Trace, when set, every message of every hop.
	Logger *slog.Logger
	Trace  io.Writer
	// MaxLine caps one message (proxy.DefaultMaxLine when zero).
	MaxLine int
	// Grace is how long a child gets after its stdin closed, and again
	// after SIGTERM (default 1.5s, so a group is gone within 5s).
	Grace time.Duration
	// Drain bounds how long the agent's output is still delivered after
	// the client's input ended (proxy.Config.Drain; default 1s). The chain
	// normally ends earlier, when the agent has exited and its output is
	// delivered through every hop.
	Drain time.Duration
	// Env and Dir of the children (nil Env inherits).
	Env []string
	Dir string
}

// Run runs client ⇄ stages ⇄ agent until the client disconnects (nil),
// the agent ends (an error wrapping proxy.ErrAgentGone, after the client's
// pending requests were answered with an error saying why), or ctx ends.
// Every child process group is ended before it returns.
func Run(ctx context.Context, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Family == "" {
		opts.Family = FamilyPlain
	}
	if opts.Grace <= 0 {
		opts.Grace = 1500 * time.Millisecond
	}
	var stops []func()
	defer func() {
		// Last started, first stopped: the agent, then the proxies.
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}()
	var comps []proxy.Stage
	for i, st := range opts.Proxies {
		if st.Stage != nil {
			comps = append(comps, st.Stage)
			continue
		}
		name := "proxy " + strconv.Itoa(i+1)
		x := NewExternal(name, st.Command, opts.Family, proxy.ProcessOptions{
			Dir: opts.Dir, Env: opts.Env, Stderr: opts.Stderr,
			Stream: proxy.StreamOptions{MaxLine: opts.MaxLine, Logger: log},
		})
		if err := x.Start(); err != nil {
			opts.In.Close()
			return err
		}
		stops = append(stops, func() { x.Stop(opts.Grace) })
		comps = append(comps, x)
	}
	out, restore := output(opts.Out)
	defer restore()
	opts.Out = out
	var client, agent proxy.Endpoint
	if len(opts.Agent) == 0 {
		pc := NewProxyConn(opts.In, opts.Out, log, opts.MaxLine)
		client, agent = pc.Client(), pc.Successor()
		defer pc.Wait()
	} else {
		client = proxy.NewStream(opts.In, opts.Out, proxy.StreamOptions{
			Name: "client", MaxLine: opts.MaxLine, ReplyParseErrors: true, Logger: log,
		})
		p, err := proxy.StartProcess(opts.Agent, proxy.ProcessOptions{
			Name: "agent", Dir: opts.Dir, Env: opts.Env, Stderr: opts.Stderr,
			Stream: proxy.StreamOptions{MaxLine: opts.MaxLine, Logger: log},
		})
		if err != nil {
			opts.In.Close()
			return err
		}
		log.Debug("agent started", "pid", p.Pid(), "argv", opts.Agent)
		stops = append(stops, func() { p.Stop(opts.Grace) })
		agent = p
	}
	chain := proxy.NewChain(proxy.Config{Client: client, Agent: agent, Stages: comps, Logger: log, Trace: opts.Trace, Drain: opts.Drain})
	err := chain.Run(ctx)
	if errors.Is(err, proxy.ErrAgentGone) {
		return fmt.Errorf("run: %w", err)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
