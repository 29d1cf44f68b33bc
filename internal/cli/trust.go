package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/config"
)

// trustCmd records, lists or revokes trust in project configuration files.
type trustCmd struct {
	revoke bool
	list   bool
	// read reads the project file; nil is config.ReadFile. A test puts a
	// concurrent writer behind it.
	read func(path string) ([]byte, error)
}

func (*trustCmd) Name() string { return "trust" }
func (*trustCmd) Synopsis() string {
	return "trust a workspace's .acp-lsp.toml so its server commands and other settings apply"
}
func (*trustCmd) Usage() string {
	return `Usage: acp-lsp trust [-revoke] [DIR]
       acp-lsp trust -list

A project file (DIR/.acp-lsp.toml, DIR defaults to the current folder) can
name commands for acp-lsp to run, so until you trust it only its harmless
settings apply (diagnostics.* and tool.output_budget, tool.page_size,
tool.structured_content) and acp-lsp warns that the rest is ignored. 'acp-lsp trust' checks the file,
then records its absolute path in DIR and the sha256 of its content in
$XDG_STATE_HOME/acp-lsp/trusted.json (default ~/.local/state/acp-lsp). Any
later change to the file makes it untrusted again until you trust it anew,
and trust stays with DIR: another folder whose .acp-lsp.toml is a symlink
to this one is not trusted until you trust it there.
It prints the settings that now apply from the file.

Examples:
  # review, then trust the project file of the current folder:
  cat .acp-lsp.toml && acp-lsp trust

  # forget a folder's file:
  acp-lsp trust -revoke ~/src/project

  # list trusted files:
  acp-lsp trust -list
`
}

func (c *trustCmd) SetFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.revoke, "revoke", false, "forget the file instead of trusting it")
	fs.BoolVar(&c.list, "list", false, "list trusted files and whether they are unchanged")
}

func (c *trustCmd) Run(_ context.Context, io Stdio, args []string) error {
	store := config.NewTrustStore(config.StateDir(nil))
	if c.list {
		if len(args) > 0 || c.revoke {
			return UsageErrorf("-list takes no folder and no -revoke")
		}
		return listTrusted(io, store)
	}
	abs, err := folderArg(args)
	if err != nil {
		return err
	}
	file := filepath.Join(abs, config.ProjectFileName)
	if c.revoke {
		ok, err := store.Revoke(file)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(io.Out, "%s was not trusted\n", file)
			return nil
		}
		fmt.Fprintf(io.Out, "no longer trusted: %s\n", file)
		return nil
	}
	read := c.read
	if read == nil {
		read = config.ReadFile
	}
	data, err := read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return UsageErrorf("no %s in %s", config.ProjectFileName, abs)
	}
	if err != nil {
		return err
	}
	// A broken file is refused so that trust never covers something the
	// loader rejects.
	if err := config.Validate(file, data); err != nil {
		return UsageErrorf("not trusted, fix the file first:\n%w", err)
	}
	// The bytes validated are the ones recorded and shown: the file is
	// not read again, as a concurrent writer may have replaced it.
	sum, err := store.Trust(file, data, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "trusted %s (sha256 %s)\n", file, sum[:16])
	// Show what the file now sets; a broken user file or environment does
	// not undo the trust just recorded.
	loaded, err := config.Load(config.Options{Workspace: abs, ProjectContent: data})
	if err != nil {
		fmt.Fprintf(io.Err, "acp-lsp trust: trusted, but the configuration does not load: %v\n", err)
		return nil
	}
	var lines []string
	for _, line := range strings.Split(loaded.Format(), "\n") {
		if strings.HasPrefix(line, "[") || strings.Contains(line, "# "+file) {
			lines = append(lines, line)
		}
	}
	var out []string
	for i, line := range lines {
		// Keep a section header only when a value of it follows.
		if strings.HasPrefix(line, "[") && (i+1 == len(lines) || strings.HasPrefix(lines[i+1], "[")) {
			continue
		}
		out = append(out, line)
	}
	if len(out) > 0 {
		fmt.Fprintf(io.Out, "it sets:\n  %s\n", strings.Join(out, "\n  "))
	}
	return nil
}

func listTrusted(io Stdio, store *config.TrustStore) error {
	files, err := store.List()
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintf(io.Out, "no trusted project files (%s)\n", store.Path())
		return nil
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		state := "missing"
		if data, err := config.ReadFile(n); err == nil {
			st, err := store.Check(n, data)
			if err != nil {
				return err
			}
			state = st.String()
		}
		fmt.Fprintf(io.Out, "%s\t%s\ttrusted %s\n", n, state, files[n].TrustedAt.Format(time.RFC3339))
	}
	return nil
}
