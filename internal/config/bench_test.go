package config

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDecode measures decoding a typical user file and a large one
// (2,000 server tables) through the loader's core.
func BenchmarkDecode(b *testing.B) {
	typical := `
[log]
level = "debug"
[diagnostics]
include_warnings = true
cache_files = 5000
[servers.gopls]
args = ["-remote=auto"]
settings = { gopls = { staticcheck = true, analyses = { unusedparams = true } } }
[servers.ruff]
command = ["ruff", "server"]
extensions = ["py", "pyi"]
`
	var big strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&big, "[servers.s%d]\ncommand = [\"s%d\"]\nextensions = [\"e%d\"]\nenv = { A = \"1\" }\n\n", i, i, i)
	}
	for _, tc := range []struct{ name, src string }{{"typical", typical}, {"2000servers", big.String()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.src)))
			for b.Loop() {
				cfg := Defaults()
				l := &layer{where: "bench.toml", kind: SourceUser, trusted: true, sources: map[string]Source{}}
				if errs := l.decodeFile([]byte(tc.src), &cfg); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
