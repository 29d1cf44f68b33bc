package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrOutsideRoot is returned (wrapped) for a path that resolves outside the
// allowed root.
var ErrOutsideRoot = errors.New("path outside the workspace")

// PathFromURI returns the absolute, cleaned local path of a file:// URI.
// Other schemes, relative paths and remote hosts are errors. On Windows a
// host is a UNC share's server, and a drive letter is upper case however
// the URI spells it ("file:///c%3A/w" is C:\w).
func PathFromURI(uri string) (string, error) {
	return pathFromURI(uri, runtime.GOOS == "windows")
}

// URIFromPath returns the file:// URI of an absolute path: on Windows
// "file:///C:/w/a.go" for C:\w\a.go and "file://server/share/a.go" for
// \\server\share\a.go.
func URIFromPath(path string) string {
	return uriFromPath(path, runtime.GOOS == "windows")
}

// pathFromURI is PathFromURI with Windows' path rules or Unix's: string
// work alone (no path/filepath), so both run, and are tested, anywhere.
func pathFromURI(uri string, windows bool) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("edit: uri %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("edit: uri %q: only file:// URIs can be edited", uri)
	}
	// A file name's '?' and '#' are percent-encoded in its URI; raw, they
	// start a query or fragment, and the path alone would name another
	// file (a?b.go would edit a).
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(uri, "#") {
		return "", fmt.Errorf("edit: uri %q: a file URI has no query or fragment (a '?' or '#' in a file name is written %%3F or %%23)", uri)
	}
	host := u.Host
	if host == "localhost" {
		host = ""
	}
	if !windows {
		if host != "" {
			return "", fmt.Errorf("edit: uri %q: remote host %q", uri, host)
		}
		if !strings.HasPrefix(u.Path, "/") {
			return "", fmt.Errorf("edit: uri %q: not an absolute path", uri)
		}
		return path.Clean(u.Path), nil
	}
	p := u.Path
	if host != "" {
		p = "//" + host + p
	}
	if len(p) >= 3 && p[0] == '/' && isDriveLetter(p[1]) && p[2] == ':' {
		p = p[1:]
	}
	clean, ok := cleanWindows(p)
	if !ok {
		return "", fmt.Errorf("edit: uri %q: not an absolute path", uri)
	}
	return clean, nil
}

