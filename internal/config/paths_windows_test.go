package config

import "testing"

// TestPathsOnWindows: on Windows the user file is in the roaming
// application data folder (os.UserConfigDir) and the trust store in the
// local one (os.UserCacheDir's folder, not carried to other machines);
// an XDG variable the user set still wins.
func TestPathsOnWindows(t *testing.T) {
	for _, tc := range []struct {
		env        env
		user, stat string
	}{
		{env{"AppData": `C:\Users\me\AppData\Roaming`, "LocalAppData": `C:\Users\me\AppData\Local`},
			`C:\Users\me\AppData\Roaming\acp-lsp\config.toml`, `C:\Users\me\AppData\Local\acp-lsp`},
		{env{"AppData": `C:\Users\me\AppData\Roaming`, "LocalAppData": `C:\Users\me\AppData\Local`, "XDG_CONFIG_HOME": `D:\c`, "XDG_STATE_HOME": `D:\s`},
			`D:\c\acp-lsp\config.toml`, `D:\s\acp-lsp`},
		{env{"AppData": `relative`, "LocalAppData": `relative`}, "", ""},
	} {
		if got := UserFilePath(tc.env.get); got != tc.user {
			t.Errorf("UserFilePath(%v) = %q, want %q", tc.env, got, tc.user)
		}
		if got := StateDir(tc.env.get); got != tc.stat {
			t.Errorf("StateDir(%v) = %q, want %q", tc.env, got, tc.stat)
		}
	}
}
