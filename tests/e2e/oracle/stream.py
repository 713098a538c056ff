# SPDX-License-Identifier: MIT
"""The scenario file of the emulated device and the read stream it gives
(tests/rig/README.md)."""

import struct

from .base import MCE_LEN, OracleError, be


# --------------------------------------------------------------------------
# Scenario file (tests/rig/README.md, "Scenario file format")

class Scenario:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 32 or data[:8] != b"ZVMSCN1\n":
            raise OracleError("%s: not a scenario file" % path)
        version, self.dcss_start, self.dcss_end, _rsv, self.span_us = \
            struct.unpack(">IIIIQ", data[8:32])
        if version != 1:
            raise OracleError("%s: scenario version %d" % (path, version))
        self.items = []
        pos = 32
        while pos < len(data):
            if pos + 8 > len(data):
                raise OracleError("%s: truncated item header at %d" % (path, pos))
            kind = chr(data[pos])
            (plen,) = struct.unpack(">I", data[pos + 4:pos + 8])
            payload = data[pos + 8:pos + 8 + plen]
            if len(payload) != plen:
                raise OracleError("%s: truncated item at %d" % (path, pos))
            self.items.append((kind, payload))
            pos += 8 + plen

    def mce_ok(self, mce):
        """The loader's (and the driver's mon_check_mca) MCE check."""
        typ, m1, m2 = mce[0], mce[1], mce[2]
        start, end = be(mce, 4, 4), be(mce, 8, 4)
        return (typ != 0 and (m1 | m2) != 0 and end > start and
                start >= self.dcss_start and end <= self.dcss_end)

    def deliverable(self, msg):
        """Bytes read() returns for one message: up to the first bad MCE."""
        pos = 0
        while pos < len(msg):
            mce = msg[pos:pos + MCE_LEN]
            if len(mce) < MCE_LEN or not self.mce_ok(mce):
                break
            n = be(mce, 8, 4) - be(mce, 4, 4) + 1
            if pos + MCE_LEN + n > len(msg):
                raise OracleError("scenario: record set not fully present")
            pos += MCE_LEN + n
        return msg[:pos]


def device_events(scn):
    """The read stream of the emulated device as the plugin sees it.

    Events: ("openfail", errno), ("data", bytes, msgno), ("eof", msgno),
    ("eio", msgno), ("efault", msgno), ("eoverflow",), ("sever",).
    Opens that succeed are implicit: the first open, and one after a sever.
    """
    ev = []
    eio_at = efault_at = None
    open_fail = []  # pending for the next message
    opened = False
    severed = False
    msgno = 0

    def do_open():
        nonlocal opened, severed, open_fail
        # open() calls fail while this message is the next to arrive
        for errno_name in open_fail:
            ev.append(("openfail", errno_name))
        open_fail = []
        opened = True
        severed = False

    for kind, payload in scn.items:
        if kind == "D":
            continue  # timing only
        if kind == "I":
            eio_at = be(payload, 0, 4)
        elif kind == "F":
            efault_at = be(payload, 0, 4)
        elif kind == "E":
            err, count = be(payload, 0, 4), be(payload, 4, 4)
            open_fail += [err] * count
        elif kind == "O":
            ev.append(("eoverflow",))
        elif kind == "S":
            ev.append(("sever",))
            severed = True
        elif kind == "M":
            if not opened or severed:
                do_open()
            data = scn.deliverable(payload)
            if eio_at is not None:
                # bytes up to the offset, then EIO; the message is gone
                ev.append(("data", data[:eio_at], msgno))
                ev.append(("eio", msgno))
            elif efault_at is not None and efault_at <= len(data):
                # one read fails, the position is kept: the rest follows
                ev.append(("data", data[:efault_at], msgno))
                ev.append(("efault", msgno))
                ev.append(("data", data[efault_at:], msgno))
                ev.append(("eof", msgno))
            else:
                ev.append(("data", data, msgno))
                ev.append(("eof", msgno))
            eio_at = efault_at = None
            msgno += 1
        else:
            raise OracleError("scenario: unknown item kind %r" % kind)
    if open_fail and (not opened or severed):
        do_open()
    return ev
