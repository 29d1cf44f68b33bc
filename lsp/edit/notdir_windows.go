//go:build windows

package edit

func isNotDir(err error) bool { return false }
