"""What an alert says and how its sending went: the one shape every rule produces and every channel takes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Message:
    """One rule's new facts, for one set of recipients. `facts` hold the rule's identifying columns
    only (names and amounts stay in the warehouse unless the rule asks for them); every message says
    the gaming day and the snapshot it came from, and links to the dashboard page that shows them."""

    rule: str
    severity: str  # "info", "warning" or "critical"
    subject: str
    facts: tuple[dict[str, Any], ...]
    gaming_day: dt.date | None
    snapshot: str  # the serving snapshot's Iceberg snapshot id(s), as meta.snapshots names them
    link: str  # the dashboard page that shows the facts
    recipients: tuple[str, ...] = ()  # addresses, for a channel that has any (email)
    attachments: tuple[tuple[str, bytes, str], ...] = field(default=())  # (file name, bytes, MIME type)

    def text(self) -> str:
        """The message as plain text: subject, where it came from, one line per fact, the link."""
        day = self.gaming_day.isoformat() if self.gaming_day else "—"
        lines = [self.subject, f"Gaming day {day} · snapshot {self.snapshot} · severity {self.severity}", ""]
        lines += [" · ".join(f"{key} {value}" for key, value in fact.items()) for fact in self.facts]
        return "\n".join([*lines, "", self.link])


@dataclass(frozen=True)
class Delivery:
    """How one message's sending through one channel ended: `ok`, after how many attempts, and a line
    saying what happened (the server's refusal, the receiver's status)."""

    channel: str
    recipients: tuple[str, ...]
    ok: bool
    attempts: int
    detail: str
    sent_at: dt.datetime  # aware, UTC

    def result(self) -> str:
        """How it ended, in a few words: "sent", or "failed after 3 attempt(s): <the last reply>"."""
        return "sent" if self.ok else f"failed after {self.attempts} attempt(s): {self.detail}"


class Channel(Protocol):
    """A way to tell people: email, a webhook, the warehouse's log. `send` never raises: a channel that
    is down is retried with backoff and its failure comes back as a Delivery with ok False."""

    name: str

    def send(self, message: Message) -> Delivery: ...
