"""Who may sign in to the dashboard: add or change, remove and list the users of the users file."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from models.access import AccessError, Role, role, users
from models.settings import Settings


def _role(text: str) -> Role:
    try:
        return role(text)
    except AccessError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    default = users.path_from()
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--file",
        type=Path,
        default=default,
        help=f"the users file (default: ${users.SETTING}{f', now {default}' if default else ''})",
    )
    actions = parser.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", parents=[where], help="add a user, or change one's password and role")
    add.add_argument("name")
    add.add_argument(
        "--role", type=_role, required=True, help="viewer (every page but the SQL console) or analyst (every page)"
    )
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    remove = actions.add_parser("remove", parents=[where], help="remove a user")
    remove.add_argument("name")
    actions.add_parser("list", parents=[where], help="the users and their roles")


def _password(from_stdin: bool) -> str:
    """The new password: the first line of stdin, or typed twice at a prompt that does not echo it."""
    if from_stdin:
        return sys.stdin.readline().removesuffix("\n").removesuffix("\r")
    if not sys.stdin.isatty():
        raise ValueError("stdin is not a terminal: pass --password-stdin to read the password from it")
    password = getpass.getpass("password: ")
    if getpass.getpass("again: ") != password:
        raise ValueError("the two passwords differ: nothing was changed")
    return password


def run(args: argparse.Namespace) -> int:
    if args.file is None:
        raise ValueError(f"no users file: pass --file PATH or set {users.SETTING}")
    path: Path = args.file
    existing = users.read(path) if path.exists() or args.action != "add" else {}
    if args.action == "list":
        for user in sorted(existing.values(), key=lambda u: u.name):
            print(f"{user.name}\t{user.role}")
        return 0
    name = users.checked_name(args.name)
    if args.action == "remove":
        if name not in existing:
            raise ValueError(f"no user {name!r} in {path}")
        users.write(path, {key: user for key, user in existing.items() if key != name})
        print(f"removed {name} from {path}")
        return 0
    hashed = users.hashed(_password(args.password_stdin))
    users.write(path, existing | {name: users.User(name, args.role, hashed)})
    print(f"{'changed' if name in existing else 'added'} {name} ({args.role}) in {path}")
    return 0
