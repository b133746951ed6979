"""Which sign-in a site has configured: a users file, an identity provider, both or neither; and the
one rule of exposure: the dashboard answers beyond this machine only when sign-in is required."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.access import AccessError, loopback, oidc, users

NEEDS_SIGNIN = (
    "the dashboard shows every wager: to serve it on {address}, configure sign-in first "
    "(BANCO_USERS_FILE and `banco users add NAME --role ROLE`, or [auth] in .streamlit/secrets.toml; "
    "see docs/dashboard.md)"
)


@dataclass(frozen=True)
class Signin:
    users_file: Path | None = None
    oidc: oidc.Oidc | None = None

    @property
    def required(self) -> bool:
        return self.users_file is not None or self.oidc is not None

    def check_exposure(self, address: str) -> None:
        """Refuse to serve on any address but this machine's own unless sign-in is required."""
        if not self.required and not loopback(address):
            raise AccessError(NEEDS_SIGNIN.format(address=address))


def configured(env: Mapping[str, str] = os.environ, secrets: Mapping[str, Any] | None = None) -> Signin:
    """The sign-in `env` (BANCO_USERS_FILE) and `secrets` (secrets.toml's tables) configure; a users
    file that cannot be used, or no user in it, is an AccessError, as is an incomplete `[auth]`."""
    path = users.path_from(env)
    if path is not None and not users.read(path):
        raise AccessError(f"users file {path} holds no user: add one with `banco users add NAME --role ROLE`")
    return Signin(path, oidc.configured(secrets or {}))
