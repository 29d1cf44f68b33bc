package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// EvalLinks returns path with ".." and every link on it resolved, as
// filepath.EvalSymlinks does, and on Windows junctions (mount points)
// followed too: EvalSymlinks leaves them since Go 1.23, so a junction in
// the workspace that leads out of it would not be seen as leaving. It is
// the one resolution the workspace boundary uses.
func EvalLinks(path string) (string, error) {
	if runtime.GOOS != "windows" {
		return filepath.EvalSymlinks(path)
	}
	walked, err := evalLinks(osLinks{}, path)
	if err != nil {
		return "", err
	}
	// No link is left on walked: EvalSymlinks only spells it as the file
	// system does (long names, their case).
	return filepath.EvalSymlinks(walked)
}

// linkFS is what resolving links looks at.
type linkFS interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

// osLinks is the operating system's linkFS.
type osLinks struct{}

func (osLinks) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osLinks) Readlink(name string) (string, error)   { return os.Readlink(name) }

// maxLinks bounds the links one resolution follows, as EvalSymlinks does:
// more is a loop.
const maxLinks = 255

// evalLinks is filepath.EvalSymlinks' walk (path/filepath/symlink.go),
// name by name from the volume, over fsys, with link deciding which names
// are links to follow.
func evalLinks(fsys linkFS, path string) (string, error) {
	volLen := len(filepath.VolumeName(path))
	sep := string(filepath.Separator)
	if volLen < len(path) && os.IsPathSeparator(path[volLen]) {
		volLen++
	}
	vol := path[:volLen]
	dest := vol
	walked := 0
	for start, end := volLen, volLen; start < len(path); start = end {
		for start < len(path) && os.IsPathSeparator(path[start]) {
			start++
		}
		end = start
		for end < len(path) && !os.IsPathSeparator(path[end]) {
			end++
		}
		switch name := path[start:end]; {
		case name == "":
			continue
		case name == ".":
			continue
		case name == "..":
			r := len(dest) - 1
			for r >= volLen && !os.IsPathSeparator(dest[r]) {
				r--
			}
			if r < volLen || dest[r+1:] == ".." {
				// Nothing to back up over (a relative path's start, or a
				// ".." kept already): keep this one.
				if len(dest) > volLen {
					dest += sep
				}
				dest += ".."
			} else {
				dest = dest[:r]
			}
			continue
		}
		if len(dest) > len(filepath.VolumeName(dest)) && !os.IsPathSeparator(dest[len(dest)-1]) {
			dest += sep
		}
		dest += path[start:end]
		fi, err := fsys.Lstat(dest)
		if err != nil {
			return "", err
		}
		target, isLink, err := link(fsys, dest, fi)
		if err != nil {
			return "", err
		}
		if !isLink {
			if !fi.IsDir() && end < len(path) {
				return "", &fs.PathError{Op: "lstat", Path: dest, Err: syscall.ENOTDIR}
			}
			continue
		}
		if walked++; walked > maxLinks {
			return "", &fs.PathError{Op: "lstat", Path: dest, Err: errTooManyLinks}
		}
		path = target + path[end:]
		if v := len(filepath.VolumeName(target)); v > 0 {
			if v < len(target) && os.IsPathSeparator(target[v]) {
				v++
			}
			vol, dest, end = target[:v], target[:v], v
			volLen = v
		} else if target != "" && os.IsPathSeparator(target[0]) {
			vol, dest, end = target[:1], target[:1], 1
			volLen = 1
		} else {
			// Relative to the link's folder: its name leaves dest.
			r := len(dest) - 1
			for r >= volLen && !os.IsPathSeparator(dest[r]) {
				r--
			}
			if r < volLen {
				dest = vol
			} else {
				dest = dest[:r]
			}
			end = 0
		}
	}
	return filepath.Clean(dest), nil
}

// errTooManyLinks is a resolution that followed maxLinks links: a loop.
var errTooManyLinks = errors.New("too many links")

// link reads the link at name, whose lstat is fi: its target, and false
// for a name that is not a link. A symbolic link is one; so is an
// irregular entry that is not a folder and whose target Readlink reads:
// on Windows a junction (os.Lstat says ModeIrregular for a mount point
// since Go 1.23; Readlink reads it). Other irregular entries (a cloud
// file's placeholder, a reparse point of a kind Go cannot read) are taken
// as what they are, as EvalSymlinks takes them.
func link(fsys linkFS, name string, fi fs.FileInfo) (string, bool, error) {
	mode := fi.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := fsys.Readlink(name)
		if err != nil {
			return "", false, err
		}
		return target, true, nil
	case mode&fs.ModeIrregular != 0 && !mode.IsDir():
		target, err := fsys.Readlink(name)
		if err != nil || target == "" {
			return "", false, nil
		}
		return target, true, nil
	}
	return "", false, nil
}

// IsLink reports whether name is itself a link, not what it leads to: a
// symbolic link, or on Windows a junction. Moving or deleting a link
// moves or deletes the link alone.
func IsLink(name string) bool { return isLink(osLinks{}, name) }

func isLink(fsys linkFS, name string) bool {
	fi, err := fsys.Lstat(name)
	if err != nil {
		return false
	}
	_, ok, _ := link(fsys, name, fi)
	return ok
}
