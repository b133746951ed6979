"""The throttle of failed sign-ins: its waits, its counts kept in a file that a new throttle (a new session,
a restart, another process) reads back, and tries made at once held up before their passwords are verified."""

from __future__ import annotations

import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from models.access import AccessError, Role, users
from models.access.throttle import Throttle, Throttled, beside

PASSWORD = "ana's long password"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def known() -> dict[str, users.User]:
    return {"ana": users.User("ana", Role.ANALYST, users.hashed(PASSWORD))}


def test_failures_past_the_free_ones_wait_twice_as_long_each_up_to_the_limit(tmp_path):
    throttle = Throttle(tmp_path / "failures.sqlite", free=3, longest=30.0)
    for _ in range(3):
        assert throttle.wait("name:ana", 100.0) == 0.0
        throttle.failed("name:ana", 100.0)
    assert throttle.wait("name:ana", 100.0) == 1.0 and throttle.wait("name:ana", 101.0) == 0.0
    throttle.failed("name:ana", 101.0)
    assert throttle.wait("name:ana", 101.0) == 2.0
    for _ in range(20):
        throttle.failed("name:ana", 200.0)
    assert throttle.wait("name:ana", 200.0) == 30.0
    assert throttle.wait("name:vic", 200.0) == 0.0  # another key is not held up
    throttle.cleared("name:ana")
    assert throttle.wait("name:ana", 200.0) == 0.0


def test_the_throttle_keeps_a_bounded_number_of_keys(tmp_path):
    throttle = Throttle(tmp_path / "failures.sqlite", free=0, keys=100)
    for number in range(1_000):
        throttle.failed(f"name:{number}", 0.0)
    assert throttle.wait("name:999", 0.0) > 0 and throttle.wait("name:0", 0.0) == 0.0


def test_a_key_quiet_for_long_starts_afresh_and_a_clock_set_back_waits_no_longer(tmp_path):
    throttle = Throttle(tmp_path / "failures.sqlite", free=3, longest=30.0, forget=900.0)
    for _ in range(10):
        throttle.failed("client:192.0.2.1", 1_000.0)
    assert throttle.wait("client:192.0.2.1", 1_000.0) == 30.0
    assert throttle.wait("client:192.0.2.1", 0.0) == 30.0  # the clock went back 1000 s: no 1030 s wait
    assert throttle.wait("client:192.0.2.1", 1_901.0) == 0.0
    throttle.failed("client:192.0.2.1", 1_901.0)  # counted from one again
    assert throttle.wait("client:192.0.2.1", 1_901.0) == 0.0


def test_the_counts_outlive_the_throttle_and_its_process(tmp_path):
    path = beside(tmp_path / "users.toml")
    assert path == tmp_path / "users.failures.sqlite"
    for _ in range(5):
        Throttle(path).failed("name:ana", 100.0)  # each a new object, as each session, or a restart, makes
    assert Throttle(path).wait("name:ana", 100.0) == 4.0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # who tried which name from where
    code = "import sys, pathlib; from models.access.throttle import Throttle; "
    code += "print(Throttle(pathlib.Path(sys.argv[1])).wait('name:ana', 100.0))"
    other = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True, text=True)
    assert other.returncode == 0 and other.stdout.strip() == "4.0", other.stderr


def test_ten_tries_at_once_are_held_up_before_their_passwords_are_verified(tmp_path, known):
    throttle, start = Throttle(tmp_path / "failures.sqlite"), threading.Barrier(10)
    outcomes: list[object] = []

    def guess(number: int) -> None:
        start.wait()
        try:
            outcomes.append(throttle.authenticate(known, "ana", f"guess {number}", client=f"192.0.2.{number}"))
        except (Throttled, AccessError) as outcome:  # an AccessError fails the count below, and says why
            outcomes.append(outcome)

    threads = [threading.Thread(target=guess, args=(number,)) for number in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    verified = [outcome for outcome in outcomes if outcome is None]
    held = [outcome for outcome in outcomes if isinstance(outcome, Throttled)]
    assert len(verified) == throttle.free and len(held) == 10 - throttle.free, outcomes  # the free tries, no more
    assert all(0 < outcome.wait <= 1.0 for outcome in held)
    with pytest.raises(Throttled):  # the right password waits too
        throttle.authenticate(known, "ana", PASSWORD, client="198.51.100.7")


def test_one_client_spraying_names_is_held_up_and_the_right_password_gives_back_its_own_try(tmp_path, known):
    throttle = Throttle(tmp_path / "failures.sqlite")
    for name in ("bob", "carol", "dave"):
        assert throttle.authenticate(known, name, "a guess", client="192.0.2.1") is None
    with pytest.raises(Throttled):
        throttle.authenticate(known, "erin", "a guess", client="192.0.2.1")
    assert throttle.authenticate(known, "erin", "a guess", client="192.0.2.2") is None  # another client
    now = time.time()
    assert throttle.wait("client:192.0.2.1", now + 1.0) == 0.0
    time.sleep(max(0.0, 1.05 - (time.time() - now)))
    assert throttle.authenticate(known, "ana", PASSWORD, client="192.0.2.1") == known["ana"]
    assert throttle.wait("name:ana", time.time()) == 0.0  # the name's failures cleared
    assert throttle.wait("client:192.0.2.1", time.time()) > 0  # the client's earlier three still count


def test_a_store_that_cannot_be_written_refuses_in_one_line(tmp_path, known):
    throttle = Throttle(tmp_path / "missing" / "failures.sqlite")
    with pytest.raises(AccessError, match="failed sign-ins cannot be counted in") as refused:
        throttle.authenticate(known, "ana", PASSWORD, client="192.0.2.1")
    assert "\n" not in str(refused.value)
