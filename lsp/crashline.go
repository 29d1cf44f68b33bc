package lsp

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// crashFrame matches a stack trace's frame lines, which say where a crash
// happened but not what it was: LLVM's and glibc's "#12 0x…", Go's
// "\t/path/file.go:12 +0x1d", JavaScript's and Java's "at …", Python's
// `File "…", line 3`, Rust's "  12: 0x…".
var crashFrame = regexp.MustCompile(`^\s*(#\d+\s|at\s|File\s"|\d+:\s+0x)|^\s+\S+:\d+ \+0x`)

// crashWord matches the line a program writes to say what went wrong.
var crashWord = regexp.MustCompile(`(?i)\b(panic|panicked|fatal|assert|assertion|abort|aborted|error|exception|segmentation fault|terminate called)\b`)

// maxCrashLine bounds the line quoted from a server's stderr.
const maxCrashLine = 400

// tellingLine picks the line of a crashed server's stderr tail that says
// what happened: the last one naming a failure that is not a stack
// frame (joined with its other half when a line that ends in a colon
// leaves the message to the next, as Rust's "panicked at src/x.rs:2:5:"
// does), else the last line. A crash usually
// ends in a stack dump, whose last frame tells a model or a user nothing.
func tellingLine(tail string) string {
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	pick := strings.TrimSpace(lines[len(lines)-1])
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if crashFrame.MatchString(l) || !crashWord.MatchString(l) {
			continue
		}
		pick = strings.TrimSpace(l)
		switch {
		case i > 0 && isCrashHead(lines[i-1]):
			pick = strings.TrimSpace(lines[i-1]) + " " + pick
		case isCrashHead(l) && i+1 < len(lines) && !crashFrame.MatchString(lines[i+1]):
			pick += " " + strings.TrimSpace(lines[i+1])
		}
		break
	}
	if len(pick) > maxCrashLine {
		cut := maxCrashLine
		for cut > 0 && !utf8.RuneStart(pick[cut]) {
			cut--
		}
		pick = pick[:cut] + "…"
	}
	return pick
}

// isCrashHead reports whether l names a failure and leaves its message to
// the next line.
func isCrashHead(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasSuffix(l, ":") && crashWord.MatchString(l) && !crashFrame.MatchString(l)
}
