"""The channels a casino already runs: email over SMTP and a signed webhook, each retried with backoff
and never raising. Credentials come from the environment only (models/settings.py). docs/alerts.md."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import smtplib
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import TYPE_CHECKING

from models.alerts.message import Channel, Delivery, Message

if TYPE_CHECKING:
    from models.settings import Settings

SIGNATURE_HEADER = "X-Banco-Signature"
TIMESTAMP_HEADER = "X-Banco-Timestamp"
_SMTP_PORTS = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}
_RETRIED_HTTP = {408, 425, 429}  # the 4xx that may pass on a later try; every other 4xx will not


@dataclass(frozen=True)
class Retry:
    """How often a channel tries and how long it waits: `delay` seconds before the second attempt,
    multiplied by `factor` before each further one."""

    attempts: int = 3
    delay: float = 1.0
    factor: float = 2.0
    timeout: float = 10.0  # seconds a connection or a reply may take


class _Permanent(Exception):
    """A refusal that will not change on a later try (a 5xx SMTP reply, an HTTP 403)."""


class _Transient(Exception):
    """A refusal that may pass on a later try (a 4xx SMTP reply, an HTTP 503), said as the server said it."""


def _line(text: object, limit: int = 300) -> str:
    """One line of at most `limit` characters, for a Delivery's detail."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _deliver(name: str, recipients: tuple[str, ...], retry: Retry, attempt: Callable[[], str]) -> Delivery:
    """Call `attempt` until it returns (its detail) or fails for good; what happened, never an exception."""
    tries, detail, ok = 0, "not tried", False
    while tries < max(retry.attempts, 1):
        if tries:
            time.sleep(retry.delay * retry.factor ** (tries - 1))
        tries += 1
        try:
            detail, ok = _line(attempt()), True
            break
        except _Permanent as refusal:
            detail = _line(refusal)
            break
        except _Transient as refusal:
            detail = _line(refusal)
        except Exception as error:  # a channel that is down must not fail the pipeline: record it, retry
            detail = _line(f"{type(error).__name__}: {error}")
    return Delivery(name, recipients, ok, tries, detail, dt.datetime.now(dt.UTC))


class Email:
    """Email over SMTP: `smtp://host:port` (plain, a loopback relay), `smtp+starttls://user:password@host:587`
    or `smtps://user:password@host:465`; user and password percent-encoded in the URL. To: the message's
    recipients; attachments as given."""

    name = "email"

    def __init__(self, url: str, sender: str, *, retry: Retry = Retry(), context: ssl.SSLContext | None = None):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in _SMTP_PORTS or not parts.hostname:
            raise ValueError("BANCO_SMTP_URL must be smtp://host:port, smtp+starttls://… or smtps://…")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or _SMTP_PORTS[parts.scheme]
        self._user = urllib.parse.unquote(parts.username or "")
        self._password = urllib.parse.unquote(parts.password or "")
        self.sender, self.retry = sender, retry
        self._context = context or ssl.create_default_context()  # verifies the server's certificate

    def __repr__(self) -> str:  # never the password
        return f"Email({self.scheme}://{self.host}:{self.port}, from {self.sender})"

    def compose(self, message: Message) -> EmailMessage:
        """The email as sent: subject, the message's text as body, its attachments."""
        mail = EmailMessage()
        mail["Subject"] = _line(message.subject, 200)  # one line: a newline would end the header
        mail["From"] = self.sender
        mail["To"] = ", ".join(message.recipients)
        mail["Date"] = formatdate(localtime=False)
        mail["Message-ID"] = make_msgid(domain=self.sender.rpartition("@")[2] or None)
        mail.set_content(message.text())
        for filename, data, mime in message.attachments:
            maintype, _, subtype = mime.partition("/")
            mail.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream", filename=filename)
        return mail

    def send(self, message: Message) -> Delivery:
        """Send to the message's recipients; retried on a dropped connection or a 4xx reply."""
        if not message.recipients:
            return Delivery(self.name, (), False, 0, "no recipients", dt.datetime.now(dt.UTC))
        try:
            mail = self.compose(message)
        except Exception as error:  # a malformed attachment type: say so, send nothing
            return Delivery(self.name, message.recipients, False, 0, _line(error), dt.datetime.now(dt.UTC))
        return _deliver(self.name, message.recipients, self.retry, lambda: self._attempt(mail, message.recipients))

    def _attempt(self, mail: EmailMessage, recipients: tuple[str, ...]) -> str:
        try:
            if self.scheme == "smtps":
                smtp = smtplib.SMTP_SSL(self.host, self.port, timeout=self.retry.timeout, context=self._context)
            else:
                smtp = smtplib.SMTP(self.host, self.port, timeout=self.retry.timeout)
            with smtp:
                if self.scheme == "smtp+starttls":
                    smtp.starttls(context=self._context)
                if self._user:
                    smtp.login(self._user, self._password)
                refused = smtp.send_message(mail)
        except smtplib.SMTPRecipientsRefused as error:  # every recipient refused
            raise _Permanent(_refused(error.recipients)) from None
        except smtplib.SMTPResponseException as error:  # a reply: 5xx stays, 4xx may pass later
            reply = f"SMTP {error.smtp_code} {_text(error.smtp_error)}"
            if error.smtp_code >= 500:
                raise _Permanent(reply) from None
            raise _Transient(reply) from None
        except smtplib.SMTPNotSupportedError as error:  # no STARTTLS or AUTH offered: a setting to fix
            raise _Permanent(f"SMTP: {error}") from None
        except ssl.SSLCertVerificationError as error:  # a certificate that will not verify now will not later
            raise _Permanent(f"TLS: {error.verify_message or error}") from None
        if refused:  # some accepted: a retry would send them a second copy, so this is final
            raise _Permanent(f"accepted for {len(recipients) - len(refused)}; {_refused(refused)}")
        return f"sent to {len(recipients)} recipient(s) via {self.host}:{self.port}"


