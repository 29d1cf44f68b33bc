package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServerEnvOnWindows: a server on Windows gets what Windows programs
// need to run (gopls's go command finds its build cache through
// LocalAppData, node its npm folder through AppData), and names match
// without case, as Windows' own do (Windows writes Path).
func TestServerEnvOnWindows(t *testing.T) {
	environ := []string{
		`Path=C:\Go\bin`, `LOCALAPPDATA=C:\Users\u\AppData\Local`, `AppData=C:\Users\u\AppData\Roaming`,
		`USERPROFILE=C:\Users\u`, `SystemRoot=C:\Windows`, `TEMP=C:\Temp`, `PATHEXT=.COM;.EXE`,
		`GoRoot=C:\Go`, `AWS_SECRET_ACCESS_KEY=k`,
	}
	for _, tt := range []struct {
		name  string
		allow []string
		want  []string
	}{
		{"the default", Defaults().Local.EnvAllowlist, []string{
			`AppData=C:\Users\u\AppData\Roaming`, `GoRoot=C:\Go`, `LOCALAPPDATA=C:\Users\u\AppData\Local`,
			`PATHEXT=.COM;.EXE`, `Path=C:\Go\bin`, `SystemRoot=C:\Windows`, `TEMP=C:\Temp`, `USERPROFILE=C:\Users\u`,
		}},
		{"a name and a prefix in another case", []string{"path", "goR*"}, []string{`GoRoot=C:\Go`, `Path=C:\Go\bin`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Local.EnvAllowlist = tt.allow
			if diff := cmp.Diff(tt.want, cfg.BaseEnv(environ)); diff != "" {
				t.Errorf("BaseEnv (-want +got):\n%s", diff)
			}
		})
	}
}
