#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent oracle for the zvm_monitor end-to-end tests.

A second implementation of what the plugin must dispatch, written from the
specifications only -- never from the plugin's C code:

  * the scenario file format and fault semantics of the emulated device
    (contrib/monreader-emu/README.md),
  * the data stream of /dev/monreader (the kernel's monreader documentation and IBM's device driver book: MCE, record sets,
    0-byte read, EIO/EFAULT/EOVERFLOW),
  * the record header MRHDR, D4R10 MRUSEITE (IBM, z/VM V6R2.0) and D5R21 MRPRCSMT
    (IBM MRPRCSMT, z/VM V6R4.0), 4 KB frames and the end-of-frame record D1R13,
  * domain 10 (APPLDATA): the APHDR, the Linux kernel's appldata_{mem,os,
    net_sum}.c and s390-tools' mon_fsstatd/mon_procd layouts, and the names
    collectd 5.12's cpu, memory, swap, vmem, load, processes, interface and
    df plugins give their values,
  * the naming contract, the counting rules and the aggregation rules
    (contrib/zvm_monitor.pod).

It parses the scenario byte by byte, models the device's read stream and a
reader following the counting rules, decodes the complete data sets and maps
them under a configuration (Domain, UserID, IgnoreSelected, GuestsAsHosts,
ApplDataKinds, ApplDataNaming).
How the sets were spread over read callbacks is taken from the daemon's own
total_objects-sets series (one line per callback), so the expected values
are exact even when several data sets meet in one callback.

Commands (Python 3 standard library only):

  oracle.py dump SCENARIO [CONFIG]            what the plugin must dispatch
  oracle.py ready SCENARIO --csv DIR [CONFIG]  exit 0 once the reader
                                              counters in DIR are final
  oracle.py check SCENARIO --csv DIR [CONFIG] [--log FILE]
                                              compare everything, exit 1 on
                                              any difference
  oracle.py value SCENARIO IDENT [CONFIG]     last expected value of one
                                              identifier: "TIME VALUE"

