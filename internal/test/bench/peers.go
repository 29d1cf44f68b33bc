package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Peer versions the bench installs (scripts/bench.sh) into its cache.
const (
	CclspVersion = "0.7.0"
	LsmcpVersion = "0.10.0"
)

// Env is what the subjects need from the machine: programs and the
// environment they run in.
type Env struct {
	// Gopls is the absolute path of gopls.
	Gopls string
	// Base is the environment of every child (PATH has gopls's folder
	// first; the workspace's Go settings are added).
	Base []string
	// NodeModules is the npm prefix holding cclsp and lsmcp
	// (scripts/bench.sh installs them into .cache/bench).
	NodeModules string
	// Cache is the bench's cache folder (shims, workspaces, module cache).
	Cache string
	// MCPClient is the MCP client of every MCP column: ClientSDK (also
	// when empty) or ClientLean.
	MCPClient string
	// Trace, when set, is a folder for each LSP column's gopls RPC trace
	// (see traced).
	Trace string
	// Server, when set, is the language server every column runs instead
	// of gopls (the bytes rows' projects of other languages).
	Server *Server
}

// Server is a language server of the bytes rows' other languages, as
// cclsp, lsmcp and the bare client are told to start it.
type Server struct {
	// Argv starts it; Argv[0] is an absolute path.
	Argv []string
	// LangID is the LSP languageId of its files, Ext their extension
	// (without the dot).
	LangID, Ext string
}

// server is the column's language server: env.Server, or gopls.
func (e *Env) server() Server {
	if e.Server != nil {
		return *e.Server
	}
	return Server{Argv: []string{e.Gopls}, LangID: "go", Ext: "go"}
}

func (e *Env) cclspMain() string {
	return filepath.Join(e.NodeModules, "node_modules", "cclsp", "dist", "index.js")
}

func (e *Env) lsmcpMain() string {
	return filepath.Join(e.NodeModules, "node_modules", "@mizchi", "lsmcp", "dist", "lsmcp.js")
}

// packageVersion reads an installed npm package's version.
func (e *Env) packageVersion(name string) string {
	b, err := os.ReadFile(filepath.Join(e.NodeModules, "node_modules", name, "package.json"))
	if err != nil {
		return "not installed"
	}
	var p struct{ Version string }
	json.Unmarshal(b, &p)
	return p.Version
}

// requireFile fails with the command that installs what is missing.
func requireFile(p, what string) error {
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("%s is not installed (%s missing): run scripts/bench.sh, which installs cclsp@%s and @mizchi/lsmcp@%s into .cache/bench", what, p, CclspVersion, LsmcpVersion)
	}
	return nil
}

// StartCclsp starts cclsp over stdio in root, configured for gopls as the
// issue names it.
func StartCclsp(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
	if err := requireFile(env.cclspMain(), "cclsp"); err != nil {
		return nil, err
	}
	srv := env.server()
	cfg := filepath.Join(env.Cache, "cclsp-"+srv.Ext+".json")
	text, err := json.Marshal(map[string]any{"servers": []map[string]any{{"extensions": []string{srv.Ext}, "command": srv.Argv, "rootDir": "."}}})
	if err != nil {
		return nil, fmt.Errorf("cclsp config: %w", err)
	}
	if err := os.WriteFile(cfg, text, 0o644); err != nil {
		return nil, fmt.Errorf("cclsp config: %w", err)
	}
	e := append(append([]string{}, wsEnv...), "CCLSP_CONFIG_PATH="+cfg)
	conn, cmd, err := connectCommand(ctx, env.MCPClient, "cclsp", []string{"node", env.cclspMain()}, e, root)
	if err != nil {
		return nil, err
	}
	return &mcpSubject{name: "cclsp " + CclspVersion, conn: conn, cmd: cmd, args: cclspArgs}, nil
}

// StartLsmcp starts lsmcp over stdio in root with gopls. lsmcp 0.10.0
// declares node >= 22 and imports node:sqlite at load time, only for its
// on-disk symbol cache; on an older Node.js the bench maps that import to a
// stub and selects lsmcp's in-memory cache (VITEST=true is the switch
// lsmcp reads), which leaves every lsp_* tool as it is.
func StartLsmcp(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
	if err := requireFile(env.lsmcpMain(), "lsmcp"); err != nil {
		return nil, err
	}
	argv := []string{"node"}
	e := append([]string{}, wsEnv...)
	if nodeMajor() < 22 {
		reg, err := sqliteShim(env.Cache)
		if err != nil {
			return nil, err
		}
		argv = append(argv, "--import", "file://"+reg)
		e = append(e, "VITEST=true")
	}
	srv := env.server()
	argv = append(argv, env.lsmcpMain(), "--bin", strings.Join(srv.Argv, " "), "--files", "**/*."+srv.Ext)
	conn, cmd, err := connectCommand(ctx, env.MCPClient, "lsmcp", argv, e, root)
	if err != nil {
		return nil, err
	}
	return &mcpSubject{name: "lsmcp " + LsmcpVersion, conn: conn, cmd: cmd, args: lsmcpArgs(root)}, nil
}

// nodeMajor returns the major version of node on PATH (0 if unknown).
func nodeMajor() int {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return 0
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// sqliteShim writes an ES module loader hook mapping node:sqlite to a
// module whose DatabaseSync refuses to open, and returns the file to pass
// to node --import.
func sqliteShim(cache string) (string, error) {
	dir := filepath.Join(cache, "node-sqlite-shim")
	files := map[string]string{
		"register.mjs": "import { register } from \"node:module\";\nregister(new URL(\"./hooks.mjs\", import.meta.url));\n",
		"hooks.mjs": "export async function resolve(specifier, context, next) {\n" +
			"  if (specifier === \"node:sqlite\") return { url: new URL(\"./sqlite.mjs\", import.meta.url).href, shortCircuit: true };\n" +
			"  return next(specifier, context);\n}\n",
		"sqlite.mjs": "export class DatabaseSync { constructor() { throw new Error(\"node:sqlite is not available in this Node.js\"); } }\n",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("node sqlite shim: %w", err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("node sqlite shim: %w", err)
		}
	}
	return filepath.Join(dir, "register.mjs"), nil
}

// StartBareSubject starts column (a) over root.
func StartBareSubject(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
	var c *BareClient
	var err error
	if env.Server != nil {
		c, err = StartBareServer(ctx, env.Server.Argv, env.Server.LangID, nil, root, wsEnv)
	} else {
		c, err = StartBare(ctx, env.Gopls, root, wsEnv)
	}
	if err != nil {
		return nil, err
	}
	return &bareSubject{c: c, root: root}, nil
}
