"""`banco dashboard`: the Streamlit command it runs (shared with `banco up`), the address it listens on,
which needs sign-in beyond this machine, serving, and bad arguments."""

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from models.access import Role, users
from pipelines.commands.dashboard import APP, check_signin, streamlit_command
from tests.dashboards.servers import free_port, running
from tests.models.access.test_signin_settings import AUTH, ROLES
from tests.sockets import listening

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


@pytest.fixture
def clean(tmp_path) -> dict[str, str]:
    """An environment with no sign-in configured: no users file, and a home without a secrets.toml
    (the tests run the command in tmp_path, so no project's .streamlit folder is read either)."""
    env = {key: value for key, value in os.environ.items() if key != users.SETTING}
    (tmp_path / "home").mkdir()
    return env | {"HOME": str(tmp_path / "home")}


@pytest.fixture
def users_file(tmp_path) -> Path:
    path = tmp_path / "users.toml"
    users.write(path, {"ana": users.User("ana", Role.ANALYST, users.hashed("a long enough password"))})
    return path


@contextlib.contextmanager
def serving(argv: list[str], env: dict[str, str], port: int, cwd: Path, log: Path):
    """`argv` started and answering on 127.0.0.1:`port`; its output (kept in `log`) once it is stopped."""
    out: list[str] = []
    with running(argv, env, port, log, cwd=cwd):
        yield out
    out.append(log.read_text())


def test_streamlit_command_serves_the_app_on_loopback_on_the_port_for_the_warehouse(tmp_path):
    argv, env = streamlit_command(tmp_path / "w.duckdb", 8642)
    assert argv[1:5] == ["-m", "streamlit", "run", str(APP)] and APP.exists()
    assert argv[argv.index("--server.port") + 1] == "8642"
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"  # Streamlit's own default is every interface
    assert argv[argv.index("--client.toolbarMode") + 1] == "viewer"  # analysts get no Deploy button
    assert env["BANCO_DB"] == str((tmp_path / "w.duckdb").resolve())
    argv, _ = streamlit_command(tmp_path / "w.duckdb", 8642, "0.0.0.0")
    assert argv[argv.index("--server.address") + 1] == "0.0.0.0"


def test_banco_dashboard_serves_on_this_machine_only_until_stopped(tmp_path, clean):
    port = free_port()
    argv = [BANCO, "dashboard", "--db", str(tmp_path / "none.duckdb"), "--port", str(port)]
    with serving(argv, clean, port, tmp_path, tmp_path / "dashboard.log") as out:
        assert listening(port) == {"127.0.0.1"}
    assert f"http://localhost:{port}" in out[0] and "no sign-in: this machine only" in out[0]


def test_a_bare_streamlit_run_in_the_projects_root_serves_on_this_machine_only(tmp_path, clean):
    port = free_port()  # the root's .streamlit/config.toml, not Streamlit's default of every interface
    argv = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port)]
    with serving(argv, clean, port, APP.parents[1], tmp_path / "dashboard.log"):
        assert listening(port) == {"127.0.0.1"}


def test_binding_beyond_this_machine_without_sign_in_refuses_in_one_line(tmp_path, clean):
    for address in ("0.0.0.0", "banco.example.com"):  # every address, and a name that may resolve anywhere
        result = subprocess.run(
            [BANCO, "dashboard", "--address", address], capture_output=True, text=True, env=clean, cwd=tmp_path
        )
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "configure sign-in first" in result.stderr
        assert "BANCO_USERS_FILE" in result.stderr and "[auth]" in result.stderr


@pytest.mark.slow
def test_banco_up_refuses_the_same_before_materializing_anything(tmp_path, clean):
    landing, db = tmp_path / "landing", tmp_path / "w.duckdb"
    result = subprocess.run(
        [BANCO, "up", "--db", str(db), "--landing", str(landing), "--dashboard-address", "0.0.0.0"],
        capture_output=True,
        text=True,
        env=clean,
        cwd=tmp_path,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "configure sign-in first" in result.stderr
    assert not db.exists() and not landing.exists()  # no demo month dealt, nothing ingested


def test_with_a_users_file_it_serves_beyond_this_machine(tmp_path, clean, users_file):
    port = free_port()
    argv = [BANCO, "dashboard", "--db", str(tmp_path / "none.duckdb"), "--port", str(port), "--address", "0.0.0.0"]
    with serving(argv, clean | {users.SETTING: str(users_file)}, port, tmp_path, tmp_path / "dashboard.log") as out:
        assert listening(port) == {"0.0.0.0"}
    assert "sign-in required" in out[0]


def test_a_users_file_that_cannot_be_used_stops_the_start_even_on_loopback(tmp_path, clean):
    (tmp_path / "broken.toml").write_text('[users.ana]\nrole = "analyst"\npassword = "plain"\n')
    for path, says in ((tmp_path / "none.toml", "no users file at"), (tmp_path / "broken.toml", "no argon2 hash")):
        result = subprocess.run(
            [BANCO, "dashboard"], capture_output=True, text=True, env=clean | {users.SETTING: str(path)}, cwd=tmp_path
        )
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and says in result.stderr


def _secrets_toml(folder: Path, auth: dict) -> None:
    lines = ["[auth]", *(f'{key} = "{value}"' for key, value in auth.items()), "", "[banco.roles]"]
    lines += [f'"{email}" = "{role}"' for email, role in ROLES["banco"]["roles"].items()]
    (folder / ".streamlit").mkdir(parents=True, exist_ok=True)
    (folder / ".streamlit" / "secrets.toml").write_text("\n".join(lines) + "\n")


def test_an_identity_provider_in_secrets_toml_is_sign_in_too(tmp_path, clean, monkeypatch):
    monkeypatch.setenv("HOME", clean["HOME"])
    monkeypatch.delenv(users.SETTING, raising=False)
    monkeypatch.chdir(tmp_path)
    _secrets_toml(tmp_path, AUTH)
    signin = check_signin("0.0.0.0")
    assert signin.required and signin.oidc.providers == (None,) and signin.users_file is None


def test_an_incomplete_auth_table_refuses_in_one_line(tmp_path, clean):
    _secrets_toml(Path(clean["HOME"]), {key: value for key, value in AUTH.items() if key != "cookie_secret"})
    result = subprocess.run([BANCO, "dashboard"], capture_output=True, text=True, env=clean, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "lacks cookie_secret" in result.stderr
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text("[auth\n")
    result = subprocess.run([BANCO, "dashboard"], capture_output=True, text=True, env=clean, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "secrets.toml cannot be read" in result.stderr


def test_a_bad_port_is_one_line():
    result = subprocess.run([BANCO, "dashboard", "--port", "70000"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "port" in result.stderr
