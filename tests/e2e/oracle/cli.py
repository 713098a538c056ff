# SPDX-License-Identifier: MIT
"""The command line (tests/e2e/oracle.py): dump, ready, check, value."""

import argparse
import json
import sys

from .base import ARRIVAL, OracleError
from .check import Checker
from .config import Config
from .model import Model, list_ds_names
from .output import fmt_value, read_csv, reader_series
from .reader import PARTITION_COUNTERS, READER_COUNTERS
from .records import parse_record_blocks
from .stream import Scenario


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
    p = argparse.ArgumentParser(description=sys.modules[__package__].__doc__.split("\n\n")[0])
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