CONFIG: --hostname H, --domain D (repeatable), --userid U (repeatable),
--ignore-selected, --guests-as-hosts, --one-value-per-list,
--report-by-vcpu, --open-errors-min N (errors-open is
only known to be at least N, e.g. EBUSY while another process holds the
device), --leap-seconds N (LeapSecondOffset N; default 0, what "auto"
finds for data far from the local clock), --wall FROM:TO (Unix seconds
between which the daemon ran: the window of every set's arrival time),
--appldata-kind K (repeatable), --appldata-naming collectd|zvm_monitor.

Time rules (the man page, "AGGREGATION AND TIME STAMPS"): a record's TOD is taken in the
TOD epoch (1900 + k * 2^52 us) nearest the local clock, less the
leap-second offset. Per read callback, the latest record of an instance (a
guest; a CPU type or the system part of D5R21) gives its values; if its
time is not after the instance's last time, the values carry the set's
arrival time if that is later (known only to lie in the --wall window),
else the last time + 1 us, and total_objects-restamped counts one. A record
time more than 1 h + 60 s after its set's arrival is not used: the arrival
time is (or the last time + 1 us), and total_objects-time_future counts one
instead (scenarios keep record times either well behind or well ahead of
the --wall window; a time within the window's uncertainty is an error).
--conf FILE (the daemon's collectd.conf: its <Record> blocks, decoded
here from their own text). D0R2 (IBM mon640 MRSYTPRP) is decoded as the
built-in record.

Value shape (contrib/zvm_monitor.pod, "VALUE LISTS AND TYPES"): by default
every record instance is one value list of the record's type -- a guest's
D4R10 values are one list of type zvm_useite whose data sources are
transactions and then the D4R10 values below in this order; D5R21 gives
zvm_prcsmt (system) and zvm_prcsmt_cpu (per CPU type). Its identifier here
is "host/plugin-instance/type" (empty type instance) and its value all the
data sources in order, as the csv plugin writes them. With
--one-value-per-list every value is a list of its own, as in the first
release. An IDENT for "value" may name one data source of a list:
"host/plugin-instance/type/ds".
"""

import argparse
import glob
import json
import os
import re
import struct
import sys

TOD_UNIX_EPOCH = 0x7D91048BCA000000  # TOD clock value of 1970-01-01
FRAME = 4096
STRUCTURAL = {(1, 11), (1, 13)}  # interval end, end of frame
MRHDR_LEN = 20
MCE_LEN = 12

# --------------------------------------------------------------------------
# Record layouts, from the seeds (offsets in bytes from the record start).
# (offset, width, signed, collectd type, type instance)

# D4R10 MRUSEITE (IBM MRUSEITE, z/VM V6R2.0). The pod names the dispatched
# fields: every counter as derive-<name>, VMDSLCNT and VMDDFRWK as gauges.
# Not dispatched: VMDCPUAD (address), VMDSVMID (name), flag bytes,
# VMDSTATE, VMDPUTYP (CPU type).
D4R10_USER = (20, 8)  # USEITE_VMDUSER, EBCDIC, blank padded
D4R10_FIELDS = [
    (30, 2, True, "gauge", "vmdslcnt"),  # Signed 2
    (32, 4, False, "derive", "vmdsvmfx"),
    (48, 4, False, "derive", "hfquct"),
    (52, 4, False, "derive", "hfdisp0"),
    (56, 4, False, "derive", "hfdisp1"),
    (60, 4, False, "derive", "hfdisp2"),
    (64, 4, False, "derive", "hfdisp3"),
    (68, 4, False, "derive", "hfelig0"),
    (72, 4, False, "derive", "hfelig1"),
    (76, 4, False, "derive", "hfelig2"),
    (80, 4, False, "derive", "hfelig3"),
    (84, 4, False, "derive", "hfstct"),
    (88, 4, False, "derive", "hftidl"),
    (92, 4, False, "derive", "hftsvm"),
    (96, 4, False, "derive", "hfiowt"),
    (100, 4, False, "derive", "hfcfwt"),
    (104, 4, False, "derive", "hfsimwt"),
    (108, 4, False, "derive", "hfwtpag"),
    (112, 4, False, "derive", "hfcpuwt"),
    (116, 4, False, "derive", "hfcpurn"),
    (120, 4, False, "derive", "hfesvm"),
    (124, 4, False, "derive", "hfload"),
    (128, 4, False, "derive", "hfdorm"),
    (132, 4, True, "derive", "hfdsvm"),  # the one Signed 4 counter
    (136, 4, False, "derive", "hfothr"),
    (140, 2, False, "derive", "vmdcntid"),
    (142, 2, False, "derive", "vmdctidl"),
    (144, 4, False, "gauge", "vmddfrwk"),
]
for _base, _name in ((152, "vmdcprmd"), (160, "vmdcwsgd"), (168, "vmdcetsd"),
                     (176, "vmdcidld")):  # Unsigned 2 (4): Q0..Q3
    for _q in range(4):
        D4R10_FIELDS.append((_base + 2 * _q, 2, False, "derive", "%s_q%d" % (_name, _q)))
D4R10_FIELDS += [
    (184, 4, False, "derive", "hfioact"),
    (188, 4, False, "derive", "hfllist"),
    (192, 4, False, "derive", "hfpgact"),
]
# Levels, not counters: never summed over a guest's VMDBKs (the base
# VMDBK's value is the guest's).
LEVELS = {"vmdslcnt", "vmddfrwk"}

# D5R21 MRPRCSMT (IBM MRPRCSMT, z/VM V6R4.0)
PRCSMT_RCCSMTSQ = 20  # U4
PRCSMT_CAL_STATUS = 24  # U1: X'80' start, X'40' end
PRCSMT_CALMAXTC = 25  # U1
PRCSMT_CAL_CPUTACNT = 29  # U1 entries
PRCSMT_CAL_CPUTAESZ = 30  # U2 entry size
PRCSMT_CAL_CPUTAOFF = 32  # U2 array offset
# PRCSMT_CPUTINFO entry: 0 CPUTYPE, 2 RCCHWMNT, 3 RCCSYMNT, 4 RCCACMNT,
# 6 RCCCRMNT (all U1); an entry is 8 bytes.
CPUTINFO_LEN = 8
CPU_TYPES = {0: "cp", 2: "zaap", 3: "ifl", 4: "icf", 5: "ziip"}

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


# --------------------------------------------------------------------------
# <Record> blocks of collectd.conf (man page, "RECORDS DEFINED IN
# COLLECTD.CONF"), read from the daemon's own configuration file.

class UserField:
    def __init__(self, name):
        self.name = name.lower()
        self.offset = self.length = self.type = self.kind = None
        self.scale = 1.0
        self.count = 1
        self.down = False
        self.mask = 0        # Mask: a named bit, 1 or 0
        self.hex = False     # Format "hex": an instance number in hex
        self.elem = "_"      # ElementPrefix

    def ds_names(self):
        if self.count == 1:
            return [self.name]
        return ["%s%s%d" % (self.name, self.elem, i) for i in range(self.count)]


class UserRecord:
    def __init__(self, ident):
        d, r = ident.split("/")
        self.domain, self.number = int(d), int(r)
        self.name = None
        self.prefix = ""
        self.fields = []

    @property
    def type_name(self):
        return "zvm_" + self.name

    def keys(self):
        return [f for f in self.fields if f.kind == "instance"]

    def values(self):
        return [f for f in self.fields if f.kind in ("counter", "gauge")]


def parse_record_blocks(path):
    """[UserRecord] from the <Record> blocks of a collectd.conf (the subset
    of its syntax the e2e configurations use: one option per line)."""
    recs = []
    rec = fld = None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            m = re.match(r'^<Record\s+"([^"]*)">$', line, re.I)
            if m:
                rec = UserRecord(m.group(1))
                continue
            if rec is None:
                continue
            m = re.match(r'^<Field\s+"([^"]*)">$', line, re.I)
            if m:
                fld = UserField(m.group(1))
                continue
            if re.match(r"^</Field>$", line, re.I):
                rec.fields.append(fld)
                fld = None
                continue
            if re.match(r"^</Record>$", line, re.I):
                recs.append(rec)
                rec = None
                continue
            m = re.match(r'^(\w+)\s+"?([^"]*)"?$', line)
            if not m:
                continue
            k, v = m.group(1).lower(), m.group(2)
            if fld is not None:
                if k in ("offset", "length", "count"):
                    setattr(fld, k, int(float(v)))
                elif k in ("type", "kind"):
                    setattr(fld, k, v.lower())
                elif k == "scale":
                    fld.scale = float(v)
                elif k == "countsdown":
                    fld.down = v.lower() == "true"
                elif k == "mask":
                    fld.mask = int(float(v))
                elif k == "format":
                    fld.hex = v.lower() == "hex"
                elif k == "elementprefix":
                    fld.elem = v.lower()
            elif k == "name":
                rec.name = v.lower()
            elif k == "instanceprefix":
                rec.prefix = v
    return recs


def user_field_value(f, data, i):
    """Element i of a counter/gauge field, or None if the record is too
    short for it."""
    off = f.offset + i * f.length
    if off + f.length > len(data):
        return None
    raw = be(data, off, f.length, f.type == "signed")
    if f.mask:
        return 1.0 if raw & f.mask else 0.0
    if f.type == "cputimer":
        v = (((2**63 - 1 - raw) % 2**64) if f.down else raw) >> 12
    elif f.type == "tod":
        v = (raw - TOD_UNIX_EPOCH) / 4096e6
    elif f.down:
        v = (2**63 - 1 - raw) % 2**64
    else:
        v = raw
    v = v * f.scale if f.scale != 1.0 else v
    return int(v) if f.kind == "counter" else float(v)


def user_record_values(rec, data):
    """(plugin instance, [(data source, value or None)]) of one record, or
    None if an instance field lies outside it."""
    parts = []
    for i, k in enumerate(rec.keys()):
        if k.offset + k.length > len(data):
            return None
        raw = data[k.offset:k.offset + k.length]
        if k.type in ("ebcdic", "userid"):
            text = user_name(raw)
            if not text.strip("\x00"):
                return None  # a blank name names nothing: skipped
        elif k.hex:
            text = "%0*X" % (2 * k.length, be(raw, 0, k.length))
        else:
            text = str(be(raw, 0, k.length))
        parts.append((rec.prefix if i == 0 else "_") + text)
    vals = []
    for f in rec.values():
        for i, ds in enumerate(f.ds_names()):
            vals.append((ds, user_field_value(f, data, i)))
    return "".join(parts), vals

# One value list per record instance (the default): the data sources of
# each record's type, in the documented order (the pod and the shipped
# contrib/zvm_monitor.types.db), written down here, not derived from the C.
USEITE_TYPE = "zvm_useite"  # transactions, then D4R10_FIELDS in order
PRCSMT_TYPE = "zvm_prcsmt"
PRCSMT_DS = ("mt_config_seq", "mt_max_threads", "statement_all", "set_all",
             "set_initial", "statement_all_is_max", "set_all_is_max")
PRCSMT_CPU_TYPE = "zvm_prcsmt_cpu"
PRCSMT_CPU_DS = ("statement", "hardware_max", "zvm_max", "activated",
                 "set_command", "requested", "statement_is_max",
                 "set_command_is_max", "requested_is_max")

DOMAINS = {
    "system": 0, "monitor": 1, "scheduler": 2, "storage": 3, "user": 4,
    "processor": 5, "i/o": 6, "seek": 7, "virtual_network": 8, "isfc": 9,
    "appldata": 10, "ssi": 11,
}

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


# --------------------------------------------------------------------------
# Scenario file (contrib/monreader-emu/README.md, "Scenario file format")

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


# --------------------------------------------------------------------------
# Configuration, selection and naming

class Config:
    def __init__(self, hostname="zvmtest", domains=(), userids=(),
                 ignore_selected=False, guests_as_hosts=False,
                 leap_seconds=0, wall=None, report_by_vcpu=False,
                 one_value_per_list=False, records=(), appldata_kinds=None,
                 appldata_naming="collectd"):
        self.hostname = hostname
        self.one_value_per_list = one_value_per_list
        self.appldata_kinds = set(appldata_kinds or APL_DEFAULT_KINDS)
        self.appldata_naming = appldata_naming
        self.records = {(r.domain, r.number): r for r in records}
        self.report_by_vcpu = report_by_vcpu
        self.leap_us = leap_seconds * 1000000
        if wall:
            lo, hi = (int(x) for x in wall.split(":"))
        else:
            import time as _time
            lo = hi = int(_time.time())
        # every set arrived in this window (a second of slack either side)
        self.wall_from_us, self.wall_to_us = (lo - 1) * 1000000, (hi + 1) * 1000000
        self.wall_ref_us = lo * 1000000
        self.domains = set()
        for d in domains:
            if d.isdigit():
                self.domains.add(int(d))
            elif d.lower() in DOMAINS:
                self.domains.add(DOMAINS[d.lower()])
            else:
                raise OracleError("unknown domain %r" % d)
        self.exact = [u.upper() for u in userids if not (len(u) >= 2 and u[0] == "/" and u[-1] == "/")]
        self.regex = [re.compile(u[1:-1]) for u in userids if len(u) >= 2 and u[0] == "/" and u[-1] == "/"]
        self.ignore_selected = ignore_selected
        self.guests_as_hosts = guests_as_hosts

    def domain_selected(self, dom):
        return not self.domains or dom in self.domains

    def mask_selected(self, mask):
        """MCE mask: byte 1 X'80' = domain 0 ... byte 2 X'01' = domain 15."""
        if not self.domains:
            return True
        return any(mask & (0x8000 >> d) for d in self.domains)

    def user_selected(self, name):
        if not self.exact and not self.regex:
            return True
        hit = name.upper() in self.exact or any(r.search(name) for r in self.regex)
        return hit != self.ignore_selected


ALLOWED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$_-+")


def user_name(raw):
    """EBCDIC user ID -> identifier text: trailing blanks trimmed, bytes
    other than A-Z 0-9 @ # $ _ - + as %XX (the EBCDIC code)."""
    raw = raw.rstrip(b"\x40")
    out = []
    for b in raw:
        ch = bytes([b]).decode("cp037")
        out.append(ch if ch in ALLOWED else "%%%02X" % b)
    return "".join(out)


def ident(host, pinst, type_, tinst):
    p = "zvm_monitor" + ("-" + pinst if pinst else "")
    if tinst is None:  # a record instance's list: no type instance
        return "%s/%s/%s" % (host, p, type_)
    return "%s/%s/%s-%s" % (host, p, type_, tinst)


def d4r10_values(rec):
    """[(type, type_instance, value)] of the fields the record contains."""
    out = []
    for off, width, signed, typ, name in D4R10_FIELDS:
        if off + width <= len(rec.data):
            out.append((typ, name, be(rec.data, off, width, signed)))
    return out


# D5R21 values (IBM MRPRCSMT (z/VM V6R4.0); names from the man page). Thread counts are
# gauges of type "threads"; X'FF' means MAX was specified: NaN, and for the
# counts MAX can be given for a bool-<name>_is_max of 1 (else 0).
THREADS_MAX = 0xFF
# CPUTINFO entry: (offset, type instance, has an _is_max flag)
CPUTINFO_FIELDS = [(4, "activated", False), (6, "requested", True),
                   (2, "hardware_max", False), (3, "zvm_max", False),
                   (1, "statement", True), (5, "set_command", True)]


class Prcsmt:
    """One D5R21: the fixed part, the CPUTINFO entries, and whether the
    array was usable."""
    __slots__ = ("seq", "status", "maxtc", "coall", "small", "smset", "ents",
                 "array_ok")


def d5r21_parse(rec):
    d = rec.data
    p = Prcsmt()
    p.seq = be(d, 20, 4) if len(d) >= 24 else None
    p.status = d[24] if len(d) >= 25 else 0
    p.maxtc = d[25] if len(d) >= 26 else None
    p.coall = d[26] if len(d) >= 27 else None
    p.small = d[27] if len(d) >= 28 else None
    p.smset = d[28] if len(d) >= 29 else None
    p.ents = []  # [{offset: byte}] of entries holding every field
    p.array_ok = True
    if len(d) < 34:  # the locating fields are absent: no array
        return p
    cnt, esz, aoff = d[29], be(d, 30, 2), be(d, 32, 2)
    if cnt == 0:
        return p
    # unusable: no entry size, an offset inside the 20-byte header, or
    # entries beyond the record
    if esz == 0 or aoff < MRHDR_LEN or aoff + cnt * esz > len(d):
        p.array_ok = False
        return p
    for i in range(cnt):
        e = aoff + i * esz
        if esz >= 7:  # an entry without every count is left out
            p.ents.append({o: d[e + o] for o in range(7)})
    return p


def threads_value(v):
    return float("nan") if v == THREADS_MAX else v


def list_ds_names(type_):
    """The data sources of one of the plugin's types, in order."""
    if type_ == USEITE_TYPE:
        return ["transactions"] + [f[4] for f in D4R10_FIELDS]
    if type_ == PRCSMT_TYPE:
        return list(PRCSMT_DS)
    if type_ == PRCSMT_CPU_TYPE:
        return list(PRCSMT_CPU_DS)
    if type_ == "zvm_sytprp":
        return ["plscuhaf", "pfxprbtm", "pfxutime"]
    return []


def cpu_name(t):
    return CPU_TYPES.get(t, "type%d" % t)


def threads_text(n):
    return "MAX" if n == 0xFF else str(n)


# --------------------------------------------------------------------------
# Domain 10 (APPLDATA): Linux guests' own data, decoded from the published
# layouts, never from the plugin's C code:
#   APHDR (D10R1 MRAPLEDT / D10R2 MRAPLSDT): 20 CALDATOF s2, 22 CALDATLN s2,
#     24 USERID c8 EBCDIC, 32 product ID c16, 48 status.
#   kernel arch/s390/appldata/appldata_base.c (product ID EBCDIC
#     "LINUXKRNL" + record byte + "2601" + mod level), appldata_mem.c,
#     appldata_os.c, appldata_net_sum.c (struct appldata_*_data, packed).
#   s390-tools mon_tools/mon_fsstatd.{c,h}, mon_procd.{c,h} (product ID
#     ASCII "LNXAPPL" + applid u16 + record + version u16 + release +
#     slot).
# Names: collectd 5.12's own plugins on the guest (contrib/zvm_monitor.pod,
# APPLDATA).

APL_KINDS = ("mem", "os", "net_sum", "fsstat", "procd_sum", "procd_task")
APL_DEFAULT_KINDS = ("mem", "os", "net_sum", "fsstat", "procd_sum")
APL_KERNEL_ID = "LINUXKRNL".encode("cp037")
APL_KERNEL_VER = "2601".encode("cp037")


def apl_product(p):
    """Product ID -> layout name, or None."""
    if p[:9] == APL_KERNEL_ID and p[10:14] == APL_KERNEL_VER:
        mod = p[14:16].decode("cp037")
        if p[9] == 1 and mod == "00":
            return "mem"
        if p[9] == 2 and mod in ("00", "01"):
            return "os"
        if p[9] == 3 and mod == "00":
            return "net_sum"
        return None
    if p[:7] == b"LNXAPPL" and be(p, 10, 2) == 0:
        applid, rec = be(p, 7, 2), p[9]
        return {(1, 0): "fsstat", (2, 0): "procd_sum", (2, 1): "procd_task"}.get((applid, rec))
    return None


def apl_decode(rec):
    """(status, kind, fields) of a domain 10 record; status is "ok",
    "bad" (header or data), "unknown", "torn" or "empty"."""
    d = rec.data
    if len(d) < 52:
        return "bad", None, None
    off, ln = be(d, 20, 2, True), be(d, 22, 2, True)
    if off < 52 or ln < 0 or off + ln > len(d):
        return "bad", None, None
    kind = apl_product(d[32:48])
    if kind is None:
        return "unknown", None, None
    a = d[off:off + ln]
    f = {}
    if kind in ("mem", "os", "net_sum"):
        need = {"mem": 144, "os": 52, "net_sum": 96}[kind]
        if len(a) < need:
            return "bad", kind, None
        if be(a, 8, 4) != be(a, 12, 4):
            return "torn", kind, None
        if be(a, 0, 8) == 0:
            return "empty", kind, None
    if kind == "mem":
        names = ("pgpgin pgpgout pswpin pswpout sharedram totalram freeram totalhigh "
                 "freehigh bufferram cached totalswap freeswap pgalloc pgfault pgmajfault").split()
        for i, n in enumerate(names):
            f[n] = be(a, 16 + 8 * i, 8)
    elif kind == "os":
        ncpu, size, coff = be(a, 16, 4), be(a, 20, 4), be(a, 24, 4)
        f["nr_cpus"], f["nr_running"], f["nr_threads"] = ncpu, be(a, 28, 4), be(a, 32, 4)
        f["avenrun"] = [be(a, 36 + 4 * i, 4) for i in range(3)]
        f["nr_iowait"] = be(a, 48, 4)
        if size < 28 or coff < 52 or coff + ncpu * size > len(a):
            return "bad", kind, None
        cpus = []
        for i in range(ncpu):
            e = coff + i * size
            c = dict(zip("user nice system idle irq softirq iowait".split(),
                         (be(a, e + 4 * k, 4) for k in range(7))))
            if size >= 36:
                c["steal"], c["id"] = be(a, e + 28, 4), be(a, e + 32, 4)
            else:
                c["id"] = i
            cpus.append(c)
        ids = [c["id"] for c in cpus]
        if len(set(ids)) != len(ids) or any(i > 4095 for i in ids):
            return "bad", kind, None
        f["cpus"] = cpus
    elif kind == "net_sum":
        f["nr_interfaces"] = be(a, 16, 4)
        for i, n in enumerate("rx_packets tx_packets rx_bytes tx_bytes rx_errors "
                              "tx_errors rx_dropped tx_dropped collisions".split()):
            f[n] = be(a, 24 + 8 * i, 8)
    else:
        if len(a) < 12:
            return "bad", kind, None
        ts, dlen, doff = be(a, 0, 8), be(a, 8, 2), be(a, 10, 2)
        if doff < 12 or doff + dlen > len(a):
            return "bad", kind, None
        p = a[doff:doff + dlen]
        need = {"fsstat": 6 + 72, "procd_sum": 166, "procd_task": 111}[kind]
        if dlen < need:
            return "bad", kind, None
        if ts == 0:
            return "empty", kind, None

        def strings(pos, n):
            out = []
            for _ in range(n):
                if pos + 2 > len(p):
                    return None, pos
                sl = be(p, pos, 2)
                if pos + 2 + sl > len(p):
                    return None, pos
                out.append(bytes(p[pos + 2:pos + 2 + sl]))
                pos += 2 + sl
            return out, pos
        if kind == "fsstat":
            s, pos = strings(0, 3)
            if s is None or pos + 72 > len(p) or not s[1]:
                return "bad", kind, None
            f["dev"], f["dir"], f["type"] = s
            for i, n in enumerate("bsize frsize blocks bfree bavail files ffree favail flag".split()):
                f[n] = be(p, pos + 8 * i, 8)
        elif kind == "procd_sum":
            f["uptime"], f["users"] = be(p, 0, 8), be(p, 8, 4)
            for i, n in enumerate("total running sleeping stopped zombie".split()):
                f["tasks_" + n] = be(p, 30 + 4 * i, 4)
            for i, n in enumerate("user nice system idle wait interrupt softirq steal".split()):
                f["p" + n] = be(p, 54 + 2 * i, 2)
        else:
            f["pid"] = be(p, 0, 4)
            for n, o in (("size", 42), ("resident", 58), ("trs", 66), ("drs", 74)):
                f[n] = be(p, o, 8)
            f["pcpu"], f["pmem"] = be(p, 22, 2), be(p, 24, 2)
            s, _pos = strings(111, 6)
            if s is None:
                return "bad", kind, None
            f["cmd"] = s[4]
    return "ok", kind, f


APL_SAFE = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")


def apl_name(raw, slash_to_dash, size=64):
    """Guest-written bytes -> name: '/' -> '-' (df), bytes outside
    [A-Za-z0-9._+-] as %xx; longer than size-1: a prefix (never cut
    inside %xx), '~' and the 32-bit FNV-1a of the bytes in hex."""
    parts = []
    for b in raw:
        if slash_to_dash and b == 0x2F:
            parts.append("-")
        elif b in APL_SAFE:
            parts.append(chr(b))
        else:
            parts.append("%%%02x" % b)
    s = "".join(parts)
    if len(s) <= size - 1:
        return s
    h = 2166136261
    for b in raw:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    out = ""
    for p in parts:
        if len(out) + len(p) > size - 1 - 9:
            break
        out += p
    return "%s~%08x" % (out, h)


def apl_mount(d):
    if d == b"/":
        return "root"
    return apl_name(d[1:] if d[:1] == b"/" else d, True)


def apl_load(x):
    return (x >> 11) + (((x & 2047) * 100) >> 11) / 100.0


def apl_values(kind, f):
    """[(plugin, plugin instance, type, type instance, ((kind, v), ...))]"""
    out = []
    G, D = "gauge", "derive"

    def v(pl, pi, ty, ti, *vals):
        out.append((pl, pi, ty, ti, tuple(vals)))
    if kind == "mem":
        busy = f["freeram"] + f["bufferram"] + f["cached"]
        if f["totalram"] >= busy:
            v("memory", "", "memory", "used", (G, (f["totalram"] - busy) * 1024.0))
        for ti, n in (("buffered", "bufferram"), ("cached", "cached"), ("free", "freeram")):
            v("memory", "", "memory", ti, (G, f[n] * 1024.0))
        if f["totalswap"] >= f["freeswap"]:
            v("swap", "", "swap", "used", (G, (f["totalswap"] - f["freeswap"]) * 1024.0))
        v("swap", "", "swap", "free", (G, f["freeswap"] * 1024.0))
        v("swap", "", "swap_io", "in", (D, f["pswpin"]))
        v("swap", "", "swap_io", "out", (D, f["pswpout"]))
        v("vmem", "", "vmpage_io", "memory", (D, f["pgpgin"]), (D, f["pgpgout"]))
        v("vmem", "", "vmpage_io", "swap", (D, f["pswpin"]), (D, f["pswpout"]))
        v("vmem", "", "vmpage_faults", "", (D, f["pgfault"]), (D, f["pgmajfault"]))
        v("vmem", "", "vmpage_action", "alloc", (D, f["pgalloc"]))
    elif kind == "os":
        for c in f["cpus"]:
            pi = str(c["id"])
            for ti, n in (("user", "user"), ("nice", "nice"), ("system", "system"),
                          ("idle", "idle"), ("wait", "iowait"), ("interrupt", "irq"),
                          ("softirq", "softirq"), ("steal", "steal")):
                if n in c:
                    v("cpu", pi, "cpu", ti, (D, c[n]))
        v("cpu", "", "count", "", (G, f["nr_cpus"]))
        v("load", "", "load", "", *((G, apl_load(x)) for x in f["avenrun"]))
        v("processes", "", "ps_state", "running", (G, f["nr_running"]))
        v("processes", "", "ps_state", "blocked", (G, f["nr_iowait"]))
        v("processes", "", "threads", "", (G, f["nr_threads"]))
    elif kind == "net_sum":
        for ty, n in (("if_octets", "bytes"), ("if_packets", "packets"),
                      ("if_errors", "errors"), ("if_dropped", "dropped")):
            v("interface", "sum", ty, "", (D, f["rx_" + n]), (D, f["tx_" + n]))
        v("interface", "sum", "if_collisions", "", (D, f["collisions"]))
        v("interface", "sum", "count", "", (G, f["nr_interfaces"]))
    elif kind == "fsstat":
        pi = apl_mount(f["dir"])
        if not pi or f["blocks"] == 0:
            return out
        bavail = 0 if f["bavail"] >= 1 << 63 else f["bavail"]
        bfree = max(f["bfree"], bavail)
        blocks = max(f["blocks"], bfree)
        bs = f["frsize"]
        v("df", pi, "df_complex", "free", (G, float(bavail) * bs))
        v("df", pi, "df_complex", "reserved", (G, float(bfree - bavail) * bs))
        v("df", pi, "df_complex", "used", (G, float(blocks - bfree) * bs))
        if f["files"] and f["ffree"]:
            ffree = max(f["ffree"], f["favail"])
            files = max(f["files"], ffree)
            v("df", pi, "df_inodes", "free", (G, float(f["favail"])))
            v("df", pi, "df_inodes", "reserved", (G, float(ffree - f["favail"])))
            v("df", pi, "df_inodes", "used", (G, float(files - ffree)))
    elif kind == "procd_sum":
        for ti in ("sleeping", "stopped"):
            v("processes", "", "ps_state", ti, (G, f["tasks_" + ti]))
        v("processes", "", "ps_state", "zombies", (G, f["tasks_zombie"]))
        v("users", "", "users", "", (G, f["users"]))
        v("uptime", "", "uptime", "", (G, f["uptime"]))
        for ti in "user nice system idle wait interrupt softirq steal".split():
            v("cpu", "", "percent", ti, (G, f["p" + ti] / 100.0))
    elif kind == "procd_task":
        pi = "%s_%d" % (apl_name(f["cmd"], False, 53), f["pid"])
        for ty, n in (("ps_rss", "resident"), ("ps_vm", "size"), ("ps_code", "trs"),
                      ("ps_data", "drs")):
            v("processes", pi, ty, "", (G, f[n] * 1024.0))
        v("processes", pi, "percent", "cpu", (G, f["pcpu"] / 100.0))
        v("processes", pi, "percent", "memory", (G, f["pmem"] / 100.0))
    return out


def apl_ident(cfg, guest, pl, pi, ty, ti):
    """Identifier of an APPLDATA value under the naming option."""
    if cfg.appldata_naming == "zvm_monitor":
        inst = "%s-%s%s" % (guest, pl, "-" + pi if pi else "")
        return "%s/zvm_monitor-%s/%s%s" % (cfg.hostname, inst, ty, "-" + ti if ti else "")
    return "%s/%s%s/%s%s" % (guest.lower(), pl, "-" + pi if pi else "", ty, "-" + ti if ti else "")


# --------------------------------------------------------------------------
# The whole model

class Model:
    def __init__(self, scn, cfg):
        self.cfg = cfg
        self.reader = Reader().run(device_events(scn))
        self.c = dict(self.reader.c)
        self.records = []
        self.set_records = []  # per set: cumulative (records, malformed, skipped)
        cum_rec = cum_bad = cum_skip = cum_short = 0
        for i, (buf, _msg) in enumerate(self.reader.sets):
            recs, nrec, bad = decode_set(buf, i)
            cum_rec += nrec
            cum_bad += bad
            # skipped = "unknown or filtered records" (man page, "COUNTING RULES"):
            #  - filtered: records of a domain Domain does not select (pod:
            #    "still counted as records and as skipped"), and every
            #    record of a record set whose MCE domain mask names no
            #    selected domain (the mask lists the domains whose data
            #    the set holds: such a set is skipped whole);
            #  - otherwise the structural records D1R11 and D1R13 (pod: "the
            #    structural records") are neither unknown nor filtered;
            #  - every other record not turned into values.
            used = [r for r in recs if self.used(r)]
            cum_skip += sum(1 for r in recs if not self.used(r) and
                            not (r.structural() and self.selected(r)))
            # a D5R21 whose array is unusable is malformed (and still used)
            cum_bad += sum(1 for r in recs if r.domain == 5 and r.number == 21 and
                           self.selected(r) and not d5r21_parse(r).array_ok)
            # an APPLDATA record whose lengths, counts or offsets do not fit
            apl = [apl_decode(r)[0] for r in recs
                   if r.domain == 10 and r.number == 2 and self.selected(r)]
            cum_bad += apl.count("bad")
            self.c["total_objects-appldata_torn"] = \
                self.c.get("total_objects-appldata_torn", 0) + apl.count("torn")
            self.c["total_objects-appldata_unknown"] = \
                self.c.get("total_objects-appldata_unknown", 0) + apl.count("unknown")
            cum_short += sum(1 for r in recs if self.short(r))
            self.records += used
            self.set_records.append((cum_rec, cum_bad, cum_skip, cum_short))
        self.c.setdefault("total_objects-appldata_torn", 0)
        self.c.setdefault("total_objects-appldata_unknown", 0)
        self.c.setdefault("total_objects-appldata_dropped", 0)
        self.c.setdefault("total_objects-time_future", 0)
        self.c["total_objects-records"] = cum_rec
        self.c["errors-malformed"] = cum_bad
        self.c["total_objects-skipped"] = cum_skip
        self.c["total_objects-short_records"] = cum_short
        # records of discarded messages, decoded in full: must never show
        self.forbidden = []
        msgs = [p for k, p in scn.items if k == "M"]
        for m in sorted(set(self.reader.discarded)):
            recs, _n, _b = decode_set(scn.deliverable(msgs[m]), -1)
            self.forbidden += [r for r in recs if self.used(r)]

    def selected(self, r):
        """Domain selection: the record's domain and its set's MCE mask."""
        return self.cfg.domain_selected(r.domain) and self.cfg.mask_selected(r.mask)

    # Tables and their length (the end of their last field): D4R10 199
    # (VMDPUST at 198), D5R21 34 (fixed part up to CAL_CPUTAOFF), D0R2 40,
    # D4R1/D4R2 30 (user ID and VMDCPUAD).
    TABLE_LEN = {(4, 10): 199, (5, 21): 34, (0, 2): 40, (4, 1): 30, (4, 2): 30}

    def short(self, r):
        """A selected record its table decodes, shorter than the table's
        fields (man page: total_objects-short_records)."""
        if not self.selected(r):
            return False
        u = self.cfg.records.get((r.domain, r.number))
        if u is not None:
            need = max(f.offset + f.length * f.count for f in u.fields)
        else:
            need = self.TABLE_LEN.get((r.domain, r.number))
        return need is not None and len(r.data) < need

    def used(self, r):
        if not self.selected(r):
            return False
        u = self.cfg.records.get((r.domain, r.number))
        if u is not None:
            got = user_record_values(u, r.data)
            if got is None or self.rec_us(r) is None:
                return False
            if any(k.type == "userid" for k in u.keys()):
                return self.cfg.user_selected(got[0][len(u.prefix):])
            return True
        if (r.domain, r.number) == (0, 2):
            return d0r2_values(r.data) is not None and self.rec_us(r) is not None
        if r.domain == 4 and r.number == 10:
            if len(r.data) < D4R10_USER[0] + D4R10_USER[1]:
                return False
            name = user_name(r.data[20:28])
            if not name or self.rec_us(r) is None:
                return False
            return self.cfg.user_selected(name)
        if r.domain == 5 and r.number == 21:
            # an unusable array loses only the per-type values
            return self.rec_us(r) is not None
        if r.domain == 4 and r.number in (1, 2):
            # D4R1 MRUSELON / D4R2 MRUSELOF: user ID at 20, nothing else
            # used (IBM mon620/mon730: only offsets 20-30 are common)
            if len(r.data) < 28 or self.rec_us(r) is None:
                return False
            name = user_name(r.data[20:28])
            return bool(name) and self.cfg.user_selected(name)
        if r.domain == 10 and r.number == 2:
            return self.appldata_used(r)
        return False

    # -- time
    def rec_us(self, r):
        """A record's UTC time (the local clock is the --wall start)."""
        return tod_to_us(r.tod, self.cfg.wall_ref_us, self.cfg.leap_us)

    def session_note(self, r, name, logon):
        """Logon (OKAY) / logoff (WARNING) notification of a guest."""
        if self.cfg.guests_as_hosts:
            host, pinst = name.lower(), ""
        else:
            host, pinst = self.cfg.hostname, name
        return ("OKAY" if logon else "WARNING", self.rec_us(r),
                "z/VM guest %s logged %s" % (name, "on" if logon else "off"),
                None, host, pinst, "logon" if logon else "logoff")

    def appldata_used(self, r):
        """A D10R2 record that yields values: decoded OK, its kind
        selected (ApplDataKinds), its guest selected (UserID). D10R1
        event records, torn, empty, unknown or bad ones yield none."""
        status, kind, _f = apl_decode(r)
        if status != "ok" or kind not in self.cfg.appldata_kinds:
            return False
        name = user_name(r.data[24:32])
        return bool(name) and self.cfg.user_selected(name)

    def appldata_idents(self, r):
        _status, kind, f = apl_decode(r)
        guest = user_name(r.data[24:32])
        return [(apl_ident(self.cfg, guest, pl, pi, ty, ti), vals)
                for pl, pi, ty, ti, vals in apl_values(kind, f)]

    def appldata_instances(self, r):
        """{instance: {ident: (value, type)}}: one instance per guest and
        record kind, per file system name (fsstat) and per process name
        (procd_task), as the plugin keeps them (man page)."""
        _status, kind, f = apl_decode(r)
        guest = user_name(r.data[24:32])
        if kind == "fsstat":
            name = apl_mount(f["dir"])
        elif kind == "procd_task":
            name = "%s_%d" % (apl_name(f["cmd"], False, 53), f["pid"])
        else:
            name = ""
        vals = {}
        for pl, pi, ty, ti, vv in apl_values(kind, f):
            i = apl_ident(self.cfg, guest, pl, pi, ty, ti)
            vals[i] = (vv[0][1], vv[0][0]) if len(vv) == 1 else \
                ([(x, k) for k, x in vv], "list")
        return {("apl", guest, kind, name): vals}

    # -- identifiers and values of one record
    def user_host_pinst(self, name):
        if self.cfg.guests_as_hosts:
            return name.lower(), ""
        return self.cfg.hostname, name

    def d4r10_idents(self, r):
        """Identifiers a D4R10 record's user has (for discarded sets)."""
        name = user_name(r.data[20:28])
        host, pinst = self.user_host_pinst(name)
        return name, [(ident(host, pinst, t, ti), t, v) for t, ti, v in d4r10_values(r)], \
            ident(host, pinst, "total_events", "transactions")

    def user_values(self, name, st):
        """A guest's values from its VMDBKs (IBM MRUSEITE: one record per VMDBK,
        told apart by VMDCPUAD): each counter is the sum over the VMDBKs of
        each one's latest value; the levels VMDSLCNT and VMDDFRWK are the
        base VMDBK's (CALBASE) latest value; transactions counts base
        records."""
        host, pinst = self.user_host_pinst(name)
        vals = {}
        sums = {}
        for vm in st["vmdbk"].values():
            for typ, ti, v in vm:
                if ti in LEVELS:
                    continue
                sums[ti] = (typ, sums.get(ti, (typ, 0))[1] + v)
        for ti, (typ, v) in sums.items():
            vals[ident(host, pinst, typ, ti)] = (v, typ)
        for typ, ti, v in st["base_levels"]:
            vals[ident(host, pinst, typ, ti)] = (v, typ)
        vals[ident(host, pinst, "total_events", "transactions")] = (st["transactions"], "derive")
        return vals

    def d5r21_values(self, p):
        """{instance: {ident: (value, type)}} of one D5R21."""
        h = self.cfg.hostname
        out = {}
        for e in p.ents:
            pi = cpu_name(e[0])
            vals = out.setdefault(pi, {})
            for off, ti, flag in CPUTINFO_FIELDS:
                vals[ident(h, pi, "threads", ti)] = (threads_value(e[off]), "gauge")
                if flag:
                    vals[ident(h, pi, "bool", ti + "_is_max")] = (
                        1 if e[off] == THREADS_MAX else 0, "gauge")
        sysv = {}
        if p.seq is not None:
            sysv[ident(h, "system", "gauge", "mt_config_seq")] = (p.seq, "gauge")
        if p.maxtc is not None:
            sysv[ident(h, "system", "gauge", "mt_max_threads")] = (p.maxtc, "gauge")
        if p.coall is not None and p.small is not None:
            for ti, v in (("statement_all", p.coall), ("set_all", p.small)):
                sysv[ident(h, "system", "threads", ti)] = (threads_value(v), "gauge")
                sysv[ident(h, "system", "bool", ti + "_is_max")] = (
                    1 if v == THREADS_MAX else 0, "gauge")
        if p.smset is not None:
            sysv[ident(h, "system", "bool", "set_initial")] = (
                1 if p.smset & 0x80 else 0, "gauge")
        if sysv:
            out["system"] = sysv
        return out

    def shape(self, inst, vals):
        """An instance's values {ident: (value, type)}, named one value per
        list, as dispatched: so with --one-value-per-list; else one list of
        the instance's type, data sources in order -- unless the record
        lacks a field (an older, shorter layout: then one by one, nothing
        made up)."""
        if self.cfg.one_value_per_list or inst[0] == "apl":
            return vals  # APPLDATA: named as collectd's plugins, as is
        if inst[0] == "rec":  # D0R2 or a <Record> block: its own type
            type_, names = inst[1], list(inst[2])
        elif inst[0] in ("user", "vcpu"):
            type_ = USEITE_TYPE
        elif inst[1] == "system":
            type_ = PRCSMT_TYPE
        else:
            type_ = PRCSMT_CPU_TYPE
        byds = {}
        head = None
        for i, (v, typ) in vals.items():
            head, tt = i.rsplit("/", 1)
            byds[tt.split("-", 1)[1]] = (v, typ)
        if inst[0] != "rec":
            names = list_ds_names(type_)
        if head is None or not all(n in byds for n in names):
            return vals
        return {head + "/" + type_: ([byds[n] for n in names], "list")}

    def dispatches(self, partition):
        """Expected values {ident: [(time_us or ARRIVAL, value, type,
        restamped)]}, the notifications [(severity, time_us, message,
        suffix)] and total_objects-restamped, given the cumulative set
        counts seen at successive read callbacks."""
        nsets = len(self.reader.sets)
        bounds = sorted(set(b for b in partition if 0 < b <= nsets))
        if not bounds or bounds[-1] != nsets:
            bounds.append(nsets)
        out = {}
        last = {}  # instance -> last time (us), or ARRIVAL with its callback
        notes = []
        users = {}  # name -> {"vmdbk": {cpuad: values}, "base_levels", "transactions"}
        vcpu_records = {}  # (name, cpuad) -> records of that VMDBK
        fresh = {}  # user -> its state starts afresh with its next D4R10
        logged_off = {}  # user -> time of its last notified logoff
        starts = {}  # RCCSMTSQ -> {cpu type: activated} of the start record
        notified = {}  # status bit -> RCCSMTSQ last notified
        restamped = 0
        future = 0
        lo = 0
        for cb, hi in enumerate(bounds):
            latest = {}  # instance -> (time_us, {ident: (value, type)})
            for r in self.records:
                if not lo <= r.set_index < hi:
                    continue
                t = self.rec_us(r)
                rv = self.record_values(r)
                if rv is not None:
                    latest[rv[0]] = (t, rv[1])
                    continue
                if r.domain == 10:
                    for inst, vals in self.appldata_instances(r).items():
                        latest[inst] = (t, vals)
                    continue
                if r.domain == 4 and r.number in (1, 2):
                    # A logon starts a new session; a logoff (one record
                    # per VMDBK) is one notification, and the guest's
                    # state starts afresh with its next record: its
                    # VMDBKs and transactions (the time rule keeps its
                    # last time). D4R2 records of one logoff (one per
                    # VMDBK) are one notification: a D4R2 less than 2 s
                    # after a notified logoff of the same guest, with no
                    # logon between, belongs to it (man page).
                    name = user_name(r.data[20:28])
                    if r.number == 1:
                        notes.append(self.session_note(r, name, True))
                        logged_off.pop(name, None)
                    elif not (name in logged_off and 0 <= t - logged_off[name] < 2000000):
                        notes.append(self.session_note(r, name, False))
                        logged_off[name] = t
                    fresh[name] = True
                    if r.number == 2 and len(r.data) >= 30:
                        # ReportByVirtualCPU: that VMDBK's own view too
                        vcpu_records.pop((name, be(r.data, 28, 2)), None)
                    continue
                if r.domain == 4:
                    name = user_name(r.data[20:28])
                    if fresh.pop(name, False):
                        users.pop(name, None)
                    st = users.setdefault(name, {"vmdbk": {}, "base_levels": [],
                                                 "transactions": 0})
                    cpuad = be(r.data, 28, 2) if len(r.data) >= 30 else 0
                    base = len(r.data) >= 48 and r.data[47] & 0x80
                    vals = d4r10_values(r)
                    # a field absent from a shorter record keeps its last value
                    old = {ti: (typ, v) for typ, ti, v in st["vmdbk"].get(cpuad, [])}
                    old.update({ti: (typ, v) for typ, ti, v in vals})
                    st["vmdbk"][cpuad] = [(typ, ti, v) for ti, (typ, v) in old.items()]
                    if base:
                        st["transactions"] += 1
                        st["base_levels"] = [(typ, ti, v) for typ, ti, v in vals if ti in LEVELS]
                    latest[("user", name)] = (t, self.user_values(name, st))
                    if self.cfg.report_by_vcpu:
                        # each VMDBK as it writes it: plugin instance
                        # <user>-vcpu<VMDCPUAD> (vcpu<N> with GuestsAsHosts)
                        host, pinst = self.user_host_pinst(name)
                        pinst = (pinst + "-" if pinst else "") + "vcpu%d" % cpuad
                        nrec = vcpu_records
                        nrec[(name, cpuad)] = nrec.get((name, cpuad), 0) + 1
                        vv = {ident(host, pinst, typ, ti): (v, typ)
                              for typ, ti, v in st["vmdbk"][cpuad]}
                        vv[ident(host, pinst, "total_events", "transactions")] = (
                            nrec[(name, cpuad)], "derive")
                        latest[("vcpu", name, cpuad)] = (t, vv)
                else:
                    p = d5r21_parse(r)
                    for inst, vals in self.d5r21_values(p).items():
                        latest[("mt", inst)] = (t, vals)
                    notes += self.notification(t, p, starts, notified)
            for inst, (t, vals) in latest.items():
                prev = last.get(inst)
                if t > self.cfg.wall_to_us + TIME_AHEAD_MAX_US:
                    # too far after its set's arrival: not trusted
                    if prev is None or prev[0] is ARRIVAL or prev[0] < self.cfg.wall_from_us:
                        when = ARRIVAL
                    else:
                        when = prev[0] + STEP_US
                    future += 1
                    last[inst] = (when, cb)
                    for i, (v, typ) in self.shape(inst, vals).items():
                        out.setdefault(i, []).append((when, v, typ, True))
                    continue
                if t > self.cfg.wall_from_us + TIME_AHEAD_MAX_US:
                    raise OracleError("a record time %.3f within the uncertainty of the "
                                      "future bound (--wall)" % (t / 1e6))
                if prev is None or (prev[0] is not ARRIVAL and t > prev[0]) or \
                        (prev[0] is ARRIVAL and t > self.cfg.wall_to_us):
                    when, again = t, False
                elif prev[0] is ARRIVAL or prev[0] < self.cfg.wall_from_us:
                    # the set arrived after the last time: its arrival time
                    when, again = ARRIVAL, True
                else:
                    when, again = prev[0] + STEP_US, True
                restamped += again
                last[inst] = (when, cb)
                for i, (v, typ) in self.shape(inst, vals).items():
                    out.setdefault(i, []).append((when, v, typ, again))
            lo = hi
        self.c["total_objects-time_future"] = future
        off = set(getattr(self.cfg, "notify_off", ()))
        notes = [n for n in notes if
                 (n[6] if len(n) > 6 else "multithreading") not in off]
        return out, notes, restamped

    def record_values(self, r):
        """(instance, {ident: (value, type)}) of a D0R2 or a <Record>
        record, named one value per list (shape() makes the list); None for
        other records."""
        h = self.cfg.hostname
        u = self.cfg.records.get((r.domain, r.number))
        if u is not None:
            pi, vals = user_record_values(u, r.data)
            kinds = [f.kind for f in u.values() for _ds in f.ds_names()]
            type_name = u.type_name
            if self.cfg.guests_as_hosts and any(k.type == "userid" for k in u.keys()):
                h, pi = pi[len(u.prefix):].lower(), ""
        elif (r.domain, r.number) == (0, 2):
            addr, vals = d0r2_values(r.data)
            pi = "cpu%d" % addr
            vals += [(ds, None) for ds in ("plscuhaf", "pfxprbtm", "pfxutime")[len(vals):]]
            kinds = ["counter"] * 3
            type_name = "zvm_sytprp"
        else:
            return None
        typ = ["derive" if k == "counter" else "gauge" for k in kinds]
        inst = ("rec", type_name, tuple(ds for ds, _v in vals), h, pi)
        return inst, {ident(h, pi, t, ds): (v, t)
                      for (ds, v), t in zip(vals, typ) if v is not None}

    def notification(self, t, p, starts, notified):
        """The notifications of a D5R21. Suppressed only as an exact
        repeat: the same RCCSMTSQ and status as the last notified."""
        if p.seq is None:
            return []
        seq, n = p.seq, (p.seq + 1) // 2
        res = []
        for bit in (0x80, 0x40):
            if not p.status & bit or notified.get(bit) == seq:
                continue
            notified[bit] = seq
            acts = [(e[0], e[4]) for e in p.ents]
            if bit == 0x80:
                starts[seq] = dict(acts)
                before = ", ".join("%s %s" % (cpu_name(c), threads_text(a)) for c, a in acts)
                res.append(("WARNING", t,
                            "multithreading configuration change %d started (RCCSMTSQ %d); "
                            "activated threads per core before the change: %s; "
                            "data until the change ends spans two configurations" % (
                                n, seq, before or "none listed"), None))
            else:
                old = starts.pop(seq, None)
                parts = ["%s %s -> %s" % (cpu_name(c), "?" if old is None or c not in old
                                          else threads_text(old[c]), threads_text(a))
                         for c, a in acts]
                text = ("multithreading configuration change %d ended (RCCSMTSQ %d); "
                        "activated threads per core: %s" % (n, seq, ", ".join(parts) or "none listed"))
                # not seen: the documented ending follows; its separator is
                # not documented, so it is matched as a suffix
                suffix = "the start of this change was not seen" if old is None else None
                res.append(("OKAY", t, text, suffix))
        return res


# --------------------------------------------------------------------------
# collectd output

CSV_DATE = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def read_csv(d):
    """{ident: [(time_float, value_text)]} from a csv plugin DataDir."""
    vals = {}
    for path in glob.glob(os.path.join(d, "*", "*", "*")):
        host, pdir, fname = path.split(os.sep)[-3:]
        base = CSV_DATE.sub("", fname)
        key = "%s/%s/%s" % (host, pdir, base)
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("epoch"):
                    continue
                t, v = line.split(",", 1)
                vals.setdefault(key, []).append((float(t), v))
    for k in vals:
        vals[k].sort(key=lambda x: x[0])
    return vals


def fmt_value(v, typ):
    if typ == "list":  # a value list: every data source, as csv writes it
        return ",".join(fmt_value(x, t) for x, t in v)
    # collectd's csv writes a gauge with "%f" (NaN: "nan")
    return "%f" % v if typ == "gauge" else "%d" % v


def reader_series(csv, host):
    return {c: csv.get("%s/zvm_monitor-reader/%s" % (host, c), []) for c in READER_COUNTERS}


# collectd drops the value lists still in its write queue when it stops
# (plugin.c: "N value lists left after shutting down the write threads"):
# then the last read callback's counters may reach the csv writer only in
# part. Only then, and only that callback, is left out of the comparison.
WRITE_QUEUE_DROPPED = "left after shutting down the write threads"


def trim_dropped_last_callback(series, log):
    if not log or not os.path.exists(log):
        return series
    with open(log, errors="replace") as f:
        if WRITE_QUEUE_DROPPED not in f.read():
            return series
    last = max((s[-1][0] for s in series.values() if s), default=None)
    if last is None or all(s and s[-1][0] == last for s in series.values()):
        return series
    return {c: [tv for tv in s if tv[0] != last] for c, s in series.items()}


def partition_of(series):
    return [int(v) for _t, v in series["total_objects-sets"]]


# The logfile plugin leaves out empty fields (plugin_instance with
# GuestsAsHosts). Device episodes (type errors) are checked by run.sh.
NOTE_RE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] (?:\[[a-z]+\] )?Notification: "
                     r"severity = (\w+), host = ([^,]*), plugin = zvm_monitor, "
                     r"(?:plugin_instance = ([^,]*), )?type = (threads|session), "
                     r"(?:type_instance = (\w+), )?message = (.*)$")


