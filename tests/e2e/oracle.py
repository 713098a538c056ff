#!/usr/bin/env python3
"""Independent oracle for the zvm_monitor end-to-end tests.

A second implementation of what the plugin must dispatch, written from the
specifications only -- never from the plugin's C code:

  * the scenario file format and fault semantics of the emulated device
    (contrib/monreader-emu/README.md),
  * the data stream of /dev/monreader (seeds 000/001: MCE, record sets,
    0-byte read, EIO/EFAULT/EOVERFLOW),
  * the record header MRHDR, D4R10 MRUSEITE (seed 002) and D5R21 MRPRCSMT
    (seed 004), 4 KB frames and the end-of-frame record D1R13,
  * the naming contract, the counting rules and the aggregation rules
    (design.md, contrib/zvm_monitor.pod).

It parses the scenario byte by byte, models the device's read stream and a
reader following the counting rules, decodes the complete data sets and maps
them under a configuration (Domain, UserID, IgnoreSelected, GuestsAsHosts).
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
--open-errors-min N (errors-open is only known to be at least N, e.g.
EBUSY while another process holds the device).

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

# D4R10 MRUSEITE (seed 002, z/VM V6R2.0). The pod names the dispatched
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

# D5R21 MRPRCSMT (seed 004, z/VM V6R4.0)
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

# One value list per record instance (the default): the data sources of
# each record's type, in the documented order (the pod and the shipped
# contrib/zvm_monitor.types.db), written down here, not derived from the C.
USEITE_TYPE = "zvm_useite"  # transactions, then D4R10_FIELDS in order
PRCSMT_TYPE = "zvm_prcsmt"  # mt_config_seq, mt_max_threads
PRCSMT_CPU_TYPE = "zvm_prcsmt_cpu"
PRCSMT_CPU_DS = ("hardware_max", "zvm_max", "activated", "requested")

DOMAINS = {
    "system": 0, "monitor": 1, "scheduler": 2, "storage": 3, "user": 4,
    "processor": 5, "i/o": 6, "seek": 7, "virtual_network": 8, "isfc": 9,
    "appldata": 10, "ssi": 11,
}

READER_COUNTERS = [
    "errors-eoverflow", "errors-eio", "errors-efault", "errors-open",
    "errors-malformed", "total_objects-sets", "total_objects-records",
    "total_objects-skipped", "total_bytes-read",
]


class OracleError(Exception):
    pass


def be(buf, off, width, signed=False):
    return int.from_bytes(buf[off:off + width], "big", signed=signed)


def tod_to_us(tod):
    """Unix microseconds of a TOD clock value (bit 51 = 1 us)."""
    return (tod - TOD_UNIX_EPOCH) >> 12


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
# The reader (design.md "Reading the device" and "Counting rules")

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
                 one_value_per_list=False):
        self.hostname = hostname
        self.one_value_per_list = one_value_per_list
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


def d5r21_parse(rec):
    """(seq, status, maxtc, [(type, hw, sy, ac, cr)]) or None if the array
    lies outside the record."""
    d = rec.data
    if len(d) < 34:
        return None
    seq = be(d, PRCSMT_RCCSMTSQ, 4)
    status = d[PRCSMT_CAL_STATUS]
    maxtc = d[PRCSMT_CALMAXTC]
    cnt = d[PRCSMT_CAL_CPUTACNT]
    esz = be(d, PRCSMT_CAL_CPUTAESZ, 2)
    aoff = be(d, PRCSMT_CAL_CPUTAOFF, 2)
    ents = []
    for i in range(cnt):
        e = aoff + i * esz
        if esz < CPUTINFO_LEN or e + CPUTINFO_LEN > len(d):
            return None
        ents.append((d[e], d[e + 2], d[e + 3], d[e + 4], d[e + 6]))
    return seq, status, maxtc, ents


def list_ds_names(type_):
    """The data sources of one of the plugin's types, in order."""
    if type_ == USEITE_TYPE:
        return ["transactions"] + [f[4] for f in D4R10_FIELDS]
    if type_ == PRCSMT_TYPE:
        return ["mt_config_seq", "mt_max_threads"]
    if type_ == PRCSMT_CPU_TYPE:
        return list(PRCSMT_CPU_DS)
    return []


