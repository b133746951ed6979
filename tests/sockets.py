"""What listens on a TCP port of this machine, read from the kernel's own tables (/proc/net/tcp and tcp6)."""

from __future__ import annotations

import socket
from pathlib import Path

LISTEN = "0A"


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    # the kernel prints each 32-bit word of the address in the host's (little-endian) order
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return socket.inet_ntop(socket.AF_INET if len(words) == 4 else socket.AF_INET6, words)


def listening(port: int) -> set[str]:
    """The local addresses a socket listens on at `port`, IPv4 and IPv6 ('0.0.0.0' or '::' for every one)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, hex_port = local.partition(":")
            if state == LISTEN and int(hex_port, 16) == port:
                found.add(_address(address))
    return found
