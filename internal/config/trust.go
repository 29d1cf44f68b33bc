package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// TrustState is a project file's standing in the trust store.
type TrustState int

const (
	// TrustNoFile means the workspace has no project file.
	TrustNoFile TrustState = iota
	// Untrusted means the file was never trusted.
	Untrusted
	// TrustChanged means the file was trusted but its content changed since.
	TrustChanged
	// Trusted means the file's current content was trusted.
	Trusted
)

// String describes the state for people.
func (s TrustState) String() string {
	switch s {
	case Untrusted:
		return "untrusted"
	case TrustChanged:
		return "changed since trusted"
	case Trusted:
		return "trusted"
	}
	return "no project file"
}

// TrustStore records which project files the user trusts, by the path
// where each is used (see trustKey) and the sha256 of its content, in
// trusted.json under the state directory. Writes replace the file
// atomically; two concurrent writers may lose one update but never corrupt
// the store.
type TrustStore struct {
	path string
}

// NewTrustStore returns the store in stateDir (see StateDir). An empty
// stateDir (no home folder) is an empty store that cannot record trust;
// it is never looked up in the working folder.
func NewTrustStore(stateDir string) *TrustStore {
	if stateDir == "" {
		return &TrustStore{}
	}
	return &TrustStore{path: filepath.Join(stateDir, "trusted.json")}
}

// Path returns the store's file.
func (s *TrustStore) Path() string { return s.path }

// TrustEntry is one trusted file.
type TrustEntry struct {
	// SHA256 is the hex digest of the trusted content.
	SHA256 string `json:"sha256"`
	// TrustedAt is when the user trusted it.
	TrustedAt time.Time `json:"trusted_at"`
}

type trustFile struct {
	Version int                   `json:"version"`
	Files   map[string]TrustEntry `json:"files"`
}

func (s *TrustStore) read() (trustFile, error) {
	tf := trustFile{Version: 1, Files: map[string]TrustEntry{}}
	if s.path == "" {
		return tf, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return tf, fmt.Errorf("config: read trust store: %w", err)
	}
	if err := json.Unmarshal(data, &tf); err != nil {
		return tf, fmt.Errorf("config: trust store %s is corrupt (delete it and trust again): %w", s.path, err)
	}
	if tf.Files == nil {
		tf.Files = map[string]TrustEntry{}
	}
	return tf, nil
}

func (s *TrustStore) write(tf trustFile) error {
	if s.path == "" {
		return errors.New("config: write trust store: no state folder (set HOME or XDG_STATE_HOME to an absolute path)")
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("config: write trust store: %w", err)
	}
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return fmt.Errorf("config: write trust store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".trusted-*.json")
	if err != nil {
		return fmt.Errorf("config: write trust store: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: write trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: write trust store: %w", err)
	}
	return nil
}

// trustKey names a project file by where it is used: its folder with
// symlinks resolved (the same folder through another name runs the same
// relative commands, so it shares the trust), its own name not (a symlink
// to a file trusted in another folder is a file of this folder, whose
// relative commands run here, and nobody trusted it here).
func trustKey(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Check reports whether file with the given content is trusted.
func (s *TrustStore) Check(file string, content []byte) (TrustState, error) {
	key, err := trustKey(file)
	if err != nil {
		return Untrusted, fmt.Errorf("config: check trust: %w", err)
	}
	tf, err := s.read()
	if err != nil {
		return Untrusted, err
	}
	e, ok := tf.Files[key]
	switch {
	case !ok:
		return Untrusted, nil
	case e.SHA256 != digest(content):
		return TrustChanged, nil
	}
	return Trusted, nil
}

// Trust records content, file's content as the caller read it (and
// showed it to the user), as trusted and returns its digest. It reads
// nothing itself: the file read again could hold what a concurrent writer
// put there since.
func (s *TrustStore) Trust(file string, content []byte, now time.Time) (string, error) {
	key, err := trustKey(file)
	if err != nil {
		return "", fmt.Errorf("config: trust: %w", err)
	}
	tf, err := s.read()
	if err != nil {
		return "", err
	}
	sum := digest(content)
	tf.Files[key] = TrustEntry{SHA256: sum, TrustedAt: now.UTC()}
	return sum, s.write(tf)
}

// Revoke forgets file; it reports whether it was trusted.
func (s *TrustStore) Revoke(file string) (bool, error) {
	key, err := trustKey(file)
	if err != nil {
		return false, fmt.Errorf("config: revoke trust: %w", err)
	}
	tf, err := s.read()
	if err != nil {
		return false, err
	}
	if _, ok := tf.Files[key]; !ok {
		return false, nil
	}
	delete(tf.Files, key)
	return true, s.write(tf)
}

// List returns every trusted file and its entry.
func (s *TrustStore) List() (map[string]TrustEntry, error) {
	tf, err := s.read()
	return tf.Files, err
}