def _text(reply: bytes | str) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else reply


def _refused(recipients: dict[str, tuple[int, bytes]]) -> str:
    return "refused " + "; ".join(f"{to}: {code} {_text(reply)}" for to, (code, reply) in recipients.items())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A signed body goes to the configured receiver only: a redirect comes back as its status."""

    def redirect_request(self, *args, **kwargs) -> None:
        return None


class Webhook:
    """A JSON POST: Slack-compatible `{"text": …}` by default, the message's fields as JSON when the URL
    ends in `#format=json` (the fragment never leaves this process) or `format="json"`. With a secret,
    signed: HMAC-SHA256 over `<timestamp>.<body>` in `X-Banco-Signature: sha256=<hex>`."""

    name = "webhook"

    def __init__(self, url: str, secret: str = "", *, format: str | None = None, retry: Retry = Retry()):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError("BANCO_WEBHOOK_URL must be an http:// or https:// address")
        fragment = urllib.parse.parse_qs(parts.fragment)
        self.format = format or fragment.get("format", ["slack"])[0]
        if self.format not in {"slack", "json"}:
            raise ValueError(f"webhook format must be slack or json, not {self.format!r}")
        self._url = urllib.parse.urlunsplit(parts._replace(fragment=""))
        self.host = parts.hostname  # what a Delivery names: a chat's URL path is itself a secret
        self._secret, self.retry = secret.encode(), retry
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:  # never the URL's path or the secret
        return f"Webhook({self.host}, {self.format})"

    def body(self, message: Message) -> bytes:
        """The exact bytes posted (and signed)."""
        if self.format == "slack":
            return json.dumps({"text": message.text()}, ensure_ascii=False).encode()
        fields = {
            "rule": message.rule,
            "severity": message.severity,
            "subject": message.subject,
            "gaming_day": message.gaming_day.isoformat() if message.gaming_day else None,
            "snapshot": message.snapshot,
            "link": message.link,
            "facts": list(message.facts),
        }
        return json.dumps(fields, ensure_ascii=False, default=str).encode()

    def headers(self, body: bytes, timestamp: int) -> dict[str, str]:
        """Content type and, with a secret, the timestamp and the signature over `<timestamp>.<body>`."""
        headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "banco-alerts"}
        if self._secret:
            signed = f"{timestamp}.".encode() + body
            digest = hmac.new(self._secret, signed, hashlib.sha256).hexdigest()
            headers |= {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: f"sha256={digest}"}
        return headers

    def send(self, message: Message) -> Delivery:
        """Post the message; retried on a dropped connection, a timeout, a 5xx, 408 or 429."""
        try:
            body = self.body(message)
        except Exception as error:  # a fact that will not serialise: say so, send nothing
            return Delivery(self.name, (self.host,), False, 0, _line(error), dt.datetime.now(dt.UTC))
        return _deliver(self.name, (self.host,), self.retry, lambda: self._attempt(body))

    def _attempt(self, body: bytes) -> str:
        headers = self.headers(body, int(time.time()))  # a fresh timestamp per try: the receiver's window holds
        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.retry.timeout) as response:
                return f"HTTP {response.status}"
        except urllib.error.HTTPError as error:
            said = _line(error.read(200).decode(errors="replace"), 120)
            reply = f"HTTP {error.code} {error.reason}" + (f": {said}" if said else "")
            if error.code >= 500 or error.code in _RETRIED_HTTP:
                raise _Transient(reply) from None
            raise _Permanent(reply) from None


def configured(settings: Settings) -> list[Channel]:
    """The channels the environment configures: email with BANCO_SMTP_URL and BANCO_SMTP_FROM, the webhook
    with BANCO_WEBHOOK_URL. None when nothing is set: no alert leaves without a channel someone set up."""
    channels: list[Channel] = []
    if settings.smtp_url and settings.smtp_from:
        channels.append(Email(settings.smtp_url, settings.smtp_from))
    if settings.webhook_url:
        channels.append(Webhook(settings.webhook_url, settings.webhook_secret))
    return channels


def every(settings: Settings) -> list[Channel]:
    """The log channel (meta.alerts, always there) and every channel the settings configure that
    BANCO_ALERT_CHANNELS allows (`banco up` allows the log alone on a demo month)."""
    from models.alerts.record import LogChannel

    allowed = [channel for channel in configured(settings) if channel.name in settings.alert_channels]
    return [LogChannel(), *allowed]