def cpu_name(t):
    return CPU_TYPES.get(t, "type%d" % t)


def threads_text(n):
    return "MAX" if n == 0xFF else str(n)


# --------------------------------------------------------------------------
# The whole model

class Model:
    def __init__(self, scn, cfg):
        self.cfg = cfg
        self.reader = Reader().run(device_events(scn))
        self.c = dict(self.reader.c)
        self.records = []
        self.set_records = []  # per set: cumulative (records, malformed, skipped)
        cum_rec = cum_bad = cum_skip = 0
        for i, (buf, _msg) in enumerate(self.reader.sets):
            recs, nrec, bad = decode_set(buf, i)
            cum_rec += nrec
            cum_bad += bad
            # skipped = "unknown or filtered records" (design.md):
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
            # a D5R21 whose array lies outside it is malformed
            cum_bad += sum(1 for r in recs if r.domain == 5 and r.number == 21 and
                           self.selected(r) and d5r21_parse(r) is None)
            self.records += used
            self.set_records.append((cum_rec, cum_bad, cum_skip))
        self.c["total_objects-records"] = cum_rec
        self.c["errors-malformed"] = cum_bad
        self.c["total_objects-skipped"] = cum_skip
        # records of discarded messages, decoded in full: must never show
        self.forbidden = []
        msgs = [p for k, p in scn.items if k == "M"]
        for m in sorted(set(self.reader.discarded)):
            recs, _n, _b = decode_set(scn.deliverable(msgs[m]), -1)
            self.forbidden += [r for r in recs if self.used(r)]

    def selected(self, r):
        """Domain selection: the record's domain and its set's MCE mask."""
        return self.cfg.domain_selected(r.domain) and self.cfg.mask_selected(r.mask)

    def used(self, r):
        if not self.selected(r):
            return False
        if r.domain == 4 and r.number == 10:
            if len(r.data) < D4R10_USER[0] + D4R10_USER[1]:
                return False
            name = user_name(r.data[20:28])
            if not name or tod_to_us(r.tod) <= 0:
                return False
            return self.cfg.user_selected(name)
        if r.domain == 5 and r.number == 21:
            return d5r21_parse(r) is not None
        if r.domain == 4 and r.number in (1, 2):
            # D4R1 MRUSELON / D4R2 MRUSELOF: user ID at 20, nothing else
            # used (IBM mon620/mon730: only offsets 20-30 are common)
            if len(r.data) < 28 or tod_to_us(r.tod) <= 0:
                return False
            name = user_name(r.data[20:28])
            return bool(name) and self.cfg.user_selected(name)
        return False

    def session_note(self, r, name, logon):
        """Logon (OKAY) / logoff (WARNING) notification of a guest."""
        if self.cfg.guests_as_hosts:
            host, pinst = name.lower(), ""
        else:
            host, pinst = self.cfg.hostname, name
        return ("OKAY" if logon else "WARNING", tod_to_us(r.tod),
                "z/VM guest %s logged %s" % (name, "on" if logon else "off"),
                None, host, pinst, "logon" if logon else "logoff")

    # -- identifiers and values of one record
    def d4r10_idents(self, r):
        name = user_name(r.data[20:28])
        if self.cfg.guests_as_hosts:
            host, pinst = name.lower(), ""
        else:
            host, pinst = self.cfg.hostname, name
        return name, [(ident(host, pinst, t, ti), t, v) for t, ti, v in d4r10_values(r)], \
            ident(host, pinst, "total_events", "transactions")

    def list_shape(self, vals):
        """A guest's values go out as one list unless one value per list
        is configured or the record lacks a field (an older, shorter
        layout: then one by one, nothing made up)."""
        return not self.cfg.one_value_per_list and len(vals) == len(D4R10_FIELDS)

    @staticmethod
    def list_ident(tident, type_):
        """host/plugin-instance/TYPE from a guest's transactions ident."""
        return tident.rsplit("/", 1)[0] + "/" + type_

    def dispatches(self, partition):
        """Expected values: {ident: [(time_us, value, type)]} and the
        notifications [(severity, time_us, message)], given the cumulative
        set counts seen at successive read callbacks."""
        nsets = len(self.reader.sets)
        bounds = sorted(set(b for b in partition if 0 < b <= nsets))
        if not bounds or bounds[-1] != nsets:
            bounds.append(nsets)
        out = {}
        last_time = {}
        notes = []
        transactions = {}
        fresh = {}  # user -> its state starts afresh with its next D4R10
        logged_off = {}  # user -> time of its last notified logoff
        starts = {}  # RCCSMTSQ -> {cpu type: activated} of the start record
        h = self.cfg.hostname
        lo = 0
        for hi in bounds:
            latest = {}  # ident -> (tod, value, type) from this callback
            for r in self.records:
                if not lo <= r.set_index < hi:
                    continue
                if r.domain == 4 and r.number in (1, 2):
                    # A logon starts a new session; a logoff (one record
                    # per VMDBK) is one notification, and the guest's
                    # state starts afresh with its next record.
                    # D4R2 records of one logoff (one per VMDBK) are one
                    # notification: a D4R2 less than 2 s after a notified
                    # logoff of the same guest, with no logon between,
                    # belongs to it (man page).
                    name = user_name(r.data[20:28])
                    t = tod_to_us(r.tod)
                    if r.number == 1:
                        notes.append(self.session_note(r, name, True))
                        logged_off.pop(name, None)
                    elif not (name in logged_off and 0 <= t - logged_off[name] < 2000000):
                        notes.append(self.session_note(r, name, False))
                        logged_off[name] = t
                    fresh[name] = True
                    continue
                if r.domain == 4:
                    name, vals, tident = self.d4r10_idents(r)
                    if fresh.pop(name, False):
                        transactions[tident] = 0
                    transactions[tident] = transactions.get(tident, 0) + 1
                    if self.list_shape(vals):
                        lst = [(transactions[tident], "derive")] + [(v, t) for _i, t, v in vals]
                        latest[self.list_ident(tident, USEITE_TYPE)] = (r.tod, lst, "list")
                        continue
                    for i, t, v in vals:
                        latest[i] = (r.tod, v, t)
                    latest[tident] = (r.tod, transactions[tident], "derive")
                elif not self.cfg.one_value_per_list:
                    seq, status, maxtc, ents = d5r21_parse(r)
                    for typ, hw, sy, ac, cr in ents:
                        lst = [(v, "gauge") for v in (hw, sy, ac, cr)]
                        latest[ident(h, cpu_name(typ), PRCSMT_CPU_TYPE, None)] = (r.tod, lst, "list")
                    latest[ident(h, "system", PRCSMT_TYPE, None)] = (
                        r.tod, [(seq, "gauge"), (maxtc, "gauge")], "list")
                    notes.append(self.notification(r.tod, seq, status, ents, starts))
                else:
                    seq, status, maxtc, ents = d5r21_parse(r)
                    for typ, hw, sy, ac, cr in ents:
                        p = cpu_name(typ)
                        for ti, v in (("activated", ac), ("requested", cr),
                                      ("hardware_max", hw), ("zvm_max", sy)):
                            latest[ident(h, p, "threads", ti)] = (r.tod, v, "gauge")
                    latest[ident(h, "system", "gauge", "mt_config_seq")] = (r.tod, seq, "gauge")
                    latest[ident(h, "system", "gauge", "mt_max_threads")] = (r.tod, maxtc, "gauge")
                    notes.append(self.notification(r.tod, seq, status, ents, starts))
            for i, (tod, v, t) in latest.items():
                if tod > last_time.get(i, -1):
                    out.setdefault(i, []).append((tod_to_us(tod), v, t))
                    last_time[i] = tod
            lo = hi
        off = set(getattr(self.cfg, "notify_off", ()))
        return out, [n for n in notes if n and
                     (n[6] if len(n) > 6 else "multithreading") not in off]

    def notification(self, tod, seq, status, ents, starts):
        n = (seq + 1) // 2
        if status & 0x80:
            starts[seq] = {t: ac for t, _hw, _sy, ac, _cr in ents}
            before = ", ".join("%s %s" % (cpu_name(t), threads_text(ac))
                               for t, _hw, _sy, ac, _cr in ents)
            return ("WARNING", tod_to_us(tod),
                    "multithreading configuration change %d started (RCCSMTSQ %d); "
                    "activated threads per core before the change: %s; "
                    "data until the change ends spans two configurations" % (n, seq, before),
                    None)
        if status & 0x40:
            old = starts.get(seq)
            parts = []
            for t, _hw, _sy, ac, _cr in ents:
                o = "?" if old is None or t not in old else threads_text(old[t])
                parts.append("%s %s -> %s" % (cpu_name(t), o, threads_text(ac)))
            text = ("multithreading configuration change %d ended (RCCSMTSQ %d); "
                    "activated threads per core: %s" % (n, seq, ", ".join(parts)))
            # not seen: the documented ending follows; its separator is not
            # documented, so it is matched as a suffix
            suffix = "the start of this change was not seen" if old is None else None
            return ("OKAY", tod_to_us(tod), text, suffix)
        return None


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
    return "%f" % v if typ == "gauge" else "%d" % v


