"""Make an Inspect-looking .eval zip bomb, or read one through the Inspect reader.

Usage (peak memory with GNU time)::

    .venv/bin/python bench/zip_bomb.py make /tmp/bomb.eval --mib 1024 --method deflate
    /usr/bin/time -v .venv/bin/python bench/zip_bomb.py read /tmp/bomb.eval

The log has a valid ``header.json`` and one ``samples/1_epoch_1.json`` member of
``--mib`` MiB of spaces (valid JSON whitespace after a small object), compressed
about 1000:1 (deflate) or more (zstd). ``read`` prints the reader's message and
the wall time; it never raises.
"""

import argparse
import json
import struct
import sys
import time
import zipfile
import zlib
from pathlib import Path

import zstandard

MIB = 1 << 20
HEADER = {
    "status": "success",
    "eval": {"model": "mockllm/bomb", "task": "bomb", "config": {"epochs": 1}},
    "results": {"scores": [{"name": "match", "metrics": {}}]},
}
SAMPLE = b'{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}'


def make(path: Path, mib: int, method: str) -> None:
    filler = b" " * MIB
    if method == "deflate":
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            z.writestr("header.json", json.dumps(HEADER))
            with z.open("samples/1_epoch_1.json", "w", force_zip64=True) as member:
                member.write(SAMPLE)
                for _ in range(mib):
                    member.write(filler)
        return
    # zstd: stored member holding a zstd stream, then method/size/CRC patched (zipfile
    # on Python 3.11 cannot write method 93).
    compressor = zstandard.ZstdCompressor(level=19).compressobj()
    payload, crc, size = [compressor.compress(SAMPLE)], zlib.crc32(SAMPLE), len(SAMPLE)
    for _ in range(mib):
        payload.append(compressor.compress(filler))
        crc, size = zlib.crc32(filler, crc), size + MIB
    payload.append(compressor.flush())
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps(HEADER))
        z.writestr("samples/1_epoch_1.json", b"".join(payload))
    raw = bytearray(path.read_bytes())
    name = b"samples/1_epoch_1.json"
    local = raw.find(name) - 30  # the local header is 30 bytes before its file name
    central = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name))
    if size >= 1 << 32:
        sys.exit("zstd bombs are limited to < 4 GiB here (no zip64 patching)")
    for offset, (method_at, crc_at, size_at) in ((local, (8, 14, 22)), (central, (10, 16, 24))):
        struct.pack_into("<H", raw, offset + method_at, 93)
        struct.pack_into("<L", raw, offset + crc_at, crc)
        struct.pack_into("<L", raw, offset + size_at, size)
    path.write_bytes(bytes(raw))


def read(path: Path) -> None:
    from rederive.errors import InputError
    from rederive.io.inspect_log import read_eval_log

    start = time.perf_counter()
    try:
        frame = read_eval_log(path)
        outcome = f"read {len(frame)} rows"
    except InputError as exc:
        outcome = f"rederive: input error {exc}"
    except Exception as exc:  # the bench reports whatever happens
        outcome = f"{type(exc).__name__}: {exc}"
    print(outcome)
    print(f"{time.perf_counter() - start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["make", "read"])
    parser.add_argument("path", type=Path)
    parser.add_argument("--mib", type=int, default=1024)
    parser.add_argument("--method", choices=["deflate", "zstd"], default="deflate")
    args = parser.parse_args()
    if args.action == "make":
        make(args.path, args.mib, args.method)
        print(f"{args.path}: {args.path.stat().st_size:,} bytes on disk, {args.mib} MiB member")
    else:
        read(args.path)


if __name__ == "__main__":
    main()
