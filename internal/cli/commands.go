package cli

// commands lists every subcommand. Each lives in its own file.
func commands() []Command {
	return []Command{
		&versionCmd{},
		&agentCmd{},
		&mcpBridgeCmd{},
		&runCmd{},
		&proxyCmd{},
		&conductorCmd{},
		&configCmd{},
		&trustCmd{},
		&doctorCmd{},
		&demoCmd{},
		&serversCmd{},
	}
}

// hiddenCommands are run by acp-lsp itself and left out of the help.
func hiddenCommands() []Command {
	return []Command{&hostCmd{}}
}
