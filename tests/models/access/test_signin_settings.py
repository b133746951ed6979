"""Which sign-in is configured, each incomplete configuration refused in one line, the role of an
identity provider's user and the exposure rule."""

from __future__ import annotations

import pytest

from models.access import AccessError, Role, oidc, settings, users

AUTH = {
    "redirect_uri": "https://banco.example.com/oauth2callback",
    "cookie_secret": "s" * 32,
    "client_id": "banco",
    "client_secret": "secret",
    "server_metadata_url": "https://idp.example.com/.well-known/openid-configuration",
}
ROLES = {"banco": {"roles": {"Ana@Example.com": "analyst", "vic@example.com": "viewer"}}}


def test_a_complete_auth_table_with_roles_is_a_provider_sign_in():
    signin = oidc.configured({"auth": AUTH, **ROLES})
    assert signin.providers == (None,)
    assert signin.role_of({"email": "ana@example.com"}) is Role.ANALYST  # addresses compare without case
    assert signin.role_of({"email": "VIC@example.com", "email_verified": True}) is Role.VIEWER
    assert signin.role_of({"email": "vic@example.com", "email_verified": False}) is None
    assert signin.role_of({"email": "eve@example.com"}) is None and signin.role_of({"name": "no e-mail"}) is None


def test_named_providers_are_offered_each():
    shared = {key: AUTH[key] for key in oidc.SHARED} | {"client_kwargs": {"prompt": "login"}}
    provider = {key: AUTH[key] for key in oidc.PROVIDER}
    signin = oidc.configured({"auth": shared | {"okta": provider, "entra": provider}, **ROLES})
    assert signin.providers == ("entra", "okta")


@pytest.mark.parametrize(
    ("secrets", "says"),
    [
        ({"auth": {k: v for k, v in AUTH.items() if k != "cookie_secret"}, **ROLES}, "lacks cookie_secret"),
        ({"auth": AUTH | {"cookie_secret": "short"}, **ROLES}, "32 random characters"),
        ({"auth": AUTH | {"redirect_uri": "https://banco.example.com/"}, **ROLES}, "/oauth2callback"),
        ({"auth": {k: v for k, v in AUTH.items() if k != "client_secret"}, **ROLES}, r"\[auth\] .*lacks client_secret"),
        ({"auth": {k: AUTH[k] for k in oidc.SHARED}, **ROLES}, "names no identity provider"),
        ({"auth": AUTH | {"okta": {"client_id": "x"}}, **ROLES}, r"\[auth.okta\] .*lacks client_secret"),
        ({"auth": AUTH}, r"\[banco.roles\] .*gives no e-mail a role"),
        ({"auth": AUTH, "banco": {"roles": {"ana@example.com": "root"}}}, "no role 'root'"),
        ({"auth": "on"}, "must be a table"),
    ],
)
def test_an_incomplete_provider_configuration_is_refused_in_one_line(secrets, says):
    with pytest.raises(AccessError, match=says) as refused:
        oidc.configured(secrets)
    assert "\n" not in str(refused.value)


def test_no_auth_table_is_no_provider():
    assert oidc.configured({}) is None and oidc.configured({"banco": {"roles": {}}}) is None


def test_beyond_this_machine_only_with_sign_in_required(tmp_path):
    path = tmp_path / "users.toml"
    open_one = settings.configured({}, {})
    assert not open_one.required
    open_one.check_exposure("127.0.0.1")
    with pytest.raises(AccessError, match="configure sign-in first") as refused:
        open_one.check_exposure("0.0.0.0")
    assert "BANCO_USERS_FILE" in str(refused.value) and "[auth]" in str(refused.value)
    users.write(path, {"ana": users.User("ana", Role.ANALYST, users.hashed("a long password"))})
    with_users = settings.configured({users.SETTING: str(path)}, {})
    assert with_users.required and with_users.users_file == path
    with_users.check_exposure("0.0.0.0")
    with_provider = settings.configured({}, {"auth": AUTH, **ROLES})
    assert with_provider.required and with_provider.oidc is not None
    with_provider.check_exposure("192.0.2.7")


def test_a_users_file_that_cannot_be_used_is_an_error_not_an_open_dashboard(tmp_path):
    with pytest.raises(AccessError, match="no users file"):
        settings.configured({users.SETTING: str(tmp_path / "none.toml")}, {})
    users.write(tmp_path / "empty.toml", {})
    with pytest.raises(AccessError, match="holds no user"):
        settings.configured({users.SETTING: str(tmp_path / "empty.toml")}, {})
