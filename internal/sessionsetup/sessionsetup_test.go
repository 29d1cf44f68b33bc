package sessionsetup

import "testing"

// TestMethods: the setup requests of ACP (both fork spellings) and which
// of them name their own session in params; requests that carry a cwd
// without setting anything up (session/list), others, and near misses are
// not setups.
func TestMethods(t *testing.T) {
	for _, tt := range []struct {
		method    string
		is, names bool
	}{
		{"session/new", true, false},
		{"session/load", true, true},
		{"session/resume", true, true},
		{"session/fork", true, false},
		{"session/unstable_fork", true, false},
		{"session/list", false, false},
		{"session/prompt", false, false},
		{"session/close", false, false},
		{"Session/new", false, false},
		{"_session/new", false, false},
		{"", false, false},
	} {
		if got := Is(tt.method); got != tt.is {
			t.Errorf("Is(%q) = %v, want %v", tt.method, got, tt.is)
		}
		if got := NamesSession(tt.method); got != tt.names {
			t.Errorf("NamesSession(%q) = %v, want %v", tt.method, got, tt.names)
		}
	}
}
