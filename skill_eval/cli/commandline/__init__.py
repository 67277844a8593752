"""The command line's parts: each command's arguments (``arguments``). Imported by cli.main
only; the commands themselves (cli/commands.py, cli/subcommands/) never import it."""
