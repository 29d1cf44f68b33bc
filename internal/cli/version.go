package cli

import (
	"context"
	"flag"
	"fmt"
)

// versionCmd prints the module version.
type versionCmd struct{}

func (*versionCmd) Name() string     { return "version" }
func (*versionCmd) Synopsis() string { return "print the acp-lsp version" }
func (*versionCmd) Usage() string {
	return `Usage: acp-lsp version

Prints the module version acp-lsp was built from, as 'acp-lsp --version' does.
`
}
func (*versionCmd) SetFlags(*flag.FlagSet) {}
func (*versionCmd) Run(_ context.Context, io Stdio, _ []string) error {
	fmt.Fprintf(io.Out, "acp-lsp %s\n", Version())
	return nil
}
