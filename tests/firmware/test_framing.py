"""The firmware's own COBS and CRC agree with the host's libraries, byte for byte."""

import binascii

from cobs import cobs
from hypothesis import given
from hypothesis import strategies as st

from firmware import framing
from hardware import link


@given(st.binary(max_size=600))
def test_crc32_is_the_zlib_crc_in_both_implementations(data: bytes) -> None:
    assert framing.crc32(data) == framing._crc32_py(data) == binascii.crc32(data)


def test_crc32_check_value() -> None:
    assert framing._crc32_py(b"123456789") == 0xCBF43926  # the catalogued check value of CRC-32


@given(st.binary(max_size=600))
def test_cobs_matches_the_pypi_package_and_round_trips(data: bytes) -> None:
    encoded = framing.cobs_encode(data)
    assert encoded == cobs.encode(data)
    assert 0 not in encoded
    assert framing.cobs_decode(encoded) == data


@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=40))
def test_host_and_firmware_frames_are_the_same_bytes(msg_type: int, seq: int, payload: bytes) -> None:
    frame = framing.encode(msg_type, seq, payload)
    assert frame == link.encode_frame(msg_type, seq, payload)
    assert frame.count(0) == 1 and frame.endswith(b"\x00")
    assert framing.decode(frame[:-1]) == (msg_type, seq, payload)
    assert link.decode_frame(frame[:-1]) == (msg_type, seq, payload)


@given(st.binary(max_size=80))
def test_garbage_gets_the_same_verdict_from_both_ends_and_only_value_error(raw: bytes) -> None:
    verdicts: list[object] = []
    for decode in (framing.decode, link.decode_frame):
        try:
            verdicts.append(decode(raw))
        except ValueError:
            verdicts.append("rejected")
    assert verdicts[0] == verdicts[1]


def test_every_single_bit_flip_is_caught() -> None:
    frame = framing.encode(0x11, 1234, b"\x02")[:-1]
    for i in range(len(frame)):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[i] ^= 1 << bit
            try:
                got = framing.decode(bytes(damaged))
            except ValueError:
                continue
            raise AssertionError(f"flip of bit {bit} in byte {i} went unnoticed: {got}")


def test_splitter_finds_frames_across_reads_and_drops_runaway_noise() -> None:
    splitter = framing.Splitter()
    a, b = framing.encode(1, 1, b"x"), framing.encode(2, 2, b"y")
    stream = a + b
    frames = []
    for i in range(len(stream)):
        frames += splitter.feed(stream[i : i + 1])
    assert [framing.decode(f) for f in frames] == [(1, 1, b"x"), (2, 2, b"y")]
    assert splitter.feed(b"\x01" * 1000) == []
    assert splitter.overruns == 1
    assert [framing.decode(f) for f in splitter.feed(b"\x00" + a)] == [(1, 1, b"x")]
