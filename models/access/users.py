"""The dashboard's users file: names, roles and argon2id password hashes in TOML, at BANCO_USERS_FILE.

    [users."alice"]
    role = "analyst"
    password = "$argon2id$v=19$m=65536,t=3,p=4$..."

Written by `banco users`, never by hand: the hashes come from argon2-cffi, and the file is 0600.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from models.access import AccessError, Role, role

SETTING = "BANCO_USERS_FILE"
LONGEST_NAME = 64
NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._@-]{{0,{LONGEST_NAME - 1}}}")
#: An argon2 hash in its PHC form: nothing in it needs quoting in TOML.
HASH = re.compile(r"\$argon2(id|i|d)\$[A-Za-z0-9$=,+/.-]+")
SHORTEST_PASSWORD = 12
#: argon2-cffi's defaults: argon2id with the RFC 9106 low-memory profile (64 MiB, 3 passes).
HASHER = PasswordHasher()


@dataclass(frozen=True)
class User:
    name: str
    role: Role
    password: str  # the argon2 hash, never the password


def path_from(env: Mapping[str, str] = os.environ) -> Path | None:
    """The users file the environment names, if any (an empty setting names none)."""
    value = env.get(SETTING, "").strip()
    return Path(value) if value else None


def checked_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise AccessError(
            f"a user name is 1 to 64 letters, digits or . _ @ - and starts with a letter or digit: {name!r}"
        )
    return name


def hashed(password: str) -> str:
    """The argon2id hash of a new password, once it is long enough."""
    if len(password) < SHORTEST_PASSWORD:
        raise AccessError(f"a password has at least {SHORTEST_PASSWORD} characters")
    return HASHER.hash(password)


def read(path: Path) -> dict[str, User]:
    """Every user in the file, by name; a file that is missing, unreadable or holds anything but
    well-formed users is an AccessError (sign-in fails closed)."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AccessError(f"no users file at {path}: add a user with `banco users add NAME --role ROLE`") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise AccessError(f"users file {path} cannot be read: {error}") from None
    entries = document.get("users", {})
    if not isinstance(entries, dict) or set(document) - {"users"}:
        raise AccessError(f"users file {path}: only [users.NAME] tables belong in it")
    users = {}
    for name, entry in entries.items():
        if not NAME.fullmatch(name) or not isinstance(entry, dict) or set(entry) != {"role", "password"}:
            raise AccessError(f"users file {path}: user {name!r} needs a valid name, a role and a password hash only")
        if not isinstance(entry["password"], str) or not HASH.fullmatch(entry["password"]):
            raise AccessError(f"users file {path}: user {name!r} has no argon2 hash (set it with `banco users add`)")
        try:
            users[name] = User(name, role(str(entry["role"])), entry["password"])
        except AccessError as error:
            raise AccessError(f"users file {path}: user {name!r}: {error}") from None
    return users


def write(path: Path, users: Mapping[str, User]) -> None:
    """Replace the file with `users` at once (a reader sees the old file or the new, never half),
    readable by its owner only."""
    lines = ["# Dashboard users (BANCO_USERS_FILE), written by `banco users`: argon2id hashes, never passwords."]
    for user in sorted(users.values(), key=lambda u: u.name):
        checked_name(user.name)
        if not HASH.fullmatch(user.password):
            raise AccessError(f"user {user.name!r}: not an argon2 hash")
        lines += ["", f'[users."{user.name}"]', f'role = "{user.role}"', f'password = "{user.password}"']
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # created 0600
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    os.chmod(path, 0o600)


@functools.cache
def _decoy() -> str:
    return HASHER.hash(secrets.token_urlsafe(16))


def authenticate(users: Mapping[str, User], name: str, password: str) -> User | None:
    """The user whose name and password these are, else None. An unknown name is verified against a
    decoy hash, so it takes as long as a wrong password and says no more."""
    user = users.get(name)
    try:
        HASHER.verify(user.password if user else _decoy(), password)
    except (VerificationError, InvalidHashError):
        return None
    return user
