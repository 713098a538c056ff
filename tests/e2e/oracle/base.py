# SPDX-License-Identifier: MIT
"""Constants of the stream and the TOD clock, and the few helpers every
part of the oracle uses."""

TOD_UNIX_EPOCH = 0x7D91048BCA000000  # TOD clock value of 1970-01-01
FRAME = 4096
STRUCTURAL = {(1, 11), (1, 13)}  # interval end, end of frame
MRHDR_LEN = 20
MCE_LEN = 12


TOD_PERIOD_US = 1 << 52  # the TOD clock wraps after 2^64 / 4096 us
TOD_EPOCH_US = TOD_UNIX_EPOCH >> 12
STEP_US = 1  # the time rule's step
TIME_AHEAD_MAX_US = (3600 + 60) * 1000000  # record time after arrival, at most
ARRIVAL = None  # an expected time known only to be a set's arrival time


class OracleError(Exception):
    pass


def be(buf, off, width, signed=False):
    return int.from_bytes(buf[off:off + width], "big", signed=signed)


def tod_to_us(tod, ref_us=None, leap_us=0):
    """UTC microseconds of a TOD clock value (bit 51 = 1 us): the epoch
    1900 + k * 2^52 us nearest ref_us (the local clock), less the
    leap-second offset. None before 1970."""
    base = tod >> 12
    cands = [base + k * TOD_PERIOD_US - TOD_EPOCH_US for k in range(3)]
    cands = [c for c in cands if c > 0]
    if ref_us is None:
        cands = cands[:1] if base > TOD_EPOCH_US else []
    if not cands:
        return None
    us = min(cands, key=lambda c: abs(c - ref_us)) if ref_us is not None else cands[0]
    us -= leap_us
    return us if us > 0 else None
