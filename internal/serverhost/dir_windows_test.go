package serverhost

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestDirOnWindows: the host folder is acp-lsp in %LocalAppData%, a
// folder: a file there is refused, never repaired. (Who owns it is
// TestCheckFolderOwner's: Wine keeps no owner set on a folder.)
func TestDirOnWindows(t *testing.T) {
	base := t.TempDir()
	for _, tc := range []struct {
		name string
		make func(path string)
		ok   bool
	}{
		{"made here", func(string) {}, true},
		{"the user's already", func(p string) { must(t, os.Mkdir(p, 0o700)) }, true},
		{"a file", func(p string) { must(t, os.WriteFile(p, nil, 0o600)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local := filepath.Join(base, strings.ReplaceAll(tc.name, " ", "-"))
			must(t, os.Mkdir(local, 0o700))
			want := filepath.Join(local, "acp-lsp")
			tc.make(want)
			dir, err := Dir(func(k string) string {
				if k == "LocalAppData" {
					return local
				}
				return ""
			})
			if tc.ok != (err == nil) {
				t.Fatalf("Dir = %q, %v; want ok %v", dir, err, tc.ok)
			}
			if tc.ok && dir != want {
				t.Errorf("Dir = %q, want %q", dir, want)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafeDir) {
				t.Errorf("error %v, want ErrUnsafeDir", err)
			}
		})
	}
}

// TestCheckFolderOwner: a host folder owned by anyone but the user
// (SYSTEM, the Administrators group, another user) is refused.
func TestCheckFolderOwner(t *testing.T) {
	sid := func(s string) *windows.SID {
		v, err := windows.StringToSid(s)
		must(t, err)
		return v
	}
	user := "S-1-5-21-1004336348-1177238915-682003330-1001"
	for _, tc := range []struct {
		name  string
		owner *windows.SID
		ok    bool
	}{
		{"the user", sid(user), true},
		{"another user", sid("S-1-5-21-1004336348-1177238915-682003330-1002"), false},
		{"SYSTEM", sid("S-1-5-18"), false},
		{"the Administrators group", sid("S-1-5-32-544"), false},
		{"no owner", nil, false},
	} {
		err := checkFolderOwner(`C:\x`, tc.owner, sid(user))
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrUnsafeDir)) {
			t.Errorf("%s: checkFolderOwner = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
