"""Bounded zip member reading (rederive.io.zipread): zstd, limits, zip bombs, corruption."""

import json
import struct
import zipfile
import zlib

import pytest
import zstandard

from rederive.errors import InputError
from rederive.io.inspect_log import read_eval_log
from rederive.io.zipread import ZipLimits, ZipReader

MIB = 1 << 20


def write_member(path, name, payload, *, method, data, declared=None, crc=None):
    """A one-member zip whose member holds ``payload`` (already compressed by ``method``).

    ``data`` is the uncompressed content the headers describe; ``declared`` and
    ``crc`` override the size and CRC written in them (a crafted archive).
    """
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(name, payload)
    raw = bytearray(path.read_bytes())
    size = len(data) if declared is None else declared
    crc = zlib.crc32(data) if crc is None else crc
    local, central = raw.find(b"PK\x03\x04"), raw.find(b"PK\x01\x02")
    struct.pack_into("<H", raw, local + 8, method)
    struct.pack_into("<L", raw, local + 14, crc)
    struct.pack_into("<L", raw, local + 22, size)
    struct.pack_into("<H", raw, central + 10, method)
    struct.pack_into("<L", raw, central + 16, crc)
    struct.pack_into("<L", raw, central + 24, size)
    path.write_bytes(bytes(raw))
    return path


def deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def test_zstd_member_in_several_frames(tmp_path):
    data = b"".join(f"line {i}\n".encode() for i in range(20000))
    frames = b"".join(
        zstandard.ZstdCompressor().compress(part) for part in (data[:7000], data[7000:])
    )
    path = write_member(tmp_path / "z.zip", "a.json", frames, method=93, data=data)
    with ZipReader(path) as archive:
        assert archive.read("a.json") == data
        assert archive.total == len(data)


@pytest.mark.parametrize("method", [8, 93])
def test_declared_bomb_is_refused_before_decompressing(tmp_path, method):
    data = bytes(64 * MIB)
    payload = deflate(data) if method == 8 else zstandard.ZstdCompressor().compress(data)
    path = write_member(
        tmp_path / "b.zip", "samples/1_epoch_1.json", payload, method=method, data=data
    )
    assert path.stat().st_size < 100_000
    with ZipReader(path, limits=ZipLimits(max_member_mib=16)) as archive:
        with pytest.raises(InputError) as info:
            archive.read("samples/1_epoch_1.json")
    assert "declares 64.0 MiB uncompressed, above the limit of 16 MiB" in info.value.message
    assert "benchmark.zip_limits.max_member_mib" in info.value.message
    assert info.value.file.endswith("b.zip!samples/1_epoch_1.json")


@pytest.mark.parametrize("method", [8, 93])
def test_understated_size_stops_at_the_declared_size(tmp_path, method):
    data = bytes(64 * MIB)
    payload = deflate(data) if method == 8 else zstandard.ZstdCompressor().compress(data)
    path = write_member(tmp_path / "l.zip", "m", payload, method=method, data=data, declared=1000)
    with ZipReader(path) as archive, pytest.raises(InputError) as info:
        archive.read("m")
    assert "decompresses to more than its declared 1,000 bytes" in info.value.message


def test_total_limit(tmp_path):
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for i in range(5):
            archive.writestr(f"m{i}", bytes(MIB))
    limits = ZipLimits(max_member_mib=2, max_total_mib=3.5)
    with ZipReader(path, limits=limits) as archive:
        with pytest.raises(InputError, match="5 members to read declare 5.0 MiB"):
            archive.check_declared(archive.namelist())
        for name in ("m0", "m1", "m2"):
            assert archive.read(name) == bytes(MIB)
        with pytest.raises(InputError, match=r"more than 3.5 MiB \(benchmark.zip_limits"):
            archive.read("m3")


def test_corrupt_crc_truncation_and_unsupported_method(tmp_path):
    data = b"x" * 1000
    path = write_member(tmp_path / "c.zip", "m", deflate(data), method=8, data=data, crc=1)
    with ZipReader(path) as archive, pytest.raises(InputError, match="CRC-32 mismatch"):
        archive.read("m")
    path = write_member(tmp_path / "g.zip", "m", b"\x28\xb5\x2f\xfdgarbage", method=93, data=data)
    with ZipReader(path) as archive, pytest.raises(InputError, match="corrupt zstd data"):
        archive.read("m")
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as archive:
        archive.writestr("m", data)
    with ZipReader(path) as archive, pytest.raises(InputError, match="method 14 is not supported"):
        archive.read("m")
    (tmp_path / "t.zip").write_bytes(path.read_bytes()[:40])
    with pytest.raises(InputError, match="not a readable zip"):
        ZipReader(tmp_path / "t.zip")
    with ZipReader(path) as archive, pytest.raises(InputError, match="missing from the archive"):
        archive.read("nope")


def test_inspect_log_with_a_bomb_sample(tmp_path):
    """A finished-looking .eval whose one sample is a 64 MiB bomb: a clear error, no read."""
    header = {
        "status": "success",
        "eval": {"model": "m", "task": "t", "config": {"epochs": 1}},
        "results": {"scores": [{"name": "match", "metrics": {}}]},
    }
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        with archive.open("samples/1_epoch_1.json", "w") as member:
            for _ in range(64):
                member.write(bytes(MIB))
    with pytest.raises(InputError) as info:
        read_eval_log(path, limits=ZipLimits(max_member_mib=8))
    assert info.value.file.endswith("bomb.eval!samples/1_epoch_1.json")
    assert "declares 64.0 MiB" in info.value.message


def test_schema_defaults_match_the_module():
    import yaml
    from workflow_utils import REPO

    from rederive.io import zipread

    schema = yaml.safe_load((REPO / "config/schemas/benchmark.schema.yaml").read_text())
    limits = schema["properties"]["zip_limits"]["properties"]
    assert limits["max_member_mib"]["default"] == zipread.DEFAULT_MAX_MEMBER_MIB
    assert limits["max_total_mib"]["default"] == zipread.DEFAULT_MAX_TOTAL_MIB


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2])
def test_stdlib_methods_read_like_zipfile(tmp_path, method):
    members = {"empty": b"", "small": b"abc", "big": bytes(range(256)) * 3000 + bytes(300_000)}
    path = tmp_path / "s.zip"
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with ZipReader(path) as archive:
        assert {name: bytes(archive.read(name)) for name in members} == members
        assert archive.total == sum(map(len, members.values()))
