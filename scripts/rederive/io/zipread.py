"""Bounded, streaming reading of zip archive members, zstd included.

Why not ``zipfile.ZipFile.read``: it inflates a whole member into memory with no
limit, so a small archive holding a highly compressed member (a zip bomb) can
exhaust memory; and Python 3.11's ``zipfile`` cannot decompress Zstandard
members (method 93), which Inspect writes from inspect-ai 0.3.206 on.

:class:`ZipReader` takes the member list from ``zipfile`` (central directory)
but reads each member's bytes itself: from the member's local header it streams
the compressed data through a decompressor in small chunks, counting the output
as it goes. A member stops with an :class:`~rederive.errors.InputError` as soon
as it exceeds its declared size or the per-member limit, or the archive exceeds
the total limit, so memory stays below the limit whatever the compression
ratio. CRC-32 and size are checked against the central directory.

Supported methods: stored (0), deflate (8), bzip2 (12), Zstandard (93).

References
----------
PKWARE, *APPNOTE.TXT - .ZIP File Format Specification* 6.3.10, sections 4.3.7
(local file header) and 4.4.5 (compression methods; 93 = Zstandard).
"""

from __future__ import annotations

import bz2
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import zstandard

from rederive.errors import InputError, relpath

MIB = 1 << 20
DEFAULT_MAX_MEMBER_MIB = 256
DEFAULT_MAX_TOTAL_MIB = 4096
CHUNK = 1 << 16
LOCAL_HEADER = struct.Struct("<4s5H3L2H")
LOCAL_SIGNATURE = b"PK\x03\x04"
METHODS = {0: "stored", 8: "deflate", 12: "bzip2", 93: "zstd"}


@dataclass(frozen=True)
class ZipLimits:
    """Caps on uncompressed bytes, per member and per archive.

    Parameters
    ----------
    max_member_mib, max_total_mib : float
        Largest uncompressed member, and largest sum over the members read, in MiB.
    setting : str
        Config prefix named in the error message so the user knows what to raise.
    """

    max_member_mib: float = DEFAULT_MAX_MEMBER_MIB
    max_total_mib: float = DEFAULT_MAX_TOTAL_MIB
    setting: str = "benchmark.zip_limits"

    @classmethod
    def from_params(cls, params: dict | None, setting: str = "benchmark.zip_limits") -> ZipLimits:
        params = params or {}
        return cls(
            params.get("max_member_mib", DEFAULT_MAX_MEMBER_MIB),
            params.get("max_total_mib", DEFAULT_MAX_TOTAL_MIB),
            setting,
        )

    @property
    def max_member_bytes(self) -> int:
        return int(self.max_member_mib * MIB)

    @property
    def max_total_bytes(self) -> int:
        return int(self.max_total_mib * MIB)


