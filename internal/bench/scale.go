package bench

import (
	"context"
	"strings"
)

// ScaleResult holds the scale rows.
type ScaleResult struct {
	Rows []ScaleRow
}

// ScaleRow is one scale measurement.
type ScaleRow struct {
	Name, Result, Check string
	OK                  bool
}

func scaleRows(ctx context.Context, env *Env, w *Workspace, quick bool, logf func(string, ...any)) (*ScaleResult, error) {
	return &ScaleResult{}, nil
}

func (s *ScaleResult) markdown(b *strings.Builder) {}
