"""Sign-in through a site's identity provider (Streamlit's st.login, OpenID Connect): whether the
`[auth]` settings in `.streamlit/secrets.toml` are complete, and the role each e-mail address has.

    [auth]
    redirect_uri = "https://banco.example.com/oauth2callback"
    cookie_secret = "..."                  # at least 32 random characters
    client_id = "..."
    client_secret = "..."
    server_metadata_url = "https://idp.example.com/.well-known/openid-configuration"

    [banco.roles]                          # only these addresses get in
    "ana@example.com" = "analyst"
    "vic@example.com" = "viewer"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models.access import AccessError, Role, role

SHARED = ("redirect_uri", "cookie_secret")
PROVIDER = ("client_id", "client_secret", "server_metadata_url")
SHORTEST_COOKIE_SECRET = 32


@dataclass(frozen=True)
class Oidc:
    """The providers to offer (None: the one configured in `[auth]` itself) and who gets which role."""

    providers: tuple[str | None, ...]
    roles: Mapping[str, Role]

    def role_of(self, claims: Mapping[str, Any]) -> Role | None:
        """The role of a signed-in user from their identity token's claims: by their e-mail address,
        unless the provider says it is not verified."""
        email = claims.get("email")
        if not isinstance(email, str) or claims.get("email_verified") is False:
            return None
        return self.roles.get(email.strip().lower())


def configured(secrets: Mapping[str, Any]) -> Oidc | None:
    """The identity-provider sign-in that `secrets` (secrets.toml's tables) configure, None without
    an `[auth]` table; an incomplete one is an AccessError naming what is missing."""
    auth = secrets.get("auth")
    if auth is None:
        return None
    if not isinstance(auth, Mapping):
        raise AccessError("[auth] in secrets.toml must be a table")
    missing = [key for key in SHARED if not auth.get(key)]
    if missing:
        raise AccessError(f"[auth] in secrets.toml lacks {', '.join(missing)}")
    if not str(auth["redirect_uri"]).endswith("/oauth2callback"):
        raise AccessError("[auth] redirect_uri in secrets.toml must be the dashboard's address + /oauth2callback")
    if len(str(auth["cookie_secret"])) < SHORTEST_COOKIE_SECRET:
        raise AccessError(
            f"[auth] cookie_secret in secrets.toml must be {SHORTEST_COOKIE_SECRET} random characters or more"
        )
    # every other table in [auth] is a named provider ([auth.okta]); client_kwargs is the default one's options
    named = {name: table for name, table in auth.items() if isinstance(table, Mapping) and name != "client_kwargs"}
    providers: list[str | None] = [None] if any(key in auth for key in PROVIDER) else []
    providers += sorted(named)
    for name in providers:
        table = auth if name is None else named[name]
        lacking = [key for key in PROVIDER if not table.get(key)]
        if lacking:
            where = "[auth]" if name is None else f"[auth.{name}]"
            raise AccessError(f"{where} in secrets.toml lacks {', '.join(lacking)}")
    if not providers:
        raise AccessError(f"[auth] in secrets.toml names no identity provider ({', '.join(PROVIDER)})")
    roles = secrets.get("banco", {}).get("roles", {}) if isinstance(secrets.get("banco"), Mapping) else {}
    if not isinstance(roles, Mapping) or not roles:
        raise AccessError('[banco.roles] in secrets.toml gives no e-mail a role ("ana@example.com" = "analyst")')
    by_email = {}
    for email, text in roles.items():
        try:
            by_email[str(email).strip().lower()] = role(str(text))
        except AccessError as error:
            raise AccessError(f"[banco.roles] {email}: {error}") from None
    return Oidc(tuple(providers), by_email)
