package component

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/editorconfig"
)

func TestGuessIndent(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		style      string
		step       int
	}{
		{"empty", "", "", 0},
		{"no indentation", "a\nb\n\nc\n", "", 0},
		{"blank lines only", "\n  \n\t\n", "", 0},
		{"tabs", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", "tab", 0},
		{"2 spaces", "function f() {\n  if (x) {\n    y();\n  }\n}\n", "space", 2},
		{"4 spaces", "def f():\n    if x:\n        y()\n    return\n", "space", 4},
		{"2 spaces across blank lines", "a {\n\n  b {\n\n    c\n  }\n}\n", "space", 2},
		{"crlf", "a {\r\n  b {\r\n    c\r\n  }\r\n}\r\n", "space", 2},
		{"3 spaces", "a\n   b\n      c\n   d\n", "space", 3},
		{"mixed, more tabs", "a\n\tb\n\tc\n\td\n  e\n", "tab", 0},
		{"mixed, more spaces", "a\n  b\n    c\n  d\n\te\n", "space", 2},
		{"mixed, even", "a\n\tb\nc\n  d\n", "", 2},
		{"tab then spaces resets the step", "a\n\t  b\n      c\n", "", 0},
		{"jsdoc stars are no indentation", "/**\n * doc\n * more\n */\nf {\n\tx\n}\n", "tab", 0},
		{"continuation wider than 8 ignored", "a\n                b\n  c\n    d\n", "space", 2},
		{"tie takes the smaller step", "a\n  b\nc\n    d\n", "space", 2},
		{"dedents say nothing", "        a\n    b\nc\n", "space", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			style, step := guessIndent(tc.text)
			if style != tc.style || step != tc.step {
				t.Errorf("got %q %d, want %q %d", style, step, tc.style, tc.step)
			}
		})
	}
}

func TestFormatOptions(t *testing.T) {
	const twoSpaces = "a {\n  b {\n    c\n  }\n}\n"
	const tabs = "a {\n\tb\n}\n"
	for _, tc := range []struct {
		name, editorconfig, text string
		want                     map[string]any
		settled                  bool // the editorconfig says it all: the text is not read
	}{
		{"no evidence: 4 spaces", "", "a\nb\n", map[string]any{"tabSize": 4, "insertSpaces": true}, false},
		{"inferred 2 spaces", "", twoSpaces, map[string]any{"tabSize": 2, "insertSpaces": true}, false},
		{"inferred tabs", "", tabs, map[string]any{"tabSize": 4, "insertSpaces": false}, false},
		{"editorconfig beats the text", "[*.ts]\nindent_style = space\nindent_size = 4\n", twoSpaces, map[string]any{"tabSize": 4, "insertSpaces": true}, true},
		{"editorconfig tabs with a width", "[*]\nindent_style = tab\ntab_width = 8\n", twoSpaces, map[string]any{"tabSize": 8, "insertSpaces": false}, true},
		{"editorconfig tabs, indent_size as width", "[*]\nindent_style = tab\nindent_size = 3\n", "", map[string]any{"tabSize": 3, "insertSpaces": false}, true},
		{"editorconfig size, style from the text", "[*]\nindent_size = 3\n", tabs, map[string]any{"tabSize": 3, "insertSpaces": false}, false},
		{"editorconfig size and tab width, tabs in the text", "[*]\nindent_size = 2\ntab_width = 8\n", tabs, map[string]any{"tabSize": 8, "insertSpaces": false}, false},
		{"editorconfig style, size from the text", "[*]\nindent_style = space\n", twoSpaces, map[string]any{"tabSize": 2, "insertSpaces": true}, false},
		{"editorconfig spaces, tab_width when the text says nothing", "[*]\nindent_style = space\ntab_width = 6\n", "", map[string]any{"tabSize": 6, "insertSpaces": true}, false},
		{"editorconfig for other files", "[*.go]\nindent_style = tab\n", twoSpaces, map[string]any{"tabSize": 2, "insertSpaces": true}, false},
		{"whitespace and newline options", "[*]\ntrim_trailing_whitespace = true\ninsert_final_newline = false\n", twoSpaces,
			map[string]any{"tabSize": 2, "insertSpaces": true, "trimTrailingWhitespace": true, "insertFinalNewline": false}, false},
		{"unset", "[*]\nindent_size = 8\n[*.ts]\nindent_size = unset\n", twoSpaces, map[string]any{"tabSize": 2, "insertSpaces": true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			ec := "root = true\n" + tc.editorconfig
			if err := os.WriteFile(filepath.Join(root, ".editorconfig"), []byte(ec), 0o644); err != nil {
				t.Fatal(err)
			}
			props, err := editorconfig.Resolve(filepath.Join(root, "src", "a.ts"))
			if err != nil {
				t.Fatal(err)
			}
			read := false
			got := formatOptions(props, func() string { read = true; return tc.text })
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if tc.settled && read {
				t.Error("read the text though the editorconfig settles it")
			}
		})
	}
}
