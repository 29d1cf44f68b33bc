package position

import (
	"strings"
	"testing"
)

// benchText is a 10,000-line source file, one line in eight non-ASCII.
func benchText() string {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		if i%8 == 0 {
			sb.WriteString("\t// 日本語のコメント 😀 with some words after it\n")
		} else {
			sb.WriteString("\tx := computeSomething(alpha, beta, gamma) + 42\n")
		}
	}
	return sb.String()
}

func BenchmarkNewDocument(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		NewDocumentString(text)
	}
}

func BenchmarkConvertNonASCII(b *testing.B) {
	d := NewDocumentString(benchText())
	p := Position{Line: 8000, Character: 16}
	for b.Loop() {
		if _, err := d.Convert(p, UTF16, UTF8); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvertASCII(b *testing.B) {
	d := NewDocumentString(benchText())
	p := Position{Line: 8001, Character: 16}
	for b.Loop() {
		if _, err := d.Convert(p, UTF16, UTF8); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromSymbol(b *testing.B) {
	d := NewDocumentString(benchText())
	for b.Loop() {
		if _, err := d.FromSymbol(8002, "gamma", UTF16); err != nil {
			b.Fatal(err)
		}
	}
}
