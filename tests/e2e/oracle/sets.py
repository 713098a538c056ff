# SPDX-License-Identifier: MIT
"""Complete data sets decoded into records: MCEs, record headers, the
end-of-frame rule."""

from .base import FRAME, MCE_LEN, MRHDR_LEN, STRUCTURAL, be


# --------------------------------------------------------------------------
# Decoder: complete data sets -> records

class Record:
    __slots__ = ("set_index", "domain", "number", "tod", "data", "mask")

    def __init__(self, set_index, domain, number, tod, data, mask):
        self.set_index = set_index
        self.domain = domain
        self.number = number
        self.tod = tod
        self.data = data
        self.mask = mask  # MCE domain mask of its record set (bytes 1-2)

    def structural(self):
        return (self.domain, self.number) in STRUCTURAL


def decode_set(buf, set_index):
    """Records and counts of one complete data set.

    Returns (records, n_valid_headers, n_malformed); the records include
    the structural D1R11/D1R13."""
    recs = []
    nrec = 0
    bad = 0
    if len(buf) == 0:
        return recs, 0, 1  # the driver's answer to a rejected MCA
    pos = 0
    while pos < len(buf):
        mce = buf[pos:pos + MCE_LEN]
        if len(mce) < MCE_LEN:
            return recs, nrec, bad + 1
        start, end = be(mce, 4, 4), be(mce, 8, 4)
        if mce[0] == 0 or (mce[1] | mce[2]) == 0 or end <= start:
            return recs, nrec, bad + 1
        n = end - start + 1
        mask = (mce[1] << 8) | mce[2]
        rs = buf[pos + MCE_LEN:pos + MCE_LEN + n]
        if len(rs) != n:
            return recs, nrec, bad + 1
        pos += MCE_LEN + n
        off = 0
        while off < n:
            if n - off < MRHDR_LEN:
                bad += 1  # a header that runs past the record set
                break
            ln = be(rs, off, 2)
            zer = be(rs, off + 2, 2)
            if ln < MRHDR_LEN or off + ln > n or zer != 0:
                bad += 1  # the rest of this record set is skipped
                break
            nrec += 1
            dom, num = rs[off + 4], be(rs, off + 6, 2)
            tod = be(rs, off + 8, 8)
            recs.append(Record(set_index, dom, num, tod, bytes(rs[off:off + ln]), mask))
            if dom == 1 and num == 13:
                # end of frame: continue at the next 4 KB boundary of the
                # DCSS address space
                addr = start + off
                off = ((addr // FRAME) + 1) * FRAME - start
                continue
            off += ln
    return recs, nrec, bad
