package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypeScriptLibVar: ${typescriptLib} in initializationOptions becomes
// the project's node_modules/typescript/lib when it has one, else the one
// beside the server's real program (an npm .bin symlink followed up to the
// node_modules holding typescript), and a server with neither fails to
// start saying what to install. astro-ls refuses initialize without it.
func TestTypeScriptLibVar(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("install/node_modules/@astrojs/language-server/bin/nodeServer.js")
	mk("install/node_modules/typescript/lib/typescript.js")
	bin := filepath.Join(base, "install/node_modules/.bin/astro-ls")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@astrojs/language-server/bin/nodeServer.js", bin); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(base, "own")
	mk("own/node_modules/typescript/lib/typescript.js")
	lone := mk("lone/bin/astro-ls")
	cfg := ServerConfig{Name: "astro-ls", InitializationOptions: json.RawMessage(`{"typescript":{"tsdk":"` + TypeScriptLibVar + `"}}`)}

	for _, tc := range []struct {
		name, root, command, want, wantErr string
	}{
		{"the project's own", own, bin, filepath.Join(own, "node_modules/typescript/lib"), ""},
		{"beside the server", filepath.Join(base, "empty"), bin, filepath.Join(base, "install/node_modules/typescript/lib"), ""},
		{"none", filepath.Join(base, "empty"), lone, "", "npm install -g typescript"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cfg.withTypeScriptLib(tc.root, tc.command)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var o struct {
				TypeScript struct {
					TSDK string `json:"tsdk"`
				} `json:"typescript"`
			}
			if err := decode(got.InitializationOptions, &o); err != nil {
				t.Fatal(err)
			}
			if o.TypeScript.TSDK != tc.want {
				t.Errorf("tsdk %q, want %q", o.TypeScript.TSDK, tc.want)
			}
		})
	}
}
