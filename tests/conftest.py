"""What many test modules share, started or built once per session (once per xdist worker): the
servers on loopback. Each test still gets data of its own on them: a database, a bucket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.postgres import database, postgres
from tests.s3 import bucket, s3_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """One PostgreSQL server for the session; tests take databases of their own on it."""
    with postgres() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh database on the session's PostgreSQL server, as a SQLAlchemy URL."""
    return database(postgres_server)


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """One S3 endpoint (moto's server) for the session; tests take buckets of their own on it."""
    with s3_server() as endpoint:
        yield endpoint


@pytest.fixture
def s3_store(s3_endpoint: str) -> dict[str, str]:
    """A fresh bucket on the session's S3 endpoint: the environment a warehouse there needs."""
    return bucket(s3_endpoint)
