package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// TypeScriptLibVar, in a server's InitializationOptions, stands for the
// lib folder of a TypeScript package (the "tsdk" some servers must be
// told, as astro-ls must): the project's own node_modules/typescript when
// the root has one, else the one Node would load from beside the
// server's program (its real path, symlinks followed).
const TypeScriptLibVar = "${typescriptLib}"

// withTypeScriptLib returns cfg with TypeScriptLibVar replaced in its
// InitializationOptions; command is the server's resolved program.
func (cfg ServerConfig) withTypeScriptLib(root, command string) (ServerConfig, error) {
	if !bytes.Contains(cfg.InitializationOptions, []byte(TypeScriptLibVar)) {
		return cfg, nil
	}
	lib, err := typeScriptLib(root, command)
	if err != nil {
		return cfg, err
	}
	q, err := encode(lib)
	if err != nil {
		return cfg, err
	}
	cfg.InitializationOptions = bytes.ReplaceAll(cfg.InitializationOptions, []byte(TypeScriptLibVar), q[1:len(q)-1])
	return cfg, nil
}

// typeScriptLib finds node_modules/typescript/lib holding typescript.js in
// root, else in the folders above command's real path, nearest first.
func typeScriptLib(root, command string) (string, error) {
	has := func(dir string) (string, bool) {
		lib := filepath.Join(dir, "node_modules", "typescript", "lib")
		_, err := os.Stat(filepath.Join(lib, "typescript.js"))
		return lib, err == nil
	}
	if lib, ok := has(root); ok {
		return lib, nil
	}
	real, err := filepath.EvalSymlinks(command)
	if err != nil {
		return "", fmt.Errorf("typescript lib: %w", err)
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if lib, ok := has(dir); ok {
			return lib, nil
		}
		if dir == filepath.Dir(dir) {
			return "", fmt.Errorf("typescript lib: no node_modules/typescript in %s or above %s: install typescript beside the server (npm install -g typescript)", root, real)
		}
	}
}
