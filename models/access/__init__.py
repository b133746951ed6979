"""Who may use the dashboard and what each role sees: the roles, and which addresses are this machine's own.

No Streamlit here: the `banco` commands and the dashboard share these rules.
"""

from __future__ import annotations

import ipaddress
from enum import StrEnum


class Role(StrEnum):
    """What a signed-in user may see."""

    VIEWER = "viewer"  # every page but the SQL console
    ANALYST = "analyst"  # every page


class AccessError(ValueError):
    """Sign-in is configured wrongly, or a users file cannot be used: one line saying what to fix."""


def role(text: str) -> Role:
    try:
        return Role(text)
    except ValueError:
        raise AccessError(f"no role {text!r}: a role is {' or '.join(Role)}") from None


def loopback(address: str) -> bool:
    """Whether an address to listen on reaches this machine only (127.0.0.0/8, ::1, localhost)."""
    if address.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:  # another host name: it may resolve to any interface
        return False
