"""The users file: argon2id hashes written 0600 and read back, every malformed file refused, and a
wrong name or password telling nothing about which it was."""

from __future__ import annotations

import stat

import pytest

from models.access import AccessError, Role, loopback, users

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def alice() -> users.User:
    return users.User("alice", Role.ANALYST, users.hashed(PASSWORD))


def test_a_written_file_reads_back_owner_only_with_argon2id_hashes(tmp_path, alice):
    path = tmp_path / "deep" / "users.toml"
    vic = users.User("vic.tor@example.com", Role.VIEWER, users.hashed("another long one"))
    users.write(path, {alice.name: alice, vic.name: vic})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert users.read(path) == {alice.name: alice, vic.name: vic}
    text = path.read_text()
    assert PASSWORD not in text and alice.password.startswith("$argon2id$")
    assert [p.name for p in path.parent.iterdir()] == ["users.toml"]  # no temporary file left behind


def test_the_right_password_signs_in_and_any_wrong_one_does_not(alice):
    known = {alice.name: alice}
    assert users.authenticate(known, "alice", PASSWORD) == alice
    assert users.authenticate(known, "alice", PASSWORD + "!") is None
    assert users.authenticate(known, "alice", "") is None
    assert users.authenticate(known, "mallory", PASSWORD) is None  # verified against a decoy all the same


def test_a_short_password_or_a_bad_name_is_refused():
    with pytest.raises(AccessError, match="at least 12"):
        users.hashed("short")
    for name in ("", "-dash", "with space", 'quo"te', "x" * 65, "a]b"):
        with pytest.raises(AccessError, match="user name"):
            users.checked_name(name)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[users.alice\n", "cannot be read"),
        ('[users.alice]\nrole = "analyst"\n', "needs a valid name"),
        ('[users.alice]\nrole = "admin"\npassword = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA"\n', "no role"),
        ('[users.alice]\nrole = "analyst"\npassword = "hunter2-in-plain-text"\n', "no argon2 hash"),
        ('[users.alice]\nrole = "analyst"\npassword = "$argon2id$x"\nadmin = true\n', "needs a valid name"),
        ('[users."bad name"]\nrole = "analyst"\npassword = "$argon2id$x"\n', "needs a valid name"),
        ("[settings]\nopen = true\n", r"only \[users.NAME\]"),
        (b"\xff\xfe".decode("latin-1"), "cannot be read"),
    ],
)
def test_a_malformed_users_file_is_refused_in_one_line(tmp_path, text, says):
    path = tmp_path / "users.toml"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(AccessError, match=says) as refused:
        users.read(path)
    assert "\n" not in str(refused.value)


def test_a_missing_file_says_how_to_make_one(tmp_path):
    with pytest.raises(AccessError, match="banco users add"):
        users.read(tmp_path / "none.toml")


def test_the_setting_names_the_file_unless_empty(tmp_path):
    assert users.path_from({users.SETTING: str(tmp_path / "u.toml")}) == tmp_path / "u.toml"
    assert users.path_from({users.SETTING: " "}) is None and users.path_from({}) is None


@pytest.mark.parametrize(("address", "mine"), [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
    ("[::1]", True), ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.0.2.7", False),
    ("banco.example.com", False)])  # fmt: skip
def test_only_this_machines_addresses_are_loopback(address, mine):
    assert loopback(address) is mine
