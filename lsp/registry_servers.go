package lsp

import (
	"encoding/json"
	"time"
)

// Root markers double as project markers (Manager.Survey): a server of
// files every project has (JSON, YAML, TOML, HTML, CSS) lists none of
// another language's (package.json, pyproject.toml), or a Go module with
// a package.json would start the JSON server for every session.
//
// Versions pinned in the install commands below are the ones the
// registry was written against (docs/languages.md says which of them the
// tests drive for real); a newer release usually works too.

// DefaultServers returns the built-in registry, a fresh copy each call.
// Where two servers serve one language, the one with the lower Priority
// serves its files when installed and the next one installed otherwise;
// [servers.NAME] priority or disabled in the configuration changes the
// choice (docs/configuration.md).
func DefaultServers() []ServerConfig {
	return []ServerConfig{
		// Go.
		{
			Name: "gopls", Command: "gopls", Language: "go",
			Extensions:  []string{"go"},
			Filenames:   []string{"go.mod", "go.sum", "go.work"},
			LanguageIDs: map[string]string{"go.mod": "go.mod", "go.sum": "go.sum", "go.work": "go.work"},
			RootMarkers: []string{"go.work", "go.mod", ".git"},
			// workspace/symbol searches the workspace's packages only, not
			// the standard library and dependencies as well: the tool
			// leaves results outside the session's workspace out anyway,
			// and on the bench's module the search took a third of the
			// time (docs/lsp.md).
			InitializationOptions: json.RawMessage(`{"symbolScope":"workspace"}`),
			// gopls v0.24 needs Go 1.27; v0.23.0 builds with Go 1.26.
			Install:     everywhere("go install golang.org/x/tools/gopls@v0.23.0"),
			VersionArgs: []string{"version"},
		},
		{
			Name: "templ", Command: "templ", Args: []string{"lsp"}, Language: "templ",
			Extensions:  []string{"templ"},
			RootMarkers: []string{"go.mod", ".git"},
			Install:     everywhere("go install github.com/a-h/templ/cmd/templ@v0.3.1118"),
			VersionArgs: []string{"version"},
		},
		// Rust.
		{
			Name: "rust-analyzer", Command: "rust-analyzer", Language: "rust",
			Extensions: []string{"rs"},
			// Its check on save reports progress titled by the command
			// ("cargo check", "cargo check (#2)", "cargo clippy"): a
			// build, not a load; its index is complete meanwhile. While
			// it indexes it answers ContentModified (-32801), which lsp
			// retries until the load ends (server.call).
			Loading:     LoadSignals{QuietProgress: `^cargo `},
			RootMarkers: []string{"Cargo.toml", "rust-project.json", ".git"},
			Install: Install{
				Linux:   "rustup component add rust-analyzer",
				Darwin:  "rustup component add rust-analyzer || brew install rust-analyzer",
				Windows: "rustup component add rust-analyzer",
			},
			VersionArgs: []string{"--version"},
		},
		// Python: pyright first, python-lsp-server, then ruff's server
		// (lint and format only).
		{
			Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Language: "python",
			Extensions: []string{"py", "pyi"},
			// pyright reports no progress while it lists the workspace's
			// files, and until it has, references and workspace symbols
			// see the open files alone (1 reference of 30,001 in a
			// package of 10,000 modules; an empty workspace symbol
			// list). It logs "Found 10022 source files" (or "No source
			// files found.") once the list is complete, in English
			// whatever the locale, and that is the end of its load. Its
			// $/progress is per request ("Finding references") or a
			// check under way, neither a load.
			Loading:     LoadSignals{DoneLog: `^(Found \d+ source files?|No source files found\.)$`},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
			Install:     everywhere("npm install -g pyright@1.1.414"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "pylsp", Command: "pylsp", Language: "python", Priority: 10,
			Extensions:  []string{"py", "pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
			Install: Install{
				Linux:   "apt-get install -y python3-pylsp",
				Darwin:  "brew install python-lsp-server",
				Windows: "pip install python-lsp-server==1.15.0",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "ruff", Command: "ruff", Args: []string{"server"}, Language: "python", Priority: 20,
			Extensions:  []string{"py", "pyi"},
			RootMarkers: []string{"pyproject.toml", "ruff.toml", ".ruff.toml", ".git"},
			Install: Install{
				Linux:   "pipx install ruff==0.17.5",
				Darwin:  "brew install ruff",
				Windows: "pip install ruff==0.17.5",
			},
			VersionArgs: []string{"--version"},
		},
		// TypeScript and JavaScript: typescript-language-server (tsserver)
		// first, TypeScript 7's native server next, ESLint's last
		// (diagnostics and fixes only).
		{
			Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Language:    "typescript",
			Extensions:  tsExtensions(),
			LanguageIDs: tsLanguageIDs(),
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
			// No automatic type acquisition: tsserver would otherwise run
			// npm in the background (types-registry, @types/* for every
			// package a .js file requires) from the first .js file it
			// opens: network traffic and writes to ~/.cache/typescript
			// nobody asked for. Configuration turns it back on
			// (docs/configuration.md).
			InitializationOptions: json.RawMessage(`{"disableAutomaticTypingAcquisition":true}`),
			// TypeScript 7 has no tsserver: the server needs TypeScript 5.
			Install:     everywhere("npm install -g typescript-language-server@5.3.0 typescript@5.9.3"),
			VersionArgs: []string{"--version"},
		},
		{
			// TypeScript 7's native compiler serves LSP itself. It offers
			// pull diagnostics only (diagnosticProvider), which lsp reads
			// from its capabilities.
			Name: "typescript-native", Command: "tsc", Args: []string{"--lsp", "--stdio"}, Priority: 10,
			Language:    "typescript",
			Extensions:  tsExtensions(),
			LanguageIDs: tsLanguageIDs(),
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
			Install:     everywhere("npm install -g typescript@7.0.2"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "eslint", Command: "vscode-eslint-language-server", Args: []string{"--stdio"}, Priority: 30,
			Language:    "typescript",
			Extensions:  tsExtensions(),
			LanguageIDs: tsLanguageIDs(),
			RootMarkers: []string{"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc.json", ".eslintrc.js", ".git"},
			Install:     everywhere("npm install -g vscode-langservers-extracted@4.10.0"),
		},
		// Web.
		{
			Name: "vscode-html-language-server", Command: "vscode-html-language-server", Args: []string{"--stdio"}, Language: "html",
			Extensions:            []string{"html", "htm", "xhtml"},
			RootMarkers:           []string{".git"},
			InitializationOptions: json.RawMessage(`{"provideFormatter":true}`),
			Install:               everywhere("npm install -g vscode-langservers-extracted@4.10.0"),
		},
		{
			Name: "vscode-css-language-server", Command: "vscode-css-language-server", Args: []string{"--stdio"}, Language: "css",
			Extensions:            []string{"css", "scss", "less"},
			LanguageIDs:           map[string]string{"scss": "scss", "less": "less"},
			RootMarkers:           []string{".git"},
			InitializationOptions: json.RawMessage(`{"provideFormatter":true}`),
			Settings: map[string]json.RawMessage{
				"css":  json.RawMessage(`{"validate":true}`),
				"scss": json.RawMessage(`{"validate":true}`),
				"less": json.RawMessage(`{"validate":true}`),
			},
			Quirks:  Quirks{ObjectSettings: true},
			Install: everywhere("npm install -g vscode-langservers-extracted@4.10.0"),
		},
		{
			Name: "vscode-json-language-server", Command: "vscode-json-language-server", Args: []string{"--stdio"}, Language: "json",
			Extensions:            []string{"json", "jsonc"},
			Filenames:             []string{".babelrc", ".eslintrc"},
			LanguageIDs:           map[string]string{"jsonc": "jsonc", "tsconfig.json": "jsonc", "jsconfig.json": "jsonc"},
			RootMarkers:           []string{".git"},
			InitializationOptions: json.RawMessage(`{"provideFormatter":true}`),
			// Validation is a setting: an empty settings update would
			// turn it off.
			Settings: map[string]json.RawMessage{"json": json.RawMessage(`{"validate":{"enable":true},"format":{"enable":true}}`)},
			Install:  everywhere("npm install -g vscode-langservers-extracted@4.10.0"),
		},
		{
			Name: "tailwindcss-language-server", Command: "tailwindcss-language-server", Args: []string{"--stdio"}, Priority: 30,
			Language:    "css",
			Extensions:  []string{"css", "scss", "less"},
			LanguageIDs: map[string]string{"scss": "scss", "less": "less"},
			RootMarkers: []string{"tailwind.config.js", "tailwind.config.ts", "tailwind.config.cjs", "tailwind.config.mjs", ".git"},
			Install:     everywhere("npm install -g @tailwindcss/language-server@0.16.0"),
		},
		{
			Name: "vue-language-server", Command: "vue-language-server", Args: []string{"--stdio"}, Language: "vue",
			Extensions:  []string{"vue"},
			RootMarkers: []string{"vite.config.ts", "vite.config.js", "nuxt.config.ts", "package.json", ".git"},
			// It asks an editor's TypeScript server (with the Vue plugin)
			// through tsserver/request notifications and waits for each
			// answer; relaying them would need a second TypeScript server
			// per root loaded with @vue/typescript-plugin, so they are
			// answered null: the template, style and script-setup answers
			// come from its own language service, TypeScript's type
			// information inside templates does not.
			Quirks:      Quirks{NotificationRequests: map[string]string{"tsserver/request": "tsserver/response"}},
			Install:     everywhere("npm install -g @vue/language-server@3.3.11 typescript@5.9.3"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "svelteserver", Command: "svelteserver", Args: []string{"--stdio"}, Language: "svelte",
			Extensions:  []string{"svelte"},
			RootMarkers: []string{"svelte.config.js", "svelte.config.mjs", "package.json", ".git"},
			Install:     everywhere("npm install -g svelte-language-server@0.18.4"),
		},
		{
			Name: "astro-ls", Command: "astro-ls", Args: []string{"--stdio"}, Language: "astro",
			Extensions:  []string{"astro"},
			RootMarkers: []string{"astro.config.mjs", "astro.config.ts", "astro.config.js", "package.json", ".git"},
			// It publishes each version's diagnostics twice (Volar's
			// syntax pass, then the type check) with no end signal, but
			// answers a pull with the complete list; it refuses
			// initialize without the TypeScript to load.
			Quirks:                Quirks{UnadvertisedPull: true, PublishesInPasses: 2},
			InitializationOptions: json.RawMessage(`{"typescript":{"tsdk":"` + TypeScriptLibVar + `"}}`),
			Install:               everywhere("npm install -g @astrojs/language-server@2.17.1 typescript@5.9.3"),
		},
		{
			Name: "graphql-lsp", Command: "graphql-lsp", Args: []string{"server", "-m", "stream"}, Language: "graphql",
			Extensions:  []string{"graphql", "graphqls", "gql"},
			RootMarkers: []string{".graphqlrc", ".graphqlrc.yml", ".graphqlrc.yaml", ".graphqlrc.json", "graphql.config.js", "graphql.config.ts", "graphql.config.yml", ".git"},
			Install:     everywhere("npm install -g graphql-language-service-cli@3.5.0"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "prisma-language-server", Command: "prisma-language-server", Args: []string{"--stdio"}, Language: "prisma",
			Extensions:  []string{"prisma"},
			RootMarkers: []string{"schema.prisma", ".git"},
			Install:     everywhere("npm install -g @prisma/language-server@31.12.10"),
		},
		// PHP: intelephense first, phpactor next.
		{
			Name: "intelephense", Command: "intelephense", Args: []string{"--stdio"}, Language: "php",
			Extensions:  []string{"php", "phtml"},
			RootMarkers: []string{"composer.json", ".git"},
			Install:     everywhere("npm install -g intelephense@1.18.5"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "phpactor", Command: "phpactor", Args: []string{"language-server"}, Language: "php", Priority: 10,
			Extensions:  []string{"php", "phtml"},
			RootMarkers: []string{"composer.json", ".phpactor.json", ".git"},
			Install: Install{
				Linux:   "composer global require phpactor/phpactor",
				Darwin:  "brew install phpactor",
				Windows: "composer global require phpactor/phpactor",
			},
			VersionArgs: []string{"--version"},
		},
		// Shell, data and configuration files.
		{
			Name: "bash-language-server", Command: "bash-language-server", Args: []string{"start"}, Language: "shellscript",
			Extensions:  []string{"sh", "bash"},
			Filenames:   []string{".bashrc", ".bash_profile", ".profile"},
			RootMarkers: []string{".git"},
			// shellcheck gives it its diagnostics.
			Install: Install{
				Linux:   "npm install -g bash-language-server@5.8.1 && apt-get install -y shellcheck",
				Darwin:  "npm install -g bash-language-server@5.8.1 && brew install shellcheck",
				Windows: "npm install -g bash-language-server@5.8.1 && winget install koalaman.shellcheck",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "yaml-language-server", Command: "yaml-language-server", Args: []string{"--stdio"}, Language: "yaml",
			Extensions:  []string{"yaml", "yml"},
			RootMarkers: []string{".git"},
			// No schema store: it would fetch the catalogue from the
			// network on start.
			Settings: map[string]json.RawMessage{"yaml": json.RawMessage(`{"validate":true,"hover":true,"completion":true,"schemaStore":{"enable":false}}`)},
			Install:  everywhere("npm install -g yaml-language-server@2.0.0"),
		},
		{
			Name: "tombi", Command: "tombi", Args: []string{"lsp"}, Language: "toml",
			// Most TOML files are another language's manifest
			// (pyproject.toml, Cargo.toml): their share of a workspace
			// does not make TOML questions likely, so tombi starts when a
			// question names a TOML file, never for the workspace.
			Needed:      NeededNo,
			Extensions:  []string{"toml"},
			RootMarkers: []string{"tombi.toml", ".git"},
			// The npm build of @taplo/cli has no language server; tombi's has.
			Install:     everywhere("npm install -g tombi@0.11.7"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "docker-langserver", Command: "docker-langserver", Args: []string{"--stdio"}, Language: "dockerfile",
			Extensions:  []string{"dockerfile"},
			Filenames:   []string{"Dockerfile", "Containerfile"},
			RootMarkers: []string{".git"},
			Install:     everywhere("npm install -g dockerfile-language-server-nodejs@0.15.0"),
		},
		{
			Name: "sql-language-server", Command: "sql-language-server", Args: []string{"up", "--method", "stdio"}, Language: "sql",
			Extensions:  []string{"sql"},
			RootMarkers: []string{".sqllsrc.json", ".git"},
			// 1.7.1 does not start without vscode-languageserver-protocol
			// 3.17.5 beside it.
			Install:     everywhere("npm install -g sql-language-server@1.7.1 vscode-languageserver-protocol@3.17.5"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "terraform-ls", Command: "terraform-ls", Args: []string{"serve"}, Language: "terraform",
			Extensions:  []string{"tf", "tfvars"},
			LanguageIDs: map[string]string{"tfvars": "terraform-vars"},
			RootMarkers: []string{".terraform.lock.hcl", ".terraform", ".git"},
			// v0.39.1 cannot be built from the module proxy; v0.39.0 can.
			Install: Install{
				Linux:   "go install github.com/hashicorp/terraform-ls@v0.39.0",
				Darwin:  "brew install hashicorp/tap/terraform-ls",
				Windows: "go install github.com/hashicorp/terraform-ls@v0.39.0",
			},
			VersionArgs: []string{"version"},
		},
		{
			Name: "buf", Command: "buf", Args: []string{"lsp", "serve"}, Language: "proto",
			Extensions:  []string{"proto"},
			RootMarkers: []string{"buf.yaml", "buf.work.yaml", ".git"},
			Install: Install{
				Linux:   "go install github.com/bufbuild/buf/cmd/buf@v1.75.0",
				Darwin:  "brew install bufbuild/buf/buf",
				Windows: "go install github.com/bufbuild/buf/cmd/buf@v1.75.0",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "marksman", Command: "marksman", Args: []string{"server"}, Language: "markdown",
			Extensions:  []string{"md", "markdown"},
			RootMarkers: []string{".marksman.toml", ".git"},
			Install: Install{
				Linux:   "brew install marksman",
				Darwin:  "brew install marksman",
				Windows: "winget install Artempyanykh.Marksman",
			},
			VersionArgs: []string{"--version"},
		},
		{
			// A general server that runs the linters and formatters its
			// config.yaml names for the languages that file lists. It
			// serves nothing until configured: [servers.efm-langserver]
			// with extensions (and its own config file) enables it.
			Name: "efm-langserver", Command: "efm-langserver", Language: "plaintext", Disabled: true, Priority: 50,
			RootMarkers: []string{".git"},
			Install:     everywhere("go install github.com/mattn/efm-langserver@v0.0.57"),
			VersionArgs: []string{"-v"},
		},
		// C, C++ and Objective-C: clangd first, ccls next.
		{
			Name: "clangd", Command: "clangd", Language: "c",
			Extensions:  cExtensions(),
			LanguageIDs: cLanguageIDs(),
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", ".git"},
			Install: Install{
				Linux:   "apt-get install -y clangd",
				Darwin:  "brew install llvm",
				Windows: "winget install LLVM.LLVM",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "ccls", Command: "ccls", Language: "c", Priority: 10,
			Extensions:  cExtensions(),
			LanguageIDs: cLanguageIDs(),
			RootMarkers: []string{"compile_commands.json", ".ccls", ".git"},
			// Its index cache goes to a folder of its own, not to
			// .ccls-cache inside the user's project.
			InitializationOptions: json.RawMessage(`{"cache":{"directory":"` + DataDirVar + `"}}`),
			Install: Install{
				Linux:   "apt-get install -y ccls",
				Darwin:  "brew install ccls",
				Windows: "pacman -S mingw-w64-ucrt-x86_64-ccls",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "fortls", Command: "fortls", Language: "fortran",
			Extensions:  []string{"f", "f90", "f95", "f03", "f08", "for", "fpp"},
			RootMarkers: []string{".fortls", "fpm.toml", ".git"},
			Install: Install{
				Linux:   "apt-get install -y fortls",
				Darwin:  "pipx install fortls==3.2.2",
				Windows: "pip install fortls==3.2.2",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "cmake-language-server", Command: "cmake-language-server", Language: "cmake",
			Extensions:  []string{"cmake"},
			Filenames:   []string{"CMakeLists.txt"},
			RootMarkers: []string{"CMakePresets.json", ".git"},
			Install: Install{
				Linux:   "pipx install cmake-language-server==0.1.11",
				Darwin:  "pipx install cmake-language-server==0.1.11",
				Windows: "pip install cmake-language-server==0.1.11",
			},
			VersionArgs: []string{"--version"},
		},
		// JVM.
		{
			// jdtls keeps its workspace (index, settings) in the -data
			// folder, and two instances on one folder corrupt it or fail
			// on its lock: lsp gives each instance its own (DataDirVar).
			Name: "jdtls", Command: "jdtls", Args: []string{"-data", DataDirVar}, Language: "java",
			Extensions:  []string{"java"},
			RootMarkers: []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".project", ".git"},
			Timeouts:    Timeouts{Initialize: Duration(2 * time.Minute)}, // its first start unpacks and indexes the JDK
			Install: Install{
				Linux:   "brew install jdtls",
				Darwin:  "brew install jdtls",
				Windows: "scoop install extras/jdtls",
			},
		},
		{
			Name: "kotlin-language-server", Command: "kotlin-language-server", Language: "kotlin",
			Extensions:  []string{"kt", "kts"},
			RootMarkers: []string{"settings.gradle.kts", "settings.gradle", "build.gradle.kts", "build.gradle", "pom.xml", ".git"},
			Install: Install{
				Linux:   "brew install kotlin-language-server",
				Darwin:  "brew install kotlin-language-server",
				Windows: "scoop install extras/kotlin-language-server",
			},
		},
		{
			Name: "metals", Command: "metals", Language: "scala",
			Extensions:  []string{"scala", "sbt", "sc", "mill"},
			RootMarkers: []string{"build.sbt", "build.sc", "build.mill", ".scala-build", ".git"},
			Install:     everywhere("cs install metals"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "clojure-lsp", Command: "clojure-lsp", Language: "clojure",
			Extensions:  []string{"clj", "cljs", "cljc", "edn"},
			RootMarkers: []string{"deps.edn", "project.clj", "shadow-cljs.edn", "bb.edn", ".git"},
			Install: Install{
				Linux:   "brew install clojure-lsp/brew/clojure-lsp-native",
				Darwin:  "brew install clojure-lsp/brew/clojure-lsp-native",
				Windows: "scoop install clojure-lsp",
			},
			VersionArgs: []string{"--version"},
		},
		// .NET.
		{
			Name: "csharp-ls", Command: "csharp-ls", Language: "csharp",
			Extensions:  []string{"cs", "csx"},
			RootMarkers: []string{"*.sln", "*.slnx", "*.csproj", "global.json", ".git"},
			Install:     everywhere("dotnet tool install --global csharp-ls --version 0.28.0"),
			VersionArgs: []string{"--version"},
		},
		// Ruby: ruby-lsp first, solargraph next.
		{
			Name: "ruby-lsp", Command: "ruby-lsp", Language: "ruby",
			Extensions:  []string{"rb", "rake", "gemspec", "ru"},
			Filenames:   []string{"Gemfile", "Rakefile"},
			RootMarkers: []string{"Gemfile", ".ruby-version", ".git"},
			Install:     everywhere("gem install ruby-lsp"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "solargraph", Command: "solargraph", Args: []string{"stdio"}, Language: "ruby", Priority: 10,
			Extensions:  []string{"rb", "rake", "gemspec", "ru"},
			Filenames:   []string{"Gemfile", "Rakefile"},
			RootMarkers: []string{"Gemfile", ".solargraph.yml", ".git"},
			Install:     everywhere("gem install solargraph"),
			VersionArgs: []string{"--version"},
		},
		// Apple.
		{
			Name: "sourcekit-lsp", Command: "sourcekit-lsp", Language: "swift",
			Extensions:  []string{"swift"},
			RootMarkers: []string{"Package.swift", "*.xcodeproj", "*.xcworkspace", "compile_commands.json", ".git"},
			Install: Install{
				Linux:   "swiftly install latest",
				Darwin:  "xcode-select --install",
				Windows: "winget install Swift.Toolchain",
			},
		},
		// Scripting languages.
		{
			Name: "lua-language-server", Command: "lua-language-server", Language: "lua",
			Extensions: []string{"lua"},
			// Only "Loading workspace" (and "Initializing...") is its
			// load. Once loaded it diagnoses every file ("Diagnosing
			// workspace", which can outlast the load by minutes), and any
			// request, parse or diagnosis taking over half a second gets
			// progress of its own ("Processing hover...", "Searching in
			// files...", "Compiling", "Diagnosing"): its answers are
			// complete meanwhile. (Titles are its English ones: acp-lsp
			// asks for locale "en".)
			Loading:     LoadSignals{QuietProgress: `^(Diagnosing|Processing |Searching in files|Compiling)`},
			RootMarkers: []string{".luarc.json", ".luarc.jsonc", ".stylua.toml", "stylua.toml", ".git"},
			Install: Install{
				Linux:   "brew install lua-language-server",
				Darwin:  "brew install lua-language-server",
				Windows: "winget install LuaLS.lua-language-server",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "perl-languageserver", Command: "perl", Args: []string{"-MPerl::LanguageServer", "-e", "Perl::LanguageServer::run"}, Language: "perl",
			Extensions:  []string{"pl", "pm", "t"},
			RootMarkers: []string{"cpanfile", "Makefile.PL", "Build.PL", ".git"},
			Install: Install{
				Linux:   "apt-get install -y libperl-languageserver-perl",
				Darwin:  "cpanm Perl::LanguageServer",
				Windows: "cpanm Perl::LanguageServer",
			},
			VersionArgs: []string{"-v"},
		},
		{
			Name: "r-languageserver", Command: "R", Args: []string{"--no-echo", "-e", "languageserver::run()"}, Language: "r",
			Extensions:  []string{"r", "R", "rmd", "Rmd"},
			LanguageIDs: map[string]string{"rmd": "rmd", "Rmd": "rmd"},
			RootMarkers: []string{"DESCRIPTION", ".Rproj.user", "renv.lock", ".git"},
			Install: Install{
				Linux:   "apt-get install -y r-cran-languageserver",
				Darwin:  `Rscript -e "install.packages('languageserver')"`,
				Windows: `Rscript -e "install.packages('languageserver')"`,
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "julia-languageserver", Command: "julia", Args: []string{"--startup-file=no", "--history-file=no", "-e", "using LanguageServer; runserver()"}, Language: "julia",
			Extensions:  []string{"jl"},
			RootMarkers: []string{"Project.toml", "JuliaProject.toml", ".git"},
			Timeouts:    Timeouts{Initialize: Duration(3 * time.Minute)}, // it compiles itself on its first start
			Install:     everywhere(`julia -e "using Pkg; Pkg.add(\"LanguageServer\")"`),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "vim-language-server", Command: "vim-language-server", Args: []string{"--stdio"}, Language: "vim",
			Extensions:  []string{"vim"},
			Filenames:   []string{".vimrc", "_vimrc"},
			RootMarkers: []string{".git"},
			Install:     everywhere("npm install -g vim-language-server@2.3.1"),
		},
		// Functional languages.
		{
			Name: "elixir-ls", Command: "elixir-ls", Language: "elixir",
			Extensions: []string{"ex", "exs", "heex", "eex"},
			// It builds the project on start (mix compile) and reports
			// no progress while it does; its log line at the build's end
			// is what its own tests wait for ("Mix project load took"
			// with autoBuild off).
			Loading:     LoadSignals{DoneLog: `^(Compile|Mix project load) took \d+ milliseconds`},
			LanguageIDs: map[string]string{"heex": "phoenix-heex", "eex": "eex"},
			RootMarkers: []string{"mix.exs", ".git"},
			Install: Install{
				Linux:   "brew install elixir-ls",
				Darwin:  "brew install elixir-ls",
				Windows: "scoop install extras/elixir-ls",
			},
		},
		{
			Name: "haskell-language-server", Command: "haskell-language-server-wrapper", Args: []string{"--lsp"}, Language: "haskell",
			Extensions:  []string{"hs", "lhs"},
			LanguageIDs: map[string]string{"lhs": "lhaskell"},
			RootMarkers: []string{"hie.yaml", "cabal.project", "stack.yaml", "package.yaml", "*.cabal", ".git"},
			Install:     everywhere("ghcup install hls"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "ocamllsp", Command: "ocamllsp", Language: "ocaml",
			Extensions:  []string{"ml", "mli", "mll", "mly"},
			LanguageIDs: map[string]string{"mli": "ocaml.interface", "mll": "ocaml.ocamllex", "mly": "ocaml.menhir"},
			RootMarkers: []string{"dune-project", "dune-workspace", "*.opam", "esy.json", ".git"},
			Install:     everywhere("opam install ocaml-lsp-server"),
			VersionArgs: []string{"--version"},
		},
		{
			Name: "gleam", Command: "gleam", Args: []string{"lsp"}, Language: "gleam",
			Extensions:  []string{"gleam"},
			RootMarkers: []string{"gleam.toml", ".git"},
			Install: Install{
				Linux:   "brew install gleam",
				Darwin:  "brew install gleam",
				Windows: "scoop install gleam",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "elm-language-server", Command: "elm-language-server", Language: "elm",
			Extensions:  []string{"elm"},
			RootMarkers: []string{"elm.json", ".git"},
			Install:     everywhere("npm install -g @elm-tooling/elm-language-server@2.8.0 elm elm-format"),
			VersionArgs: []string{"--version"},
		},
		// Systems languages.
		{
			Name: "zls", Command: "zls", Language: "zig",
			Extensions:  []string{"zig", "zon"},
			RootMarkers: []string{"build.zig", "build.zig.zon", ".git"},
			Install: Install{
				Linux:   "brew install zls",
				Darwin:  "brew install zls",
				Windows: "winget install zigtools.zls",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "nimlangserver", Command: "nimlangserver", Language: "nim",
			Extensions:  []string{"nim", "nims", "nimble"},
			RootMarkers: []string{"*.nimble", "nim.cfg", ".git"},
			Install:     everywhere("nimble install nimlangserver"),
		},
		{
			Name: "dart", Command: "dart", Args: []string{"language-server", "--protocol=lsp"}, Language: "dart",
			Extensions:  []string{"dart"},
			RootMarkers: []string{"pubspec.yaml", ".git"},
			Install: Install{
				Linux:   "apt-get install -y dart",
				Darwin:  "brew install dart-lang/dart/dart",
				Windows: "choco install dart-sdk",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "solidity-language-server", Command: "nomicfoundation-solidity-language-server", Args: []string{"--stdio"}, Language: "solidity",
			Extensions:  []string{"sol"},
			RootMarkers: []string{"hardhat.config.ts", "hardhat.config.js", "foundry.toml", "remappings.txt", ".git"},
			Install:     everywhere("npm install -g @nomicfoundation/solidity-language-server@0.8.4"),
		},
		// Documents.
		{
			Name: "texlab", Command: "texlab", Language: "latex",
			Extensions:  []string{"tex", "sty", "cls", "bib"},
			LanguageIDs: map[string]string{"bib": "bibtex"},
			RootMarkers: []string{".latexmkrc", "latexmkrc", "Tectonic.toml", ".texlabroot", ".git"},
			Install: Install{
				Linux:   "cargo install --locked texlab",
				Darwin:  "brew install texlab",
				Windows: "winget install latex-lsp.texlab",
			},
			VersionArgs: []string{"--version"},
		},
		// Nix: nixd first, nil next. Neither runs on Windows itself.
		{
			Name: "nixd", Command: "nixd", Language: "nix",
			Extensions:  []string{"nix"},
			RootMarkers: []string{"flake.nix", "default.nix", "shell.nix", ".git"},
			Install: Install{
				Linux:   "nix profile install nixpkgs#nixd",
				Darwin:  "nix profile install nixpkgs#nixd",
				Windows: "wsl nix profile install nixpkgs#nixd",
			},
			VersionArgs: []string{"--version"},
		},
		{
			Name: "nil", Command: "nil", Language: "nix", Priority: 10,
			Extensions:  []string{"nix"},
			RootMarkers: []string{"flake.nix", "default.nix", "shell.nix", ".git"},
			Install: Install{
				Linux:   "nix profile install nixpkgs#nil",
				Darwin:  "nix profile install nixpkgs#nil",
				Windows: "wsl nix profile install nixpkgs#nil",
			},
			VersionArgs: []string{"--version"},
		},
	}
}

// tsExtensions are the files the TypeScript and JavaScript servers serve.
func tsExtensions() []string {
	return []string{"ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"}
}

// tsLanguageIDs are their languageIds.
func tsLanguageIDs() map[string]string {
	return map[string]string{
		"ts": "typescript", "mts": "typescript", "cts": "typescript", "tsx": "typescriptreact",
		"js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascriptreact",
	}
}

// cExtensions are the files the C-family servers serve.
func cExtensions() []string {
	return []string{"c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "m", "mm"}
}

// cLanguageIDs are their languageIds; "h" stays c.
func cLanguageIDs() map[string]string {
	return map[string]string{
		"cc": "cpp", "cpp": "cpp", "cxx": "cpp", "c++": "cpp", "hpp": "cpp", "hh": "cpp", "hxx": "cpp", "h++": "cpp",
		"m": "objective-c", "mm": "objective-cpp",
	}
}
