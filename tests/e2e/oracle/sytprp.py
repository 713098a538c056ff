# SPDX-License-Identifier: MIT
"""D0R2 MRSYTPRP: processor data, the built-in record."""

from .base import be


# D0R2 MRSYTPRP (IBM z/VM 6.4 page mon640/MRSYTPRP.HTML, only the fields
# it confirms). CPU-timer format: bit 51 = 1 us, i.e. value >> 12 = us.
SYTPRP_PFXCPUAD = (20, 2)  # U2 real processor address: the instance
SYTPRP_PLSCUHAF = (22, 2)  # U2 dispatches with hard affinity: counter
SYTPRP_PFXPRBTM = (24, 8)  # CPU timer, emulation time, counts DOWN
SYTPRP_PFXUTIME = (32, 8)  # CPU timer, time charged to users, counts up


def d0r2_values(data):
    """(processor address, [(data source, value)]) of a D0R2 record, or
    None if it is too short for the address. Times in microseconds: the
    down-counting PFXPRBTM as X'7FFF...F' minus the field, so that both
    rates are CPU microseconds used per second."""
    off, w = SYTPRP_PFXCPUAD
    if len(data) < off + w:
        return None
    out = []
    off, w = SYTPRP_PLSCUHAF
    if len(data) >= off + w:
        out.append(("plscuhaf", be(data, off, w)))
    off, w = SYTPRP_PFXPRBTM
    if len(data) >= off + w:
        out.append(("pfxprbtm", ((2**63 - 1 - be(data, off, w)) % 2**64) >> 12))
    off, w = SYTPRP_PFXUTIME
    if len(data) >= off + w:
        out.append(("pfxutime", be(data, off, w) >> 12))
    return be(data, *SYTPRP_PFXCPUAD), out
