"""The `banco` command line: argument parsing, dispatch, and the one place user errors are printed.

Only the chosen command's module is imported, so a command starts with what it needs and `banco
--help` answers at once: the other commands are listed from their modules' docstrings, read as text
(tests/pipelines/test_cli_imports.py holds what each may load, `banco bench cli` how long it takes).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys
import tokenize
from collections.abc import Sequence
from functools import cache
from types import ModuleType

from models.settings import Settings

#: Every command, in the order `banco --help` lists them: each a module of pipelines/commands/.
COMMANDS = (
    "up",
    "simulate",
    "ingest",
    "build",
    "migrate",
    "sql",
    "report",
    "alerts",
    "export",
    "verify",
    "odds",
    "games",
    "systems",
    "dashboard",
    "users",
    "bench",
    "cluster",
)


class UserError(Exception):
    """A mistake the user can fix: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UserError(f"{message} (see '{self.prog} --help')")


def command(name: str) -> ModuleType:
    """The module of command `name` (imported now, with all it needs)."""
    return importlib.import_module(f"pipelines.commands.{name}")


@cache
def summary(name: str) -> str | None:
    """A command's one-line help, its module's docstring, read without importing the module (or
    parsing more of it than its first token: every command's listing is built on every start)."""
    spec = importlib.util.find_spec(f"pipelines.commands.{name}")
    if not (spec and spec.origin):
        return None
    with tokenize.open(spec.origin) as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type == tokenize.STRING:
                return ast.get_docstring(ast.parse(token.string))
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                return None
    return None


def build_parser(settings: Settings, detailed: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The command line with every command listed and the `detailed` ones' arguments added (all by
    default), their flags defaulting from `settings` (which every command is also given, as
    `args.settings`)."""
    parser = _Parser(prog="banco", description="Banco Analytics: baccarat-family analytics.")
    parser.set_defaults(settings=settings)
    common = _Parser(add_help=False)
    common.add_argument("--db", default=str(settings.db), help="warehouse file (default: $BANCO_DB or %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        sub = commands.add_parser(name, parents=[common], help=summary(name))
        if name in detailed:
            command(name).add_arguments(sub, settings)
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named on the line (the first word that is not an option), if it is one."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in COMMANDS else None


def _user_error(error: BaseException) -> bool:
    """Whether `error` is a mistake to print as one line. A warehouse or service error can only come
    from a command that imported the warehouse or the services, so their classes are looked up only then."""
    kinds: tuple[type[BaseException], ...] = (UserError, ValueError, OSError)
    for module, kind in (("models.warehouse.store", "WarehouseError"), ("pipelines.services", "ServiceError")):
        if module in sys.modules:
            kinds += (getattr(sys.modules[module], kind),)
    return isinstance(error, kinds)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        chosen = _chosen(argv)
        args = build_parser(Settings.from_env(), detailed=(chosen,) if chosen else ()).parse_args(argv)
        return command(args.command).run(args)
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        if not _user_error(error):
            raise
        print(f"banco: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
