# SPDX-License-Identifier: MIT
"""The reader: its counters and the complete data sets it takes from the
read stream (the kernel's monreader documentation; man page "COUNTING
RULES")."""

READER_COUNTERS = [
    "errors-eoverflow", "errors-eio", "errors-efault", "errors-open",
    "errors-malformed", "errors-stream", "total_objects-sets", "total_objects-records",
    "total_objects-skipped", "total_bytes-read", "total_objects-restamped",
    "total_objects-time_future",
    "total_objects-short_records",
    # complete sets the queue had no memory for: never in these tests
    "total_objects-sets_dropped",
    # APPLDATA (domain 10) records not used: torn ones, unknown products
    "total_objects-appldata_torn", "total_objects-appldata_unknown",
    "total_objects-appldata_dropped",  # instance limit: never in these tests
]
# Depends on how the sets met in read callbacks: checked from dispatches().
PARTITION_COUNTERS = {"total_objects-restamped", "total_objects-time_future"}


# --------------------------------------------------------------------------
# The reader (the kernel's monreader documentation; man page "COUNTING RULES")

class Reader:
    def __init__(self):
        self.c = dict.fromkeys(READER_COUNTERS, 0)
        self.sets = []  # complete data sets, in order: (bytes, msgno)
        self.discarded = []  # message numbers whose data was thrown away

    def run(self, events):
        buf = bytearray()
        skipping = False  # after EFAULT: the rest of that set is invalid
        for e in events:
            kind = e[0]
            if kind == "openfail":
                self.c["errors-open"] += 1
            elif kind == "data":
                self.c["total_bytes-read"] += len(e[1])
                if not skipping:
                    buf += e[1]
            elif kind == "eof":
                if skipping:
                    skipping = False
                else:
                    self.c["total_objects-sets"] += 1
                    self.sets.append((bytes(buf), e[1]))
                buf = bytearray()
            elif kind == "eio":
                self.c["errors-eio"] += 1
                self.discarded.append(e[1])
                buf = bytearray()
            elif kind == "efault":
                # copy_to_user failed; the driver keeps its position, so the
                # rest of the set follows. Data read since the last 0-byte
                # read is invalid: if there is any, the set is cut off and
                # its rest is dropped up to its 0-byte read (no set). Before
                # its first byte nothing was read: nothing is lost.
                self.c["errors-efault"] += 1
                if buf or skipping:
                    self.discarded.append(e[1])
                    buf = bytearray()
                    skipping = True
            elif kind == "eoverflow":
                # the set read so far is valid; only counted
                self.c["errors-eoverflow"] += 1
            elif kind == "sever":
                # POLLERR (a non-blocking read would say EAGAIN): no read()
                # or open() failed, so no error counter; close and re-open.
                pass
        return self
