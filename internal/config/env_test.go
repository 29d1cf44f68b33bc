package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServerEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "GOFLAGS=-mod=mod", "GITHUB_TOKEN=secret", "AWS_SECRET_ACCESS_KEY=x", "LC_ALL=C", "MYLANG_HOME=/m", "=bad", "noequals"}
	tests := []struct {
		name   string
		global []string
		server Server
		want   []string
	}{
		{"defaults withhold secrets", Defaults().Local.EnvAllowlist, Server{},
			[]string{"GOFLAGS=-mod=mod", "HOME=/h", "LC_ALL=C", "PATH=/bin"}},
		{"server allowlist and env", []string{"PATH"}, Server{EnvAllowlist: []string{"MYLANG_*"}, Env: map[string]string{"PATH": "/opt/bin", "X": "1"}},
			[]string{"MYLANG_HOME=/m", "PATH=/opt/bin", "X=1"}},
		{"empty allowlist", nil, Server{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.Local.EnvAllowlist = tc.global
			if diff := cmp.Diff(tc.want, c.ServerEnv(tc.server, environ)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckServers(t *testing.T) {
	user := `
[servers.gopls]
args = ["-remote=auto"]

[servers.ruff]
command = ["ruff", "server"]
extensions = ["py"]

[servers.nocmd]
extensions = ["x"]

[servers.bare]

[servers.off]
disabled = true
`
	f := newFixture(t, user, "")
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckServers(func(n string) bool { return n == "gopls" })
	want := `~/.config/acp-lsp/config.toml:12: servers.bare: "bare" is not a built-in server, so it needs command and extensions or filenames
~/.config/acp-lsp/config.toml:9: servers.nocmd: "nocmd" is not a built-in server, so it needs command`
	if err == nil || err.Error() != want {
		t.Fatalf("CheckServers:\n got %v\nwant %s", err, want)
	}
}
