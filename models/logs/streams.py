"""A round log's bytes: opened only when it is a regular file, unpacked (gzip, zstd) so that a stream
cut short fails instead of ending early, and split into lines at any line ending."""

from __future__ import annotations

import codecs
import errno
import gzip
import io
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import zstandard

#: Bytes read at a time; also how much of a file is sniffed for its line endings.
BLOCK = 1 << 20
KINDS = {
    stat.S_ISDIR: "a folder, not a file",
    stat.S_ISFIFO: "a FIFO (named pipe), not a regular file",
    stat.S_ISSOCK: "a socket, not a regular file",
    stat.S_ISCHR: "a character device, not a regular file",
    stat.S_ISBLK: "a block device, not a regular file",
}


class NotAFile(OSError):
    """The path names something other than a regular file, or nothing: `strerror` says what."""


def check_regular(path: Path) -> None:
    """Raise NotAFile unless `path` is (or links to) a regular file: a FIFO, a device or a folder is
    never opened (opening a FIFO waits for a writer forever)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        link = os.path.islink(path)
        raise NotAFile(errno.ENOENT, "a symbolic link to nothing" if link else "no such file or folder") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotAFile(errno.ELOOP, "a symbolic link that loops") from None
        raise
    if stat.S_ISREG(mode):
        return
    what = next((text for test, text in KINDS.items() if test(mode)), "not a regular file")
    if stat.S_ISDIR(mode) and not os.access(path, os.R_OK | os.X_OK):
        what = "a folder that cannot be listed (permission denied)"
    raise NotAFile(errno.EINVAL, what)


def open_regular(path: Path) -> BinaryIO:
    """The file for reading, refused unless it is a regular file (checked on the open file, so a
    FIFO put in its place after a check is never waited on)."""
    check_regular(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAFile(errno.EINVAL, "not a regular file")
        return os.fdopen(fd, "rb", buffering=BLOCK)
    except BaseException:
        os.close(fd)
        raise


class _ZstdFrames(io.RawIOBase):
    """A zstd file's content, frame after frame; a frame the file ends inside raises EOFError (the
    library's stream reader ends quietly there, giving a truncated file's first rows as if whole)."""

    def __init__(self, packed: BinaryIO):
        self._packed = packed
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._begun = False  # the current frame has had some input
        self._out, self._at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self._at == len(self._out):
            data = self._packed.read(BLOCK)
            if not data:
                if self._begun:
                    raise EOFError("the zstd stream ends inside a frame: the file is truncated")
                return 0
            self._out, self._at = self._unpack(data), 0
        size = min(len(buffer), len(self._out) - self._at)
        buffer[:size] = memoryview(self._out)[self._at : self._at + size]
        self._at += size
        return size

    def _unpack(self, data: bytes) -> bytes:
        out = []
        while data:
            self._begun = True
            out.append(self._frame.decompress(data))
            if not self._frame.eof:
                break
            data = self._frame.unused_data  # the next frame begins here
            self._frame, self._begun = zstandard.ZstdDecompressor().decompressobj(), False
        return b"".join(out)

    def close(self) -> None:
        self._packed.close()
        super().close()


class _Gzip(gzip.GzipFile):
    """A gzip file's content, its trailer checked (a cut raises EOFError), closing the file it reads."""

    def __init__(self, packed: BinaryIO):
        super().__init__(fileobj=packed, mode="rb")
        self._packed = packed

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._packed.close()


def open_log(path: Path, compression: str | None) -> BinaryIO:
    """The file's content (unpacked), read a block at a time. A compressed file of no bytes is no
    stream at all, and fails like one cut short."""
    raw = open_regular(path)
    if compression is None:
        return raw
    if os.fstat(raw.fileno()).st_size == 0:
        raw.close()
        raise EOFError(f"an empty file is no {compression} stream")
    if compression == "gzip":
        return _Gzip(raw)
    return io.BufferedReader(_ZstdFrames(raw), buffer_size=BLOCK)


def blocks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes, a block at a time."""
    while block := stream.read(BLOCK):
        yield block


def line_chunks(stream: BinaryIO) -> Iterator[bytes]:
    r"""The stream's bytes in chunks that each end where a line does (a final `\r` waits for the next
    block: it may be half of a `\r\n`), without a UTF-8 byte-order mark before the first line."""
    carry = b""
    for number, block in enumerate(blocks(stream)):
        block = block if number else block.removeprefix(codecs.BOM_UTF8)
        data = carry + block if carry else block
        cut = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1
        if cut:
            yield data[:cut]
        carry = data[cut:]
    if carry:
        yield carry


def lines(stream: BinaryIO) -> Iterator[bytes]:
    r"""Each physical line without its ending, at `\n`, `\r\n` or a lone `\r` alike (mixed in one
    file too), as Python's universal newlines split text."""
    for chunk in line_chunks(stream):
        yield from chunk.splitlines()


def lone_carriage_returns(block: bytes) -> bool:
    r"""Whether `block` ends a line with `\r` alone (old Mac files, or mixed endings)."""
    block = block.removesuffix(b"\r")  # may be half of a `\r\n` cut by the block's end
    return block.count(b"\r") != block.count(b"\r\n")


def with_newlines(blocks: Iterable[bytes]) -> Iterator[bytes]:
    r"""`blocks` with every line ending made `\n` (in a quoted CSV field too, whose line breaks are
    then `\n`)."""
    carry = b""
    for block in blocks:
        data = carry + block if carry else block
        carry = b"\r" if data.endswith(b"\r") else b""  # perhaps half of a `\r\n`
        yield (data[:-1] if carry else data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if carry:
        yield b"\n"
