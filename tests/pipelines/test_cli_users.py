"""`banco users` as an administrator runs it: adding, changing, listing and removing the dashboard's
users, the file written 0600 with argon2 hashes, and every mistake one line with nothing changed."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from models.access import Role, users
from tests.pipelines.test_cli_dashboard import BANCO


def banco_users(*args: str, password: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BANCO, "users", *args],
        input=password,
        capture_output=True,
        text=True,
        env=env or {key: value for key, value in os.environ.items() if key != users.SETTING},
    )


@pytest.fixture
def path(tmp_path):
    return tmp_path / "users.toml"


@pytest.mark.slow
def test_add_change_list_and_remove(path):
    added = banco_users("add", "ana", "--role", "analyst", "--password-stdin", "--file", str(path),
                        password="first long password\n")  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout == f"added ana (analyst) in {path}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and "first long password" not in path.read_text()
    ana = users.read(path)["ana"]
    assert ana.role is Role.ANALYST and users.authenticate({"ana": ana}, "ana", "first long password") == ana
    env = {**os.environ, users.SETTING: str(path)}  # the setting names the file when --file is not given
    banco_users("add", "vic", "--role", "viewer", "--password-stdin", password="viewer's password\r\n", env=env)
    changed = banco_users(
        "add", "ana", "--role", "viewer", "--password-stdin", password="second long password", env=env
    )
    assert changed.stdout == f"changed ana (viewer) in {path}\n"
    known = users.read(path)
    assert users.authenticate(known, "ana", "first long password") is None
    assert users.authenticate(known, "ana", "second long password").role is Role.VIEWER
    assert users.authenticate(known, "vic", "viewer's password") is not None  # the line ending is not part of it
    assert banco_users("list", env=env).stdout == "ana\tviewer\nvic\tviewer\n"
    removed = banco_users("remove", "vic", "--file", str(path))
    assert removed.returncode == 0 and set(users.read(path)) == {"ana"}


@pytest.mark.parametrize(
    ("args", "password", "says"),
    [
        (("add", "ana", "--role", "admin", "--password-stdin"), "long enough password", "no role 'admin'"),
        (("add", "ana", "--role", "analyst", "--password-stdin"), "short\n", "at least 12 characters"),
        (("add", "bad name", "--role", "analyst", "--password-stdin"), "long enough password", "user name"),
        (("add", "ana", "--role", "analyst"), None, "pass --password-stdin"),  # no terminal to prompt on
        (("remove", "nobody"), None, "no user 'nobody'"),
    ],
)
def test_a_mistake_is_one_line_and_changes_nothing(path, args, password, says):
    users.write(path, {"vic": users.User("vic", Role.VIEWER, users.hashed("vic's password"))})
    before = path.read_bytes()
    result = banco_users(*args, "--file", str(path), password=password)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and says in result.stderr, result.stderr
    assert path.read_bytes() == before


def test_without_a_file_it_says_how_to_name_one():
    result = banco_users("list")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "BANCO_USERS_FILE" in result.stderr
