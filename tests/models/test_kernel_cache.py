"""Where numba keeps the compiled kernels: a folder per version of the code, or the user's choice."""

import os
import subprocess
import sys
from pathlib import Path

from models.code_version import code_digest, tree_digest
from models.kernel_cache import kernel_cache_folder

ASK = "import os, models; print(os.environ['NUMBA_CACHE_DIR'])"


def _folder(env: dict) -> Path:
    done = subprocess.run([sys.executable, "-c", ASK], capture_output=True, text=True, env=env, check=True)
    return Path(done.stdout.strip())


def test_the_folder_is_named_by_the_code_and_lies_in_the_environment():
    folder = kernel_cache_folder()
    assert folder.name == code_digest() and folder.is_relative_to(Path(sys.prefix))
    assert _folder({k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}) == folder


def test_a_folder_of_the_users_choosing_stands_and_one_inherited_from_another_version_does_not(tmp_path):
    assert _folder({**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}) == tmp_path
    older = kernel_cache_folder().with_name("0123456789abcdef")  # what a process of other code set
    assert _folder({**os.environ, "NUMBA_CACHE_DIR": str(older)}) == kernel_cache_folder()


def test_the_digest_changes_with_any_module_and_names_only_the_parts_asked(tmp_path):
    (tmp_path / "odds").mkdir()
    (tmp_path / "odds" / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    whole, odds = tree_digest(tmp_path), tree_digest(tmp_path, ("odds",))
    (tmp_path / "b.py").write_text("y = 2\n")
    assert tree_digest(tmp_path) != whole and tree_digest(tmp_path, ("odds",)) == odds
    (tmp_path / "odds" / "a.py").write_text("x = 2\n")
    assert tree_digest(tmp_path, ("odds",)) != odds
