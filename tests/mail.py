"""A real SMTP server on loopback for the tests (aiosmtpd), with a self-signed certificate for its TLS:
started by the `smtp_server` fixture (tests/conftest.py), which stops it after the test."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import ipaddress
import ssl
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from dashboards.browser import free_port


def self_signed(folder: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for 127.0.0.1 written to `folder`: the server's context, and a client's
    that trusts it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return server, ssl.create_default_context(cafile=folder / "cert.pem")


class Inbox:
    """An aiosmtpd handler that keeps every envelope it is given and knows no one at nobody@."""

    def __init__(self):
        self.envelopes = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("nobody@"):
            return "550 5.1.1 No such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        return "250 Message accepted"

    def mails(self) -> list[email.message.EmailMessage]:
        """Every message received, parsed, in the order it came."""
        return [email.message_from_bytes(e.original_content, policy=email.policy.default) for e in self.envelopes]


def login(server, session, envelope, mechanism, auth_data) -> AuthResult:
    """An authenticator that knows one user, banco, whose password is "p@ss word"."""
    good = isinstance(auth_data, LoginPassword) and auth_data == (b"banco", b"p@ss word")
    return AuthResult(success=good, handled=False)  # not handled: the server replies 535 itself


class Servers:
    """Starts aiosmtpd servers on 127.0.0.1 (`start(**Controller keywords)` gives its inbox and port) and
    stops every one at `stop()`."""

    def __init__(self):
        self._started: list[Controller] = []

    def __call__(self, **kwargs) -> tuple[Inbox, int]:
        inbox, port = Inbox(), free_port()
        controller = Controller(inbox, hostname="127.0.0.1", port=port, **kwargs)
        controller.start()
        self._started.append(controller)
        return inbox, port

    def stop(self) -> None:
        for controller in self._started:
            controller.stop()


def parsed(inbox: Inbox) -> email.message.EmailMessage:
    """The one message `inbox` received."""
    (mail,) = inbox.mails()
    return mail
