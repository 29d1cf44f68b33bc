package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// wrapProject is a project file whose server command is relative: it runs
// the lsp-wrap.sh of the folder the file is used in, so trusting it says
// nothing about the same text used in another folder.
const wrapProject = "[servers.wrap]\ncommand = [\"sh\", \"lsp-wrap.sh\"]\nextensions = [\"wrap\"]\n"

// trustTree is a folder of projects and a trust store for them.
type trustTree struct {
	root, state string
}

func (tr *trustTree) path(rel string) string { return filepath.Join(tr.root, filepath.FromSlash(rel)) }

func (tr *trustTree) write(t *testing.T, rel, content string) {
	t.Helper()
	p := tr.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (tr *trustTree) link(t *testing.T, rel, target string) {
	t.Helper()
	p := tr.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
		t.Fatal(err)
	}
}

// trust trusts the project file of the folder rel, as 'acp-lsp trust' does.
func (tr *trustTree) trust(t *testing.T, rel string) {
	t.Helper()
	if err := trustOnDisk(NewTrustStore(tr.state), filepath.Join(tr.path(rel), ProjectFileName), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}

func (tr *trustTree) load(t *testing.T, rel string) *Loaded {
	t.Helper()
	getenv := func(k string) string {
		if k == "HOME" {
			return tr.path("home") // no user file there
		}
		return ""
	}
	l, err := Load(Options{Workspace: tr.path(rel), StateDir: tr.state, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTrustBindsToWhereFileIsUsed: trust covers a project file's content
// in the folder where it was trusted. The same content used in another
// folder, through a symlink to the trusted file, is untrusted there (its
// relative command would run that folder's script); a folder reached
// through a symlinked parent is the same folder; a trusted file that is
// itself a symlink stays trusted only while what it reads is unchanged.
func TestTrustBindsToWhereFileIsUsed(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, tr *trustTree)
		ws    string // the workspace loaded
		want  TrustState
		// trusted lists the files the store holds afterwards, relative
		// to the root; nil does not check.
		trusted []string
	}{
		{name: "the trusted folder itself", ws: "projA", want: Trusted,
			setup: func(t *testing.T, tr *trustTree) {}},
		{name: "another folder whose file links to the trusted one", ws: "projB", want: Untrusted,
			setup: func(t *testing.T, tr *trustTree) {
				tr.write(t, "projB/lsp-wrap.sh", "echo B\n")
				tr.link(t, "projB/"+ProjectFileName, "../projA/"+ProjectFileName)
			}},
		{name: "the same, reached through a symlinked parent folder", ws: "via/projB", want: Untrusted,
			setup: func(t *testing.T, tr *trustTree) {
				tr.link(t, "projB/"+ProjectFileName, "../projA/"+ProjectFileName)
				tr.link(t, "via", tr.root)
			}},
		{name: "the other folder, once trusted there", ws: "projB", want: Trusted,
			trusted: []string{"projA/" + ProjectFileName, "projB/" + ProjectFileName},
			setup: func(t *testing.T, tr *trustTree) {
				tr.link(t, "projB/"+ProjectFileName, "../projA/"+ProjectFileName)
				tr.trust(t, "projB")
			}},
		{name: "trusting the link's folder does not trust the target's", ws: "projC", want: Untrusted,
			trusted: []string{"projA/" + ProjectFileName, "projD/" + ProjectFileName},
			setup: func(t *testing.T, tr *trustTree) {
				tr.write(t, "projC/"+ProjectFileName, wrapProject+"# C\n")
				tr.link(t, "projD/"+ProjectFileName, "../projC/"+ProjectFileName)
				tr.trust(t, "projD")
			}},
		{name: "the trusted folder through a symlink to it", ws: "linkA", want: Trusted,
			trusted: []string{"projA/" + ProjectFileName},
			setup: func(t *testing.T, tr *trustTree) {
				tr.link(t, "linkA", "projA")
				tr.trust(t, "linkA")
			}},
		{name: "a trusted file that is a symlink", ws: "projE", want: Trusted,
			setup: func(t *testing.T, tr *trustTree) {
				tr.write(t, "shared/one.toml", wrapProject)
				tr.link(t, "projE/"+ProjectFileName, "../shared/one.toml")
				tr.trust(t, "projE")
			}},
		{name: "a trusted symlink whose target changed", ws: "projE", want: TrustChanged,
			setup: func(t *testing.T, tr *trustTree) {
				tr.write(t, "shared/one.toml", wrapProject)
				tr.link(t, "projE/"+ProjectFileName, "../shared/one.toml")
				tr.trust(t, "projE")
				tr.write(t, "shared/one.toml", wrapProject+"args = [\"-x\"]\n")
			}},
		{name: "a trusted symlink pointed elsewhere", ws: "projE", want: TrustChanged,
			setup: func(t *testing.T, tr *trustTree) {
				tr.write(t, "shared/one.toml", wrapProject)
				tr.write(t, "shared/two.toml", "[servers.wrap]\ncommand = [\"sh\", \"other.sh\"]\nextensions = [\"wrap\"]\n")
				tr.link(t, "projE/"+ProjectFileName, "../shared/one.toml")
				tr.trust(t, "projE")
				tr.link(t, "projE/"+ProjectFileName, "../shared/two.toml")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &trustTree{root: t.TempDir(), state: t.TempDir()}
			tr.write(t, "projA/"+ProjectFileName, wrapProject)
			tr.write(t, "projA/lsp-wrap.sh", "echo A\n")
			tr.trust(t, "projA")
			tt.setup(t, tr)

			l := tr.load(t, tt.ws)
			if l.ProjectTrust != tt.want {
				t.Errorf("trust of %s = %v, want %v", l.ProjectFile, l.ProjectTrust, tt.want)
			}
			if want := filepath.Join(tr.path(tt.ws), ProjectFileName); l.ProjectFile != want {
				t.Errorf("project file %s, want %s (the file where it is used)", l.ProjectFile, want)
			}
			_, applied := l.Config.Servers["wrap"]
			if applied != (tt.want == Trusted) {
				t.Errorf("servers.wrap applied = %v with trust %v", applied, l.ProjectTrust)
			}
			if tt.trusted != nil {
				files, err := NewTrustStore(tr.state).List()
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for f := range files {
					rel, err := filepath.Rel(tr.root, f)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, filepath.ToSlash(rel))
				}
				slices.Sort(got)
				if !slices.Equal(got, tt.trusted) {
					t.Errorf("trust store holds %q, want %q", got, tt.trusted)
				}
			}
		})
	}
}
