package lspext

import "testing"

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"_lsp/hover", "_lsp/hover", true},
		{"lsp/hover", "_lsp/hover", true},
		{"lsp/publishDiagnostics", PublishDiagnostics, true},
		{"_lsp/", "", false},
		{"lsp/", "", false},
		{"_lspx/hover", "", false},
		{"session/new", "", false},
		{"", "", false},
	} {
		got, ok := Canonical(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if !Is("lsp/didSave", DidSave) || Is("lsp/didSave", PublishDiagnostics) {
		t.Error("Is")
	}
	if Bare(Hover) != "lsp/hover" {
		t.Error("Bare")
	}
}
