# SPDX-License-Identifier: MIT
"""D5R21 MRPRCSMT: multithreading configuration, its values and
notifications."""

from .base import MRHDR_LEN, be
from .naming import ident


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


# The data sources of the system's and each CPU type's list.
PRCSMT_TYPE = "zvm_prcsmt"
PRCSMT_DS = ("mt_config_seq", "mt_max_threads", "statement_all", "set_all",
             "set_initial", "statement_all_is_max", "set_all_is_max")
PRCSMT_CPU_TYPE = "zvm_prcsmt_cpu"
PRCSMT_CPU_DS = ("statement", "hardware_max", "zvm_max", "activated",
                 "set_command", "requested", "statement_is_max",
                 "set_command_is_max", "requested_is_max")


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


def cpu_name(t):
    return CPU_TYPES.get(t, "type%d" % t)


def threads_text(n):
    return "MAX" if n == 0xFF else str(n)


class PrcsmtModel:
    """The Model's D5R21 part: values and notifications."""

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

    def notification(self, t, p, starts, notified):
        """The notifications of a D5R21. Suppressed only as an exact
        repeat: the same status bit, RCCSMTSQ and record time as the last
        notified (the same number written again later is a new change)."""
        if p.seq is None:
            return []
        seq, n = p.seq, (p.seq + 1) // 2
        res = []
        for bit in (0x80, 0x40):
            if not p.status & bit or notified.get(bit) == (seq, t):
                continue
            notified[bit] = (seq, t)
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
