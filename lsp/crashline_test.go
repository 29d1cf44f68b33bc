package lsp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTellingLine: the line quoted from a crashed server's stderr is the
// one saying what went wrong, not the stack dump's last frame.
func TestTellingLine(t *testing.T) {
	for _, tc := range []struct{ name, tail, want string }{
		{"ccls assertion amid indexer logs", `22:13:56 indexer1 pipeline.cc:397 I store index for /usr/include/stdio.h (delta: 1)
ccls: ./src/query.cc:292: ccls::DB::applyIndexUpdate(ccls::IndexUpdate*)::<lambda>: Assertion ` + "`v >= 0'" + ` failed.
22:13:56 indexer0 pipeline.cc:397 I store index for /usr/include/x86_64-linux-gnu/bits/types/FILE.h (delta: 0)
 #0 0x00007f08bd6a5291 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xea5291)
 #6 0x00007f08bc644472 abort ./stdlib/./stdlib/abort.c:81:7
#17 0x00005589eac7dd41 (/usr/bin/ccls+0x1dd41)`,
			"ccls: ./src/query.cc:292: ccls::DB::applyIndexUpdate(ccls::IndexUpdate*)::<lambda>: Assertion `v >= 0' failed."},
		{"go panic", `panic: runtime error: index out of range [5] with length 3

goroutine 1 [running]:
main.main()
	/tmp/x/main.go:5 +0x1d
exit status 2`, "panic: runtime error: index out of range [5] with length 3"},
		{"python traceback", `Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/pylsp/__main__.py", line 3, in <module>
    raise ValueError("bad config")
ValueError: bad config`, "ValueError: bad config"},
		{"rust panic, message on the next line", `thread 'main' panicked at crates/rust-analyzer/src/main.rs:2:5:
explicit panic
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace`, "thread 'main' panicked at crates/rust-analyzer/src/main.rs:2:5: explicit panic"},
		{"node exception", `Error: Cannot find module 'typescript'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15)
    at Module._load (node:internal/modules/cjs/loader:981:27)

Node.js v18.19.0`, "Error: Cannot find module 'typescript'"},
		{"java exception", "Exception in thread \"main\" java.lang.IllegalStateException: no workspace\n\tat org.example.Main.main(Main.java:3)",
			`Exception in thread "main" java.lang.IllegalStateException: no workspace`},
		{"no crash words: the last line", "starting\nlistening on stdio\nbye", "bye"},
		{"one line", "Killed", "Killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tellingLine(tc.tail); got != tc.want {
				t.Fatalf("tellingLine = %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzTellingLine: any stderr gives a bounded line made of the tail's
// own text, never a panic.
func FuzzTellingLine(f *testing.F) {
	f.Add("panic: x\n\tat y")
	f.Add("error:\n#1 0x0\n")
	f.Add(strings.Repeat("é", 300) + " fatal")
	f.Fuzz(func(t *testing.T, tail string) {
		got := tellingLine(tail)
		if len(got) > maxCrashLine+len("…") {
			t.Fatalf("line of %d bytes", len(got))
		}
		if utf8.ValidString(tail) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid input: %q", got)
		}
	})
}
