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

Prints the module version acp-lsp was built from, as 'acp-lsp --version'
does: the tag for 'go install github.com/acp-lsp/acp-lsp/cmd/acp-lsp@v1.2.3',
"(devel)" for a build from a checkout.

Examples:
  acp-lsp version
  acp-lsp --version
`
}
func (*versionCmd) SetFlags(*flag.FlagSet) {}
func (*versionCmd) Run(_ context.Context, io Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	fmt.Fprintf(io.Out, "acp-lsp %s\n", Version())
	return nil
}
