# SPDX-License-Identifier: MIT
"""The comparison of what collectd wrote with the model."""

from .base import ARRIVAL
from .naming import ident
from .output import fmt_value, partition_of, read_csv, read_notifications, reader_series, trim_dropped_last_callback
from .prcsmt import PRCSMT_TYPE
from .reader import PARTITION_COUNTERS, READER_COUNTERS
from .useite import USEITE_TYPE


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
