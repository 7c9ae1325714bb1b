"""Frames on the USB serial line: COBS-encoded, 0x00-terminated, CRC-16/CCITT-FALSE checked.

Runs unchanged under MicroPython on the Pico and under CPython in the tests (no typing, no
dataclasses, no enum at run time). The host side (hardware/link.py) implements the same format with
the PyPI ``cobs`` package and ``binascii.crc_hqx`` so that each side checks the other.

A frame body is ``type (1 byte) | seq (2 bytes, big-endian) | payload | crc16 (2 bytes, big-endian)``
where the CRC covers everything before it. COBS removes every zero byte from the body, so a single
``0x00`` marks the end of a frame and a receiver that lost sync finds the next frame at the next zero.
See docs/firmware-protocol.md.
"""

MAX_BODY = 64  # longer frames are garbage by definition: counted and dropped


def _make_table() -> "list[int]":
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): the same value as CPython's ``binascii.crc_hqx(data, 0xFFFF)``."""
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


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
    crc = crc16(body)
    return cobs_encode(body + bytes([crc >> 8, crc & 0xFF])) + b"\x00"


def decode(raw: bytes) -> "tuple[int, int, bytes]":
    """``(type, seq, payload)`` from one frame without its delimiter; ``ValueError`` if it is damaged."""
    body = cobs_decode(raw)
    if len(body) < 5:
        raise ValueError("frame too short")
    if len(body) > MAX_BODY:
        raise ValueError("frame too long")
    crc = (body[-2] << 8) | body[-1]
    if crc16(body[:-2]) != crc:
        raise ValueError("bad CRC")
    return body[0], (body[1] << 8) | body[2], bytes(body[3:-2])


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