def read_notifications(path):
    import calendar
    import time as _t
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = NOTE_RE.match(line.rstrip("\n"))
            if m and (m.group(5) == "session" or m.group(4) == "system"):
                ts = calendar.timegm(_t.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"))
                out.append((m.group(2), ts, m.group(3), m.group(7),
                            m.group(4) or "", m.group(6) or ""))
    return out


class Checker:
    def __init__(self, model, args):
        self.m = model
        self.a = args
        self.errors = []
        self.notes_checked = 0

    def err(self, msg):
        self.errors.append(msg)

    def run(self):
        csv = read_csv(self.a.csv)
        h = self.m.cfg.hostname
        rs = trim_dropped_last_callback(reader_series(csv, h), getattr(self.a, "log", None))
        self.check_reader(rs)
        part = partition_of(rs)
        exp, notes, restamped = self.m.dispatches(part)
        got = [int(v) for _t, v in rs["total_objects-restamped"]]
        if got and got[-1] != restamped:
            self.err("reader: total_objects-restamped is %d, want %d" % (got[-1], restamped))
        self.restamped = restamped
        got = [int(v) for _t, v in rs["total_objects-time_future"]]
        if got and got[-1] != self.m.c["total_objects-time_future"]:
            self.err("reader: total_objects-time_future is %d, want %d" % (
                got[-1], self.m.c["total_objects-time_future"]))
        self.check_values(csv, exp)
        self.check_forbidden(csv)
        if self.a.log:
            self.check_notifications(notes)
        return exp, notes, part

    def check_reader(self, rs):
        n = None
        for c in READER_COUNTERS:
            s = rs[c]
            if not s:
                self.err("reader: no %s values" % c)
                continue
            if n is None:
                n = len(s)
            vals = [int(v) for _t, v in s]
            if any(b < a for a, b in zip(vals, vals[1:])):
                self.err("reader: %s goes down: %s" % (c, vals))
            times = [t for t, _v in s]
            if any(b <= a for a, b in zip(times, times[1:])):
                self.err("reader: %s times not strictly increasing" % c)
            want = self.m.c.get(c)
            if c in PARTITION_COUNTERS:
                continue
            if c == "errors-open" and self.a.open_errors_min is not None:
                if vals[-1] < self.a.open_errors_min:
                    self.err("reader: errors-open %d, want at least %d" % (vals[-1], self.a.open_errors_min))
            elif vals[-1] != want:
                self.err("reader: %s is %d, want %d" % (c, vals[-1], want))
        # records, malformed and skipped follow the completed sets exactly
        sets = [int(v) for _t, v in rs["total_objects-sets"]]
        for c, k in (("total_objects-records", 0), ("errors-malformed", 1),
                     ("total_objects-skipped", 2), ("total_objects-short_records", 3)):
            s = [int(v) for _t, v in rs[c]]
            if len(s) != len(sets):
                self.err("reader: %s has %d lines, total_objects-sets %d" % (c, len(s), len(sets)))
                continue
            for i, (ns, v) in enumerate(zip(sets, s)):
                want = self.m.set_records[ns - 1][k] if 0 < ns <= len(self.m.set_records) else 0
                if v != want:
                    self.err("reader: callback %d: %s %d after %d sets, want %d" % (i + 1, c, v, ns, want))
                    break

    def check_values(self, csv, exp):
        got = {k: v for k, v in csv.items() if "/zvm_monitor-reader/" not in k}
        for k in sorted(set(got) - set(exp)):
            self.err("unexpected identifier %s: %s" % (k, got[k][:3]))
        for k in sorted(set(exp) - set(got)):
            self.err("missing identifier %s: want %s" % (k, self.show(exp[k])))
        lo, hi = self.m.cfg.wall_from_us / 1e6, self.m.cfg.wall_to_us / 1e6
        for k in sorted(set(exp) & set(got)):
            g, e = got[k], exp[k]
            # csv prints milliseconds: a 1 us step (the time rule) shows
            # the same time; any other repeat is a duplicate
            steps = sum(1 for et, _v, _t, again in e if again and et is not ARRIVAL)
            times = [t for t, _v in g]
            if len(times) - len(set(times)) > steps:
                self.err("%s: duplicate times %s" % (k, times))

            def time_ok(gt, et):
                if et is ARRIVAL:  # a set's arrival time: while the daemon ran
                    return lo <= gt <= hi
                return abs(gt - et / 1e6) < 0.0015
            ok = len(g) == len(e) and all(
                time_ok(gt, et) and gv == fmt_value(ev, typ)
                for (gt, gv), (et, ev, typ, _a) in zip(g, e))
            if not ok:
                self.err("%s: got %s, want %s" % (k, g, self.show(e)))

    @staticmethod
    def show(e):
        return [("arrival" if t is ARRIVAL else "%.3f" % (t / 1e6), fmt_value(v, typ))
                for t, v, typ, _a in e]

    def check_forbidden(self, csv):
        n = 0
        for r in self.m.forbidden:
            t = self.m.rec_us(r) / 1e6
            h = self.m.cfg.hostname
            if (r.domain, r.number) in self.m.cfg.records or r.domain == 0:
                inst, vals = self.m.record_values(r)
                idents = list(vals) + list(self.m.shape(inst, vals))
            elif r.domain == 10:
                idents = [i for i, _v in self.m.appldata_idents(r)]
            elif r.domain == 4:
                _name, vals, tident = self.m.d4r10_idents(r)
                idents = [i for i, _t, _v in vals] + [
                    tident, tident.rsplit("/", 1)[0] + "/" + USEITE_TYPE]
            else:
                idents = [ident(h, "system", "gauge", "mt_config_seq"),
                          ident(h, "system", PRCSMT_TYPE, None)]
            for i in idents:
                n += 1
                for gt, gv in csv.get(i, []):
                    if abs(gt - t) < 0.0015:
                        self.err("%s: value %s at %.3f comes from a discarded set" % (i, gv, gt))
        self.forbidden_checked = n

    def check_notifications(self, notes):
        got = read_notifications(self.a.log)
        self.notes_checked = len(got)
        if len(got) != len(notes):
            self.err("notifications: got %d, want %d:\n  got  %s\n  want %s" % (
                len(got), len(notes), "\n       ".join(g[3] for g in got),
                "\n       ".join(n[2] + (" ... " + n[3] if n[3] else "") for n in notes)))
            return
        for (sev, ts, host, msg, pinst, tinst), note in zip(got, notes):
            esev, eus, etext, suffix = note[:4]
            ehost, epinst, etinst = note[4:] if len(note) > 4 else \
                (self.m.cfg.hostname, "system", "")
            if sev != esev or host != ehost or pinst != epinst or tinst != etinst:
                self.err("notification %r: severity %s host %s plugin_instance %r "
                         "type_instance %r, want %s %s %r %r" % (
                             msg, sev, host, pinst, tinst, esev, ehost, epinst, etinst))
            if ts not in (eus // 1000000, (eus + 500000) // 1000000):
                self.err("notification %r: time %d, want %d" % (msg, ts, eus // 1000000))
            if suffix is None:
                if msg != etext:
                    self.err("notification: got %r, want %r" % (msg, etext))
            elif not (msg.startswith(etext) and msg.endswith(suffix)):
                self.err("notification: got %r, want %r ... %r" % (msg, etext, suffix))


# --------------------------------------------------------------------------

def config_args(p):
    p.add_argument("--hostname", default="zvmtest")
    p.add_argument("--domain", action="append", default=[])
    p.add_argument("--userid", action="append", default=[])
    p.add_argument("--ignore-selected", action="store_true")
    p.add_argument("--guests-as-hosts", action="store_true")
    p.add_argument("--open-errors-min", type=int)
    p.add_argument("--conf", help="the daemon's collectd.conf: its <Record> blocks")
    p.add_argument("--leap-seconds", type=int, default=0)
    p.add_argument("--wall", help="FROM:TO Unix seconds the daemon ran")
    p.add_argument("--report-by-vcpu", action="store_true",
                   help="ReportByVirtualCPU true")
    p.add_argument("--one-value-per-list", action="store_true")
    p.add_argument("--appldata-kind", action="append", default=[],
                   help="ApplDataKinds (repeatable; default all but procd_task)")
    p.add_argument("--appldata-naming", default="collectd",
                   choices=("collectd", "zvm_monitor"))
    p.add_argument("--notify-off", action="append", default=[],
                   choices=["logon", "logoff", "multithreading"],
                   help="Notify<Kind> false: no such notifications")


def make_model(a):
    cfg = Config(a.hostname, a.domain, a.userid, a.ignore_selected, a.guests_as_hosts,
                 a.leap_seconds, a.wall, a.report_by_vcpu, a.one_value_per_list,
                 parse_record_blocks(a.conf) if a.conf else (),
                 a.appldata_kind or None, a.appldata_naming)
    cfg.notify_off = a.notify_off
    return Model(Scenario(a.scenario), cfg)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("dump", "ready", "check", "value"):
        s = sub.add_parser(name)
        s.add_argument("scenario")
        if name == "value":
            s.add_argument("ident")
        if name in ("ready", "check"):
            s.add_argument("--csv", required=True)
        if name == "ready":
            s.add_argument("--settle", type=int, default=0,
                           help="also succeed when the counters did not change in N callbacks")
        if name == "check":
            s.add_argument("--log")
            s.add_argument("--json", help="also write the expected values here")
            s.add_argument("--min-forbidden", type=int, default=0,
                           help="fail unless at least N values of discarded sets were checked")
            s.add_argument("--min-callbacks", type=int, default=0,
                           help="fail unless the sets were spread over at least N callbacks")
        config_args(s)
    a = p.parse_args(argv)
    try:
        m = make_model(a)
    except (OracleError, OSError) as e:
        print("oracle: %s" % e, file=sys.stderr)
        return 2

    if a.cmd == "dump":
        exp, notes, restamped = m.dispatches([])
        m.c["total_objects-restamped"] = restamped
        print("reader: " + " ".join("%s=%d" % (c, m.c[c]) for c in READER_COUNTERS))
        for k in sorted(exp):
            print(k, " ".join("%s:%s" % ("arrival" if t is ARRIVAL else "%.3f" % (t / 1e6),
                                         fmt_value(v, typ)) for t, v, typ, _a in exp[k]))
        for n in notes:
            print("notification %s %.3f %s%s" % (n[0], n[1] / 1e6, n[2], " ... " + n[3] if n[3] else ""))
        print("forbidden records (from discarded sets): %d" % len(m.forbidden))
        return 0

    if a.cmd == "value":
        exp, _n, _r = m.dispatches([])
        if a.ident.split("/")[1] == "zvm_monitor-reader":
            print("- %d" % m.c[a.ident.split("/")[2]])
            return 0
        ds = None
        key = a.ident
        if key not in exp and key.count("/") == 3:  # one data source of a list
            key, ds = key.rsplit("/", 1)
        if key not in exp:
            print("oracle: no value for %s" % a.ident, file=sys.stderr)
            return 1
        t, v, typ, _a = exp[key][-1]
        if ds is not None:
            names = list_ds_names(key.rsplit("/", 1)[1])
            if ds not in names:
                print("oracle: %s has no data source %s" % (key, ds), file=sys.stderr)
                return 1
            v, typ = v[names.index(ds)]
        print("%d %s" % (t // 1000000, fmt_value(v, typ)))
        return 0

    if a.cmd == "ready":
        # final once the last two callbacks both show the final counters:
        # everything dispatched before the last one has been written.
        # With --settle N also done (to fail fast) when no counter changed
        # in the last N callbacks while something was read.
        rs = reader_series(read_csv(a.csv), m.cfg.hostname)
        if a.settle and all(len(rs[c]) >= a.settle for c in READER_COUNTERS):
            tail = [[v for _t, v in rs[c][-a.settle:]] for c in READER_COUNTERS]
            if all(len(set(t)) == 1 for t in tail) and \
                    int(rs["total_bytes-read"][-1][1]) > 0:
                return 0
        for c in READER_COUNTERS:
            s = rs[c]
            if c in PARTITION_COUNTERS:
                continue
            if c == "errors-open" and a.open_errors_min is not None:
                if not s or int(s[-1][1]) < a.open_errors_min:
                    return 1
                continue
            if len(s) < 2 or int(s[-1][1]) != m.c[c] or int(s[-2][1]) != m.c[c]:
                return 1
        return 0

    ch = Checker(m, a)
    exp, notes, part = ch.run()
    groups = len(set(b for b in part if b > 0))
    if groups < a.min_callbacks:
        ch.err("the %d sets arrived in %d callback(s), the scenario needs at least %d" % (
            len(m.reader.sets), groups, a.min_callbacks))
    if ch.forbidden_checked < a.min_forbidden:
        ch.err("only %d values of discarded sets checked, want at least %d" % (
            ch.forbidden_checked, a.min_forbidden))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"reader": m.c, "values": {k: v for k, v in exp.items()}}, f,
                      default=str)
    nvals = sum(len(v) for v in exp.values())
    m.c["total_objects-restamped"] = ch.restamped
    print("oracle: %d identifiers, %d values, %d sets in %d callbacks, %d notifications, "
          "%d discarded-set values absent; reader %s" % (
              len(exp), nvals, len(m.reader.sets), groups, len(notes),
              ch.forbidden_checked, " ".join("%s=%d" % (c.split("-", 1)[1], m.c[c]) for c in READER_COUNTERS)))
    for e in ch.errors[:40]:
        print("  MISMATCH: " + e)
    if len(ch.errors) > 40:
        print("  ... and %d more" % (len(ch.errors) - 40))
    return 1 if ch.errors else 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under "| head"
    sys.exit(main(sys.argv[1:]))
