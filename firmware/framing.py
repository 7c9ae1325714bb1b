"""Frames on the USB serial line: COBS-encoded, 0x00-terminated, CRC-32 checked.

Runs unchanged under MicroPython on the Pico and under CPython in the tests (no typing, no
dataclasses, no enum at run time). The host side (hardware/link.py) implements the same format with
the PyPI ``cobs`` package and ``binascii.crc32`` so that each side checks the other.

A frame body is ``type (1 byte) | seq (2 bytes, big-endian) | payload | crc32 (4 bytes, big-endian)``
where the CRC (the zlib/PNG CRC-32) covers everything before it. COBS removes every zero byte from
the body, so a single ``0x00`` marks the end of a frame and a receiver that lost sync finds the next
frame at the next zero. CRC-32 rather than CRC-16: a damaged frame slips through a 16-bit check one
time in 65,536, which a soak test at 1 % damaged frames would meet every few hundred runs.
See docs/firmware-protocol.md.
"""

MAX_BODY = 64  # longer frames are garbage by definition: counted and dropped
MIN_BODY = 7  # type, seq, crc


def _make_table() -> "list[int]":
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE: "list[int]" = []  # built on first use: only builds without binascii.crc32 need it


def _crc32_py(data: bytes, crc: int = 0) -> int:
    table = _TABLE
    if not table:
        table.extend(_make_table())
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


try:  # C implementation on MicroPython builds that have it (rp2 does) and on CPython
    from binascii import crc32 as _crc32_c
except ImportError:
    _crc32_c = None  # type: ignore[assignment]


def crc32(data: bytes) -> int:
    """CRC-32 (zlib, PNG, Ethernet): the same value as CPython's ``binascii.crc32(data)``."""
    if _crc32_c is not None:
        return int(_crc32_c(data)) & 0xFFFFFFFF
    return _crc32_py(data)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` with no zero bytes, one byte longer per 254."""
    out = bytearray([0])
    code_at = 0
    code = 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo ``cobs_encode``; raises ``ValueError`` on a zero byte or a code that runs past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS code runs past the end of the frame")
        chunk = data[i + 1 : end]
        if 0 in chunk:
            raise ValueError("zero byte inside a COBS frame")
        out.extend(chunk)
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """A complete frame, delimiter included, ready to write to the port."""
    body = bytes([msg_type & 0xFF, (seq >> 8) & 0xFF, seq & 0xFF]) + bytes(payload)
    crc = crc32(body)
    tail = bytes([(crc >> 24) & 0xFF, (crc >> 16) & 0xFF, (crc >> 8) & 0xFF, crc & 0xFF])
    return cobs_encode(body + tail) + b"\x00"


def decode(raw: bytes) -> "tuple[int, int, bytes]":
    """``(type, seq, payload)`` from one frame without its delimiter; ``ValueError`` if it is damaged."""
    body = cobs_decode(raw)
    if len(body) < MIN_BODY:
        raise ValueError("frame too short")
    if len(body) > MAX_BODY:
        raise ValueError("frame too long")
    crc = (body[-4] << 24) | (body[-3] << 16) | (body[-2] << 8) | body[-1]
    if crc32(body[:-4]) != crc:
        raise ValueError("bad CRC")
    return body[0], (body[1] << 8) | body[2], bytes(body[3:-4])


class Splitter:
    """Cuts a byte stream into frames at each 0x00, whatever sizes the reads come in.

    A run of bytes longer than any legal frame is thrown away up to the next delimiter and counted
    in ``overruns``, so line noise cannot grow the buffer without bound on a 264 KB microcontroller.
    """

    def __init__(self, limit: int = 2 * MAX_BODY + 8) -> None:
        self._buf = bytearray()
        self._limit = limit
        self._skipping = False
        self.overruns = 0

    def feed(self, data: bytes) -> "list[bytes]":
        frames = []
        for byte in data:
            if byte == 0:
                if not self._skipping and self._buf:
                    frames.append(bytes(self._buf))
                self._buf = bytearray()
                self._skipping = False
            elif not self._skipping:
                self._buf.append(byte)
                if len(self._buf) > self._limit:
                    self._buf = bytearray()
                    self._skipping = True
                    self.overruns += 1
        return frames
