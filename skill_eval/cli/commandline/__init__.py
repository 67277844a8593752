"""The command line's parts: each command as a descriptor in one registry (``command``) and each
command's arguments (``arguments``). Imported by cli.main; the commands themselves
(cli/commands.py, cli/subcommands/) never import it."""
