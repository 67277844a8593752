"""A toy command (tests/test_extending.py): its arguments and what it does, in one module, and
one registration, ``COMMANDS.add(TOY)`` (here ``COMMANDS.temporarily(TOY)``)."""

from __future__ import annotations

import argparse

from skill_eval.cli.commandline.command import Command, Lazy


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("word", metavar="WORD")
    parser.add_argument("--loud", action="store_true", help="say it in capitals")


def run(args: argparse.Namespace) -> int:
    print(args.word.upper() if args.loud else args.word)
    return 0


# As the builtins are listed: lazy references, so `skill-eval --help` imports nothing of it.
TOY = Command("echo-word", "say WORD back (a toy command)", Lazy("toy_command:arguments"),
              Lazy("toy_command:run"))