class ZipReader:
    """A zip archive whose members are read with size limits (see module docstring).

    Parameters
    ----------
    path : str or Path
    limits : ZipLimits, optional

    Raises
    ------
    InputError
        The file is missing or is not a readable zip archive.
    """

    def __init__(self, path: str | Path, *, limits: ZipLimits | None = None):
        self.name = relpath(path)
        self.limits = limits or ZipLimits()
        self.total = 0
        try:
            self._archive = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise InputError("file not found", file=self.name) from None
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InputError(f"not a readable zip archive ({exc})", file=self.name) from None
        self._fh = open(path, "rb")  # closed by close()

    def __enter__(self) -> ZipReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._archive.close()
        self._fh.close()

    def namelist(self) -> list[str]:
        return self._archive.namelist()

    def check_declared(self, members: list[str]) -> None:
        """Refuse at once when the members' declared sizes already exceed the limits."""
        declared = 0
        for member in members:
            info = self._info(member)
            self._check_member_size(info.file_size, member, declared=True)
            declared += info.file_size
        if self.total + declared > self.limits.max_total_bytes:
            raise InputError(
                f"the {len(members)} members to read declare {declared / MIB:,.1f} MiB "
                f"uncompressed, above the limit of {self.limits.max_total_mib:g} MiB "
                f"({self.limits.setting}.max_total_mib); a zip bomb, or raise the limit",
                file=self.name,
            )

    def read(self, member: str) -> bytearray:
        """The member's uncompressed bytes, within the limits.

        A ``bytearray`` grown in place, so a large member is not copied once more at
        the end (``json.loads`` and ``bytes.decode`` accept it).

        Raises
        ------
        InputError
            Missing, encrypted or corrupt member, unsupported compression, or a
            member / archive larger than the limits.
        """
        info = self._info(member)
        where = f"{self.name}!{member}"
        if info.flag_bits & 0x1:
            raise InputError("member is encrypted", file=where)
        if info.compress_type not in METHODS:
            raise InputError(
                f"compression method {info.compress_type} is not supported "
                f"(readable: {', '.join(METHODS.values())})",
                file=where,
            )
        self._check_member_size(info.file_size, member, declared=True)
        out, size, crc = bytearray(), 0, 0
        for chunk in self._chunks(info, where):
            size += len(chunk)
            if size > info.file_size:
                raise InputError(
                    f"member decompresses to more than its declared {info.file_size:,} bytes "
                    "(a corrupt archive or a zip bomb)",
                    file=where,
                )
            self._check_member_size(size, member, declared=False)
            if self.total + size > self.limits.max_total_bytes:
                raise InputError(
                    f"the archive decompresses to more than {self.limits.max_total_mib:g} MiB "
                    f"({self.limits.setting}.max_total_mib); a zip bomb, or raise the limit",
                    file=where,
                )
            crc = zlib.crc32(chunk, crc)
            out += chunk
        if size != info.file_size:
            raise InputError(
                f"member is truncated: {size:,} of {info.file_size:,} bytes", file=where
            )
        if crc != info.CRC:
            raise InputError("CRC-32 mismatch: the archive is corrupt", file=where)
        self.total += size
        return out

    def _info(self, member: str) -> zipfile.ZipInfo:
        try:
            return self._archive.getinfo(member)
        except KeyError:
            raise InputError(
                "member is missing from the archive", file=f"{self.name}!{member}"
            ) from None

    def _check_member_size(self, size: int, member: str, *, declared: bool) -> None:
        if size > self.limits.max_member_bytes:
            how = "declares" if declared else "decompresses to more than"
            raise InputError(
                f"member {how} {size / MIB:,.1f} MiB uncompressed, above the limit of "
                f"{self.limits.max_member_mib:g} MiB ({self.limits.setting}.max_member_mib); "
                "a zip bomb, or raise the limit",
                file=f"{self.name}!{member}",
            )

    def _raw(self, info: zipfile.ZipInfo, where: str) -> Iterator[bytes]:
        """The member's compressed bytes, in chunks, located through its local header."""
        self._fh.seek(info.header_offset)
        header = self._fh.read(LOCAL_HEADER.size)
        if len(header) != LOCAL_HEADER.size or header[:4] != LOCAL_SIGNATURE:
            raise InputError("bad local file header: the archive is corrupt", file=where)
        fields = LOCAL_HEADER.unpack(header)
        self._fh.seek(fields[-2] + fields[-1], 1)  # file name and extra field
        left = info.compress_size
        while left > 0:
            chunk = self._fh.read(min(CHUNK, left))
            if not chunk:
                raise InputError("the archive is truncated", file=where)
            left -= len(chunk)
            yield chunk

    def _chunks(self, info: zipfile.ZipInfo, where: str) -> Iterator[bytes]:
        """Decompressed output in chunks of at most :data:`CHUNK` bytes."""
        raw = self._raw(info, where)
        method = info.compress_type
        try:
            if method == 0:
                yield from raw
            elif method == 93:
                reader = zstandard.ZstdDecompressor().stream_reader(
                    _IterStream(raw), read_across_frames=True
                )
                while chunk := reader.read(CHUNK):
                    yield chunk
            else:
                yield from _bounded(
                    raw, zlib.decompressobj(-15) if method == 8 else bz2.BZ2Decompressor()
                )
        except (zlib.error, OSError, EOFError, zstandard.ZstdError) as exc:
            raise InputError(f"corrupt {METHODS[method]} data ({exc})", file=where) from None


def _bounded(raw: Iterator[bytes], decompressor) -> Iterator[bytes]:
    """Deflate / bzip2 output with at most :data:`CHUNK` bytes per step (``max_length``)."""
    is_zlib = hasattr(decompressor, "unconsumed_tail")
    for data in raw:
        while data or (not is_zlib and not decompressor.needs_input and not decompressor.eof):
            out = decompressor.decompress(data, CHUNK)
            data = decompressor.unconsumed_tail if is_zlib else b""
            if out:
                yield out
            if decompressor.eof:
                return
    if is_zlib:
        if tail := decompressor.flush():
            yield tail


class _IterStream:
    """Minimal file object over an iterator of chunks (input of zstd's stream reader)."""

    def __init__(self, chunks: Iterator[bytes]):
        self._chunks = chunks
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            self._buffer += chunk
        if size < 0:
            size = len(self._buffer)
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out
