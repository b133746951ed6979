"""Email and webhook channels against real servers on loopback: an aiosmtpd server (plain, STARTTLS with
a login, implicit TLS) and an HTTP receiver that verifies the signature as docs/alerts.md tells one to."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dashboards.browser import free_port
from models.alerts.channels import Email, Retry, Webhook, configured
from models.alerts.message import Message
from models.settings import Settings
from tests.mail import login, parsed

FAST = Retry(attempts=3, delay=0.01, timeout=5.0)
SECRET = "s3cret"
PDF = b"%PDF-1.4\n% the morning report\n%%EOF\n"


def message(**changes) -> Message:
    fields = dict(
        rule="surveillance_flag",
        severity="critical",
        subject="2 new surveillance flags",
        facts=({"player_id": "P0042", "table_id": "T03"}, {"player_id": "P0077", "table_id": "T01"}),
        gaming_day=dt.date(2026, 3, 14),
        snapshot="7312",
        link="http://127.0.0.1:8501/surveillance",
        recipients=("officer@casino.test", "compliance@casino.test"),
        attachments=(("morning-report-2026-03-14.pdf", PDF, "application/pdf"),),
    )
    return Message(**(fields | changes))


def test_plain_smtp_sends_subject_body_and_attachment_to_the_recipients(smtp_server):
    inbox, port = smtp_server()
    delivery = Email(f"smtp://127.0.0.1:{port}", "banco@casino.test", retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts, delivery.channel) == (True, 1, "email")
    assert delivery.recipients == ("officer@casino.test", "compliance@casino.test")
    assert inbox.envelopes[0].rcpt_tos == ["officer@casino.test", "compliance@casino.test"]
    assert inbox.envelopes[0].mail_from == "banco@casino.test"
    mail = parsed(inbox)
    assert mail["Subject"] == "2 new surveillance flags"
    assert mail["To"] == "officer@casino.test, compliance@casino.test"
    assert mail.get_body(("plain",)).get_content().replace("\r\n", "\n").strip() == message().text().strip()
    (attachment,) = mail.iter_attachments()
    assert attachment.get_filename() == "morning-report-2026-03-14.pdf"
    assert attachment.get_content_type() == "application/pdf"
    assert attachment.get_content() == PDF


def test_starttls_logs_in_with_the_urls_percent_decoded_credentials(smtp_server, certificate):
    server_tls, client_tls = certificate
    inbox, port = smtp_server(tls_context=server_tls, require_starttls=True, authenticator=login, auth_required=True)
    url = f"smtp+starttls://banco:p%40ss%20word@127.0.0.1:{port}"
    delivery = Email(url, "banco@casino.test", retry=FAST, context=client_tls).send(message())
    assert (delivery.ok, delivery.attempts) == (True, 1), delivery.detail
    assert parsed(inbox)["Subject"] == "2 new surveillance flags"
    assert "p@ss" not in repr(Email(url, "banco@casino.test"))


def test_a_wrong_password_is_refused_once_not_retried(smtp_server, certificate):
    server_tls, client_tls = certificate
    inbox, port = smtp_server(tls_context=server_tls, require_starttls=True, authenticator=login, auth_required=True)
    url = f"smtp+starttls://banco:wrong@127.0.0.1:{port}"
    delivery = Email(url, "banco@casino.test", retry=FAST, context=client_tls).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 1)
    assert delivery.detail.startswith("SMTP 535")
    assert inbox.envelopes == []


def test_an_untrusted_certificate_is_refused_not_retried(smtp_server, certificate):
    server_tls, _ = certificate
    _, port = smtp_server(tls_context=server_tls, require_starttls=True)
    delivery = Email(f"smtp+starttls://127.0.0.1:{port}", "banco@casino.test", retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 1)
    assert delivery.detail.startswith("TLS:")


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # implicit TLS is TLS
def test_implicit_tls_sends(smtp_server, certificate):
    server_tls, client_tls = certificate
    inbox, port = smtp_server(ssl_context=server_tls, authenticator=login, auth_required=True, auth_require_tls=False)
    url = f"smtps://banco:p%40ss%20word@127.0.0.1:{port}"
    delivery = Email(url, "banco@casino.test", retry=FAST, context=client_tls).send(message())
    assert (delivery.ok, delivery.attempts) == (True, 1), delivery.detail
    assert len(inbox.envelopes) == 1


def test_a_closed_smtp_port_is_retried_and_reported_without_raising():
    started = time.monotonic()
    delivery = Email(f"smtp://127.0.0.1:{free_port()}", "banco@casino.test", retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 3)
    assert "ConnectionRefusedError" in delivery.detail
    assert time.monotonic() - started < 2  # 0.01 s, then 0.02 s between the tries
    assert "\n" not in delivery.detail


def test_no_recipients_sends_nothing(smtp_server):
    inbox, port = smtp_server()
    delivery = Email(f"smtp://127.0.0.1:{port}", "banco@casino.test", retry=FAST).send(message(recipients=()))
    assert (delivery.ok, delivery.attempts, delivery.detail) == (False, 0, "no recipients")
    assert inbox.envelopes == []


def test_a_refused_recipient_is_final_and_the_others_get_one_copy(smtp_server):
    inbox, port = smtp_server()
    channel = Email(f"smtp://127.0.0.1:{port}", "banco@casino.test", retry=FAST)
    delivery = channel.send(message(recipients=("officer@casino.test", "nobody@casino.test")))
    assert (delivery.ok, delivery.attempts) == (False, 1)
    assert delivery.detail == "accepted for 1; refused nobody@casino.test: 550 5.1.1 No such user"
    assert [envelope.rcpt_tos for envelope in inbox.envelopes] == [["officer@casino.test"]]
    everyone = channel.send(message(recipients=("nobody@casino.test",)))
    assert (everyone.ok, everyone.attempts) == (False, 1)
    assert everyone.detail.startswith("refused nobody@casino.test: 550")


def verify(secret: str, headers, body: bytes, now: float, window: float = 300) -> bool:
    """The receiver's check, as docs/alerts.md gives it."""
    timestamp = headers.get("X-Banco-Timestamp", "")
    if not timestamp.isdigit() or abs(now - int(timestamp)) > window:
        return False  # a replay, or no timestamp at all
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get("X-Banco-Signature", ""), f"sha256={expected}")


