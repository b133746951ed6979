"""`banco dashboard`: the Streamlit command it runs (shared with `banco up`), serving, and bad arguments."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pipelines.commands.dashboard import APP, streamlit_command

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def test_streamlit_command_serves_the_app_on_the_port_for_the_warehouse(tmp_path):
    argv, env = streamlit_command(tmp_path / "w.duckdb", 8642)
    assert argv[1:5] == ["-m", "streamlit", "run", str(APP)] and APP.exists()
    assert argv[argv.index("--server.port") + 1] == "8642"
    assert argv[argv.index("--client.toolbarMode") + 1] == "viewer"  # analysts get no Deploy button
    assert env["BANCO_DB"] == str((tmp_path / "w.duckdb").resolve())


def test_banco_dashboard_serves_until_stopped(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [BANCO, "dashboard", "--db", str(tmp_path / "none.duckdb"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                    assert answer.read() == b"ok"
                    break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the dashboard did not come up"
                time.sleep(0.3)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    assert f"http://localhost:{port}" in out


def test_a_bad_port_is_one_line():
    result = subprocess.run([BANCO, "dashboard", "--port", "70000"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "port" in result.stderr
