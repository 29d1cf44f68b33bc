package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Machine describes where the figures were measured.
type Machine struct {
	CPU, OS, Kernel, Go, Gopls, Node string
	Cores                            int
	// LoadStart and LoadEnd are /proc/loadavg's 1, 5 and 15 minute
	// averages when the run started and ended: a shared machine's other
	// work shows in the figures.
	LoadStart, LoadEnd string
	Peers              map[string]string
	Date               string
}

// LoadAverage returns /proc/loadavg's first three fields ("" if unknown).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// DescribeMachine reads the CPU model, OS and tool versions.
func DescribeMachine(ctx context.Context, env *Env, goplsVersion string) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Gopls: goplsVersion, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), LoadEnd: LoadAverage(),
		Peers: map[string]string{
			"cclsp":         env.packageVersion("cclsp"),
			"@mizchi/lsmcp": env.packageVersion("@mizchi/lsmcp"),
		}}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"`)
			}
		}
	}
	if out, err := exec.CommandContext(ctx, "uname", "-sr").Output(); err == nil {
		m.Kernel = strings.TrimSpace(string(out))
	}
	if out, err := exec.CommandContext(ctx, "node", "--version").Output(); err == nil {
		m.Node = strings.TrimSpace(string(out))
	}
	if m.Gopls == "" {
		if out, err := exec.CommandContext(ctx, env.Gopls, "version").Output(); err == nil {
			m.Gopls = firstLineOf(string(out))
		}
	}
	return m
}
