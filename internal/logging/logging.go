// Package logging builds the slog logger every part of acp-lsp writes to:
// human-readable lines on stderr, colored only on a terminal. Stdout is never
// used, since it carries ACP or MCP traffic.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lmittmann/tint"
)

// Options configure New.
type Options struct {
	// Level is the minimum level written.
	Level slog.Level
	// Color forces colors on or off; nil means on only for a terminal
	// without NO_COLOR set.
	Color *bool
}

// New returns a logger writing to w.
func New(w io.Writer, opts Options) *slog.Logger {
	color := false
	if opts.Color != nil {
		color = *opts.Color
	} else {
		color = isTerminal(w) && os.Getenv("NO_COLOR") == ""
	}
	return slog.New(tint.NewTextHandler(w, &tint.Options{
		Level:      opts.Level,
		NoColor:    !color,
		TimeFormat: time.TimeOnly + ".000",
	}))
}

// ParseLevel turns a level flag value (debug, info, warn, error) into a
// slog.Level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("parse log level: %q is not one of debug, info, warn, error", s)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
