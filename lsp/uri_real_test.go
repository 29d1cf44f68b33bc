package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealSpecialCharURIs: a workspace whose path holds characters that
// URI encoders write differently ("+", "@", ":", "=", "&" and ",": Go's
// net/url leaves them, typescript-language-server (vscode-uri) and clangd
// percent-encode them, file:///ws/pkg%401.0%2Bx/main.ts) still gets fresh
// diagnostics: a publish is matched by the file its URI names, not by the
// URI's spelling; before, the wait never matched and said "timeout".
func TestRealSpecialCharURIs(t *testing.T) {
	for _, tc := range realCases {
		t.Run(tc.server, func(t *testing.T) {
			peers.Require(t, tc.peer)
			src := copyDir(t, filepath.Join("testdata", tc.dir))
			root := filepath.Join(filepath.Dir(src), "pkg@1.0+x,a=b&c:d")
			if err := os.Rename(src, root); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, tc.file)
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			rep, err := m.Diagnostics(t.Context(), []string{file}, DiagnosticsOptions{Timeout: 90 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			fd := rep.Files[0]
			if fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), tc.wantMsg) {
				t.Fatalf("diagnostics %s (%s) %s, want fresh with %q", fd.Verdict, fd.Detail, fd.Diagnostics, tc.wantMsg)
			}
		})
	}
}