@pytest.fixture
def receiver():
    """An HTTP receiver on 127.0.0.1 that answers each POST with the next of the given statuses (the
    last repeats), 401 to a bad signature, and keeps what it was sent."""
    servers = []

    def start(*statuses: int) -> tuple[list, str]:
        received, answers = [], list(statuses or (200,))

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                signed = verify(SECRET, self.headers, body, time.time())
                received.append({"path": self.path, "headers": dict(self.headers), "body": body, "signed": signed})
                status = (answers.pop(0) if len(answers) > 1 else answers[0]) if signed else 401
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"go away" if status >= 400 else b"ok")

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return received, f"http://127.0.0.1:{server.server_port}/hooks/banco"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_webhook_posts_slack_text_signed(receiver):
    received, url = receiver()
    delivery = Webhook(url, SECRET, retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts, delivery.detail) == (True, 1, "HTTP 200")
    assert delivery.recipients == ("127.0.0.1",)
    (post,) = received
    assert post["signed"] and post["path"] == "/hooks/banco"
    assert json.loads(post["body"]) == {"text": message().text()}


def test_webhook_posts_the_messages_fields_with_format_json(receiver):
    received, url = receiver()
    delivery = Webhook(url + "#format=json", SECRET, retry=FAST).send(message())
    assert delivery.ok, delivery.detail
    (post,) = received
    assert post["signed"] and post["path"] == "/hooks/banco"  # the fragment stays here
    assert json.loads(post["body"]) == {
        "rule": "surveillance_flag",
        "severity": "critical",
        "subject": "2 new surveillance flags",
        "gaming_day": "2026-03-14",
        "snapshot": "7312",
        "link": "http://127.0.0.1:8501/surveillance",
        "facts": [{"player_id": "P0042", "table_id": "T03"}, {"player_id": "P0077", "table_id": "T01"}],
    }


def test_a_wrong_secret_fails_the_receivers_check_and_is_not_retried(receiver):
    received, url = receiver()
    delivery = Webhook(url, "not the secret", retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 1)
    assert delivery.detail.startswith("HTTP 401")
    assert [post["signed"] for post in received] == [False]


def test_a_500_is_retried_then_reported(receiver):
    received, url = receiver(500)
    delivery = Webhook(url, SECRET, retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 3)
    assert delivery.detail == "HTTP 500 Internal Server Error: go away"
    assert len(received) == 3


def test_a_500_that_passes_on_the_second_try_is_delivered(receiver):
    received, url = receiver(503, 200)
    delivery = Webhook(url, SECRET, retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts, delivery.detail) == (True, 2, "HTTP 200")
    assert len(received) == 2


def test_a_403_is_not_retried(receiver):
    received, url = receiver(403)
    delivery = Webhook(url, SECRET, retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 1)
    assert delivery.detail.startswith("HTTP 403 Forbidden")
    assert len(received) == 1


def test_a_closed_webhook_port_is_retried_without_raising():
    delivery = Webhook(f"http://127.0.0.1:{free_port()}/hook", SECRET, retry=FAST).send(message())
    assert (delivery.ok, delivery.attempts) == (False, 3)
    assert "Connection refused" in delivery.detail


def test_channels_come_only_from_the_environment():
    assert configured(Settings.from_env({})) == []
    assert configured(Settings.from_env({"BANCO_SMTP_URL": "smtp://127.0.0.1:2525"})) == []  # no sender
    both = configured(
        Settings.from_env(
            {
                "BANCO_SMTP_URL": "smtp+starttls://u:p@mail.casino.test:587",
                "BANCO_SMTP_FROM": "banco@casino.test",
                "BANCO_WEBHOOK_URL": "https://chat.casino.test/hooks/abc#format=json",
                "BANCO_WEBHOOK_SECRET": SECRET,
            }
        )
    )
    assert [channel.name for channel in both] == ["email", "webhook"]
    assert (both[0].host, both[0].port, both[1].format) == ("mail.casino.test", 587, "json")


def test_a_malformed_url_is_one_clear_error_without_the_password():
    with pytest.raises(ValueError, match="BANCO_SMTP_URL") as refused:
        Email("imap://u:hunter2@mail.casino.test", "banco@casino.test")
    assert "hunter2" not in str(refused.value)
    with pytest.raises(ValueError, match="BANCO_WEBHOOK_URL"):
        Webhook("ftp://chat.casino.test/hook")