// uriFromPath is URIFromPath with Windows' path rules or Unix's.
func uriFromPath(p string, windows bool) string {
	u := &url.URL{Scheme: "file"}
	if windows {
		p = strings.ReplaceAll(p, `\`, "/")
		switch vol, rest := windowsVolume(p); {
		case len(vol) == 2:
			p = "/" + vol + rest
		case vol != "":
			// //server/share/rest: the server is the URI's host, if a
			// URL's host can hold its name; else the path keeps it
			// ("file:////server/share/rest").
			server, share, _ := strings.Cut(vol[2:], "/")
			h := &url.URL{Scheme: "file", Host: server, Path: "/" + share + rest}
			if back, err := url.Parse(h.String()); err == nil && back.Host == server {
				return h.String()
			}
		}
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u.Path = p
	return u.String()
}

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// windowsVolume splits a Windows path written with '/' into its volume,
// "C:" (upper case) or "//server/share", and the rest; a path with
// neither has no volume. Device paths (//?/, //./) have none here: no
// file URI names one.
func windowsVolume(p string) (vol, rest string) {
	if len(p) >= 2 && isDriveLetter(p[0]) && p[1] == ':' {
		return strings.ToUpper(p[:1]) + ":", p[2:]
	}
	if len(p) < 3 || p[:2] != "//" || p[2] == '/' {
		return "", p
	}
	server, after, _ := strings.Cut(p[2:], "/")
	share, rest, sep := strings.Cut(after, "/")
	if server == "" || server == "?" || server == "." || share == "" {
		return "", p
	}
	if sep {
		rest = "/" + rest
	}
	return "//" + server + "/" + share, rest
}

// cleanWindows returns the Windows path p ('/' or '\\' between names)
// cleaned as filepath.Clean does on Windows, with '\\' between names and
// an upper-case drive letter; ok is false unless p is absolute (a volume
// then a separator: "C:a" is relative to C:'s current folder).
func cleanWindows(p string) (clean string, ok bool) {
	vol, rest := windowsVolume(strings.ReplaceAll(p, `\`, "/"))
	if vol == "" || (len(vol) == 2 && !strings.HasPrefix(rest, "/")) {
		return "", false
	}
	// A share's root is written with its separator: \\server\share\.
	return strings.ReplaceAll(vol+path.Clean("/"+rest), "/", `\`), true
}

// RootDir checks dir as a workspace root and returns its real path: a
// root is an absolute path that resolves, symbolic links followed, to a
// folder. A relative path, a missing one, a symlink loop or anything but
// a folder (a regular file above all: it would be the deepest root of the
// files beside it, and the working directory no server can start in) is
// an error that names dir and says why.
func RootDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("edit: root %q: not an absolute path", dir)
	}
	real, err := EvalLinks(dir)
	if err != nil {
		return "", fmt.Errorf("edit: root %q: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("edit: root %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("edit: root %q: not a folder", dir)
	}
	return real, nil
}

// RootChecker returns a path check for Options.CheckPath that accepts only
// paths inside root once ".." and links are resolved (RootResolver).
func RootChecker(root string) (func(path string) error, error) {
	resolve, err := RootResolver(root)
	if err != nil {
		return nil, err
	}
	return func(path string) error {
		_, err := resolve(path)
		return err
	}, nil
}

// RootResolver returns the workspace boundary of root: a function that
// resolves a path's ".." and links and returns it when it is inside root,
// else an error wrapping ErrOutsideRoot. The longest existing prefix of
// the path is resolved with EvalLinks and the rest appended, so a link
// inside the root that points out is rejected, and so is a file that does
// not exist yet below such a link.
func RootResolver(root string) (func(path string) (string, error), error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("edit: root %q: %w", root, err)
	}
	real, err := EvalLinks(abs)
	if err != nil {
		return nil, fmt.Errorf("edit: root %q: %w", root, err)
	}
	return func(path string) (string, error) { return inRoot(OS{}, real, path) }, nil
}

// boundaryFS is what the workspace boundary looks at: where links lead,
// and which folder a name is.
type boundaryFS interface {
	EvalSymlinks(path string) (string, error)
	Lstat(name string) (fs.FileInfo, error)
	SameFile(a, b fs.FileInfo) bool
}

// inRoot resolves path (resolvePath) and returns it when it is inside
// root, a resolved root; else an error wrapping ErrOutsideRoot.
func inRoot(fsys boundaryFS, root, path string) (string, error) {
	resolved, err := resolvePath(fsys, path)
	if err != nil {
		return "", fmt.Errorf("edit: check %s: %w", path, err)
	}
	if Within(root, resolved) {
		return resolved, nil
	}
	if p, ok := rootRespelled(fsys, root, resolved); ok {
		return p, nil
	}
	return "", fmt.Errorf("edit: %s resolves to %s: %w %s", path, resolved, ErrOutsideRoot, root)
}

// rootRespelled returns path, resolved, spelled below root when the
// folder on path at the root's depth is the root's own folder (the file
// system says so: same device and inode, or volume and file ID). Where a
// file system compares names without case (macOS' and Windows' default
// volumes) or without their Unicode normalization (APFS), one folder has
// many spellings, and Within, comparing names, knows only the root's.
// Links on path are resolved already, so nothing below that folder
// leaves it; a path that differs from the root in any other way (a
// folder above it, one beside it) is never its folder.
func rootRespelled(fsys boundaryFS, root, path string) (string, bool) {
	depth, _ := cutNames(root, -1)
	if depth == 0 || !filepath.IsAbs(path) {
		// A volume's root: Within's comparison is all there is. A
		// relative path is no workspace path.
		return "", false
	}
	n, cut := cutNames(path, depth)
	if n < depth {
		return "", false
	}
	at, err := fsys.Lstat(path[:cut])
	if err != nil {
		return "", false
	}
	own, err := fsys.Lstat(root)
	if err != nil || !fsys.SameFile(at, own) {
		return "", false
	}
	return filepath.Join(root, path[cut:]), true
}

// cutNames counts the names of the clean absolute path p after its volume,
// up to max (all of them when max is negative), and returns how many and
// where the last one counted ends.
func cutNames(p string, max int) (n, end int) {
	end = len(filepath.VolumeName(p))
	for n != max {
		i := end
		for i < len(p) && os.IsPathSeparator(p[i]) {
			i++
		}
		if i == len(p) {
			break
		}
		for i < len(p) && !os.IsPathSeparator(p[i]) {
			i++
		}
		n, end = n+1, i
	}
	return n, end
}

// Within reports whether path is root or below it; both are clean and
// absolute. It compares names only: links are the caller's to resolve.
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// resolvePath resolves ".." and links in path: the longest existing
// prefix is passed to fsys.EvalSymlinks and the missing rest appended.
func resolvePath(fsys interface {
	EvalSymlinks(path string) (string, error)
}, path string) (string, error) {
	path = filepath.Clean(path)
	r, err := fsys.EvalSymlinks(path)
	if err == nil {
		return r, nil
	}
	if !missing(err) {
		return "", err
	}
	// The proper prefixes of path, shortest first, end at cuts: the
	// root's separator, then each further separator. EvalSymlinks walks a
	// path forward, so every prefix short of the first missing component
	// resolves and every longer one fails: a binary search finds the
	// longest that resolves in a number of looks logarithmic in the
	// components (trying each from the longest down was quadratic in the
	// path's length).
	vol := len(filepath.VolumeName(path))
	var cuts []int
	if vol < len(path) && os.IsPathSeparator(path[vol]) {
		cuts = append(cuts, vol+1)
	}
	for i := vol + 1; i < len(path); i++ {
		if os.IsPathSeparator(path[i]) {
			cuts = append(cuts, i)
		}
	}
	best, resolved := -1, ""
	for lo, hi := 0, len(cuts); lo < hi; {
		mid := int(uint(lo+hi) >> 1)
		r, err := fsys.EvalSymlinks(path[:cuts[mid]])
		switch {
		case err == nil:
			best, resolved = mid, r
			lo = mid + 1
		case missing(err):
			hi = mid
		default:
			return "", err
		}
	}
	if best < 0 {
		return path, nil
	}
	rest := path[cuts[best]:]
	if rest != "" && os.IsPathSeparator(rest[0]) {
		rest = rest[1:]
	}
	return filepath.Join(resolved, rest), nil
}

// missing reports whether err, from resolving a path, says it does not
// exist: a component is missing, or one that is a regular file has a path
// below it (ENOTDIR), under which nothing can exist.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || isNotDir(err)
}
