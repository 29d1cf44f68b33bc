package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/acp-lsp/acp-lsp/internal/config"
)

// configCmd prints the effective configuration and where each value came
// from.
type configCmd struct {
	flags *config.Flags
	keys  bool
}

func (*configCmd) Name() string { return "config" }
func (*configCmd) Synopsis() string {
	return "print the effective configuration and where each value came from"
}
func (*configCmd) Usage() string {
	return `Usage: acp-lsp config [flags] [DIR]

Loads the configuration acp-lsp would use for the workspace DIR (default:
the current folder) and prints it as TOML, each value followed by where it
came from: default, the user file (with its line), the project file
DIR/.acp-lsp.toml (only once trusted, see 'acp-lsp trust'), an ACP_LSP_*
variable or a flag. Errors in any source are printed with the file and
line, and the exit code is 2. docs/configuration.md describes every option.

Examples:
  acp-lsp config
  acp-lsp config -set diagnostics.include_warnings=true ~/src/project
  ACP_LSP_LOG_LEVEL=debug acp-lsp config

  # every option with its environment variable:
  acp-lsp config -keys
`
}

func (c *configCmd) SetFlags(fs *flag.FlagSet) {
	c.flags = config.AddFlags(fs)
	fs.BoolVar(&c.keys, "keys", false, "list every option key and its ACP_LSP_* variable instead")
}

func (c *configCmd) Run(_ context.Context, io Stdio, args []string) error {
	if c.keys {
		if len(args) > 0 {
			return UsageErrorf("-keys takes no folder")
		}
		for _, k := range config.Keys() {
			fmt.Fprintf(io.Out, "%-34s %s\n", k, config.EnvName(k))
		}
		return nil
	}
	abs, err := folderArg(args)
	if err != nil {
		return err
	}
	loaded, err := c.flags.Load(abs)
	if err != nil {
		return UsageErrorf("%w", err)
	}
	for _, w := range loaded.Warnings {
		fmt.Fprintf(io.Err, "acp-lsp config: warning: %s\n", w)
	}
	user := "not found"
	if loaded.UserFileExists {
		user = "loaded"
	}
	fmt.Fprintf(io.Out, "# user file:    %s (%s)\n", loaded.UserFile, user)
	fmt.Fprintf(io.Out, "# project file: %s (%s)\n\n", loaded.ProjectFile, loaded.ProjectTrust)
	fmt.Fprint(io.Out, loaded.Format())
	return nil
}

// folderArg is the absolute path of a command's optional folder argument
// (the working folder when there is none), or a usage error.
func folderArg(args []string) (string, error) {
	if len(args) > 1 {
		return "", UsageErrorf("want at most one folder, got %d arguments", len(args))
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", UsageErrorf("%v", err)
	}
	return abs, nil
}
