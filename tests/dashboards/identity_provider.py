"""A minimal OpenID Connect provider on 127.0.0.1, for the browser test of st.login: discovery, an
authorization endpoint that signs in whoever `email` names at once, the token endpoint (an RS256 ID
token carrying the request's nonce) and the keys to check it."""

from __future__ import annotations

import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID, CLIENT_SECRET = "banco-dashboard", "not-a-real-secret"


class IdentityProvider(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "banco-test"})
        self.email = "ana@example.com"  # who the next sign-in is
        self.codes: dict[str, dict] = {}  # code -> the claims its ID token will carry
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> IdentityProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()

    def discovery(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }


class _Handler(BaseHTTPRequestHandler):
    server: IdentityProvider

    def log_message(self, *args) -> None:  # quiet
        pass

    def _json(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/.well-known/openid-configuration":
            self._json(self.server.discovery())
        elif url.path == "/jwks":
            self._json({"keys": [self.server.key.as_dict(private=False) | {"alg": "RS256", "use": "sig"}]})
        elif url.path == "/authorize" and query.get("client_id") == CLIENT_ID:
            code = secrets.token_urlsafe(16)
            email = self.server.email
            self.server.codes[code] = {"sub": email, "email": email, "email_verified": True, "nonce": query["nonce"]}
            back = f"{query['redirect_uri']}?{urllib.parse.urlencode({'code': code, 'state': query['state']})}"
            self.send_response(302)
            self.send_header("Location", back)
            self.end_headers()
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers["Content-Length"])).decode()))
        claims = self.server.codes.pop(form.get("code", ""), None)
        if self.path != "/token" or claims is None:
            self.send_error(400)
            return
        now = int(time.time())
        claims |= {"iss": self.server.url, "aud": CLIENT_ID, "iat": now, "exp": now + 300}
        id_token = jwt.encode({"alg": "RS256", "kid": "banco-test"}, claims, self.server.key)
        self._json({"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 300,
                    "id_token": id_token})  # fmt: skip
