package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/acp-lsp/acp-lsp/conductor"
)

// stageList collects --proxy and --lsp in command-line order.
type stageList struct {
	stages []stageSpec
}

type stageSpec struct {
	command []string
	lsp     bool
}

type proxyFlag struct{ l *stageList }

func (p proxyFlag) String() string { return "" }
func (p proxyFlag) Set(s string) error {
	argv, err := splitCommand(s)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return fmt.Errorf("empty proxy command")
	}
	p.l.stages = append(p.l.stages, stageSpec{command: argv})
	return nil
}

type lspFlag struct{ l *stageList }

func (l lspFlag) String() string   { return "" }
func (l lspFlag) IsBoolFlag() bool { return true }
func (l lspFlag) Set(s string) error {
	if s != "true" {
		return fmt.Errorf("-lsp takes no value")
	}
	l.l.stages = append(l.l.stages, stageSpec{lsp: true})
	return nil
}

// conductorCmd is conductor mode.
type conductorCmd struct {
	f      chainFlags
	stages stageList
	family string
}

func (*conductorCmd) Name() string { return "conductor" }
func (*conductorCmd) Synopsis() string {
	return "chain external ACP proxies and acp-lsp's components in front of an agent"
}
func (*conductorCmd) Usage() string {
	return `Usage: acp-lsp conductor [flags] [--proxy 'CMD ARGS'...] [--lsp] [-- AGENT [ARGS...]]

Conductor mode. Chains external ACP proxy processes (each speaking the
proxy-chain protocol, each in its own process group) and acp-lsp's
in-process components in the order given, in front of AGENT. Without
AGENT, the conductor itself runs in proxy mode inside an outer conductor
(nesting): the chain's successor is reached through the outer conductor.

--proxy takes one command line, split on spaces with '…' and "…" quoting.
--lsp places acp-lsp's LSP stack (the adapter, then the lsp tool; see
'acp-lsp run -h') at its position among the proxies, once. The
configuration is read as in wrapper mode.

Examples:
  acp-lsp conductor --proxy 'acp-lsp proxy' --proxy 'my-proxy --flag' -- opencode acp
  acp-lsp conductor --lsp -- opencode acp
  outer-conductor "acp-lsp conductor --proxy 'p1' --proxy 'p2'" AGENT
`
}

func (c *conductorCmd) SetFlags(fs *flag.FlagSet) {
	c.f.set(fs)
	fs.Var(proxyFlag{&c.stages}, "proxy", "add an external proxy `COMMAND` (repeatable, in order)")
	fs.Var(lspFlag{&c.stages}, "lsp", "add acp-lsp's LSP stack (adapter, then the lsp tool) at this position")
	fs.StringVar(&c.family, "family", string(conductor.FamilyPlain), "proxy-chain method family toward external proxies: proxy or _proxy")
}

func (c *conductorCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	fam, err := conductor.ParseFamily(c.family)
	if err != nil {
		return UsageErrorf("-family: %v", err)
	}
	lsps := 0
	for _, s := range c.stages.stages {
		if s.lsp {
			lsps++
		}
	}
	if lsps > 1 {
		return UsageErrorf("-lsp given %d times: one chain has one LSP stack", lsps)
	}
	s, err := c.f.setup(stdio)
	if err != nil {
		return err
	}
	defer s.done()
	var stages []conductor.Proxy
	for _, spec := range c.stages.stages {
		if !spec.lsp {
			stages = append(stages, conductor.Proxy{Command: spec.command})
			continue
		}
		lspStages, closeStack, err := s.lspStages()
		if err != nil {
			return err
		}
		defer closeStack()
		stages = append(stages, lspStages...)
	}
	s.opts.Agent = args
	s.opts.Proxies = stages
	s.opts.Family = fam
	return runChain(ctx, s.opts)
}

// splitCommand splits a command line on blanks, honoring '…' and "…"
// quotes and backslash escapes outside single quotes.
func splitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, inArg = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("unterminated quote or escape in %q", s)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}
