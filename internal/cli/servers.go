package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/serverhost"
)

// serversCmd lists the language servers of the user's shared server host,
// or stops the host.
type serversCmd struct {
	json bool
	stop bool
}

func (*serversCmd) Name() string { return "servers" }
func (*serversCmd) Synopsis() string {
	return "list the language servers of the shared server host, or stop it"
}
func (*serversCmd) Usage() string {
	return `Usage: acp-lsp servers [-json]
       acp-lsp servers -stop

With local.shared on, every acp-lsp process of yours uses one server host
(acp-lsp host) for its language servers. 'acp-lsp servers' lists each of
them: its root, command, process id, resident memory, the acp-lsp processes
using it, its state and how long it has been idle. It starts nothing; with
no host running it says so.

-stop ends the host and all its servers (an acp-lsp process still running
starts a new host at its next question).
`
}

func (c *serversCmd) SetFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print the host's status as JSON")
	fs.BoolVar(&c.stop, "stop", false, "stop the host and its servers")
}

// hostCallTimeout bounds a call to the host from the command line.
const hostCallTimeout = 30 * time.Second

func (c *serversCmd) Run(ctx context.Context, io Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	if c.stop && c.json {
		return UsageErrorf("-stop and -json do not go together")
	}
	ctx, cancel := context.WithTimeout(ctx, hostCallTimeout)
	defer cancel()
	if c.stop {
		st, err := serverhost.StopHost(ctx, serverhost.Config{})
		if errors.Is(err, serverhost.ErrNoHost) {
			fmt.Fprintln(io.Out, "no server host is running")
			return nil
		}
		if err != nil {
			return fmt.Errorf("servers -stop: %w", err)
		}
		fmt.Fprintf(io.Out, "stopped the server host (pid %d) and its %d server(s)\n", st.PID, len(st.Servers))
		return nil
	}
	st, err := serverhost.Inspect(ctx, serverhost.Config{})
	if errors.Is(err, serverhost.ErrNoHost) {
		if c.json {
			fmt.Fprintln(io.Out, "null")
			return nil
		}
		fmt.Fprintln(io.Out, "no server host is running (local.shared is off, or no acp-lsp process has needed a server lately)")
		return nil
	}
	if err != nil {
		return fmt.Errorf("servers: %w", err)
	}
	if c.json {
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return fmt.Errorf("servers: %w", err)
		}
		fmt.Fprintln(io.Out, string(b))
		return nil
	}
	printServers(io, st, time.Now())
	return nil
}

// printServers writes the host's status as a table.
func printServers(io Stdio, st serverhost.Status, now time.Time) {
	fmt.Fprintf(io.Out, "server host pid %d, %d client(s), %d server(s)\n", st.PID, st.Clients, len(st.Servers))
	if len(st.Servers) == 0 {
		return
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROOT\tSERVER\tPID\tRSS\tCLIENTS\tSTATE\tIDLE\tCOMMAND")
	for _, s := range st.Servers {
		pid, rss, idle := "-", "-", "-"
		if s.PID > 0 {
			pid = strconv.Itoa(s.PID)
		}
		if s.RSSBytes > 0 {
			rss = fmt.Sprintf("%d MiB", s.RSSBytes>>20)
			if s.OverBudget {
				rss += " (over budget)"
			}
		}
		if !s.LastUsed.IsZero() {
			idle = now.Sub(s.LastUsed).Round(time.Second).String()
		}
		clients := make([]string, len(s.Clients))
		for i, c := range s.Clients {
			clients[i] = strconv.Itoa(c)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Root, s.Name, pid, rss, strings.Join(clients, ",")+"", s.State, idle, strings.Join(s.Command, " "))
	}
	tw.Flush()
}
