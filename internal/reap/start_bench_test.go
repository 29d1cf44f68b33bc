package reap

import (
	"os/exec"
	"testing"
)

// BenchmarkStart starts `true` and waits until it and its tree are gone:
// straight through os/exec, and through Start (on Linux, the guard).
// The difference is what each agent, external proxy and language server
// pays once to end with acp-lsp as a tree.
func BenchmarkStart(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(path).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reap", func(b *testing.B) {
		for b.Loop() {
			c, err := Start(exec.Command(path))
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Wait(); err != nil {
				b.Fatal(err)
			}
			c.Kill()
			<-c.Gone()
		}
	})
}
