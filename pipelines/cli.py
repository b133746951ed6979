"""The `banco` command line: argument parsing, dispatch, and the one place user errors are printed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from models.settings import Settings
from models.warehouse.store import WarehouseError
from pipelines.commands import (
    bench,
    build,
    cluster,
    dashboard,
    ingest,
    migrate,
    odds,
    report,
    simulate,
    sql,
    systems,
    up,
    users,
)
from pipelines.services import ServiceError

COMMANDS = {
    "up": up,
    "simulate": simulate,
    "ingest": ingest,
    "build": build,
    "migrate": migrate,
    "sql": sql,
    "report": report,
    "odds": odds,
    "systems": systems,
    "dashboard": dashboard,
    "users": users,
    "bench": bench,
    "cluster": cluster,
}


class UserError(Exception):
    """A mistake the user can fix: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UserError(f"{message} (see '{self.prog} --help')")


def build_parser(settings: Settings) -> argparse.ArgumentParser:
    """The command line, its flags defaulting from `settings` (which every command is also given, as
    `args.settings`)."""
    parser = _Parser(prog="banco", description="Banco Analytics: baccarat-family analytics.")
    parser.set_defaults(settings=settings)
    common = _Parser(add_help=False)
    common.add_argument("--db", default=str(settings.db), help="warehouse file (default: $BANCO_DB or %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, module in COMMANDS.items():
        module.add_arguments(commands.add_parser(name, parents=[common], help=module.__doc__), settings)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser(Settings.from_env()).parse_args(argv)
        return COMMANDS[args.command].run(args)
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except (UserError, ValueError, OSError, WarehouseError, ServiceError) as error:
        print(f"banco: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
