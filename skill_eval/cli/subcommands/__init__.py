"""One module per subcommand with logic of its own (plan, status, inspect, init, compare and
bless). Imported by cli.commands and cli.runflow."""
