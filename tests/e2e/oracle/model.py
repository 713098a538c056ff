# SPDX-License-Identifier: MIT
"""The whole model: the reader's sets decoded, selected, aggregated per
read callback under the time rules, shaped into value lists."""

from .appldata import AppldataModel, apl_decode
from .base import ARRIVAL, STEP_US, TIME_AHEAD_MAX_US, OracleError, be, tod_to_us
from .naming import ident, user_name
from .prcsmt import PRCSMT_CPU_DS, PRCSMT_CPU_TYPE, PRCSMT_DS, PRCSMT_TYPE, PrcsmtModel, d5r21_parse
from .reader import Reader
from .records import user_record_values
from .session import SessionModel
from .sets import decode_set
from .stream import device_events
from .sytprp import d0r2_values
from .useite import D4R10_FIELDS, D4R10_USER, LEVELS, USEITE_TYPE, UseiteModel, d4r10_values


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


class Model(UseiteModel, PrcsmtModel, AppldataModel, SessionModel):
    """The expected dispatches of a scenario under a configuration; the
    record families' parts are in their modules."""

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