def reader_series(csv, host):
    return {c: csv.get("%s/zvm_monitor-reader/%s" % (host, c), []) for c in READER_COUNTERS}


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
        rs = reader_series(csv, h)
        self.check_reader(rs)
        part = partition_of(rs)
        exp, notes = self.m.dispatches(part)
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
            want = self.m.c[c]
            if c == "errors-open" and self.a.open_errors_min is not None:
                if vals[-1] < self.a.open_errors_min:
                    self.err("reader: errors-open %d, want at least %d" % (vals[-1], self.a.open_errors_min))
            elif vals[-1] != want:
                self.err("reader: %s is %d, want %d" % (c, vals[-1], want))
        # records, malformed and skipped follow the completed sets exactly
        sets = [int(v) for _t, v in rs["total_objects-sets"]]
        for c, k in (("total_objects-records", 0), ("errors-malformed", 1),
                     ("total_objects-skipped", 2)):
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
        for k in sorted(set(exp) & set(got)):
            g, e = got[k], exp[k]
            times = [t for t, _v in g]
            if len(set(times)) != len(times):
                self.err("%s: duplicate times %s" % (k, times))
            ok = len(g) == len(e) and all(
                abs(gt - et / 1e6) < 0.0015 and gv == fmt_value(ev, typ)
                for (gt, gv), (et, ev, typ) in zip(g, e))
            if not ok:
                self.err("%s: got %s, want %s" % (k, g, self.show(e)))

    @staticmethod
    def show(e):
        return [("%.3f" % (t / 1e6), fmt_value(v, typ)) for t, v, typ in e]

    def check_forbidden(self, csv):
        n = 0
        for r in self.m.forbidden:
            t = tod_to_us(r.tod) / 1e6
            h = self.m.cfg.hostname
            if r.domain == 4:
                _name, vals, tident = self.m.d4r10_idents(r)
                idents = [i for i, _t, _v in vals] + [tident, self.m.list_ident(tident, USEITE_TYPE)]
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
    p.add_argument("--one-value-per-list", action="store_true")
    p.add_argument("--open-errors-min", type=int)
    p.add_argument("--notify-off", action="append", default=[],
                   choices=["logon", "logoff", "multithreading"],
                   help="Notify<Kind> false: no such notifications")


def make_model(a):
    cfg = Config(a.hostname, a.domain, a.userid, a.ignore_selected, a.guests_as_hosts,
                 a.one_value_per_list)
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
        exp, notes = m.dispatches([])
        print("reader: " + " ".join("%s=%d" % (c, m.c[c]) for c in READER_COUNTERS))
        for k in sorted(exp):
            print(k, " ".join("%.3f:%s" % (t / 1e6, fmt_value(v, typ)) for t, v, typ in exp[k]))
        for n in notes:
            print("notification %s %.3f %s%s" % (n[0], n[1] / 1e6, n[2], " ... " + n[3] if n[3] else ""))
        print("forbidden records (from discarded sets): %d" % len(m.forbidden))
        return 0

    if a.cmd == "value":
        exp, _n = m.dispatches([])
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
        t, v, typ = exp[key][-1]
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
            json.dump({"reader": m.c, "values": {k: v for k, v in exp.items()}}, f)
    nvals = sum(len(v) for v in exp.values())
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
