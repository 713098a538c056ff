#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The values the dashboards must show for the test's stream and feed.

    expected.py SCENARIO > expected.json

Independently of the dashboards' queries: the values the plugin dispatches
for the scenario come from the oracle, tests/e2e/oracle/ (which decodes
the stream's bytes itself), every counter's rate over the run is (last - first) /
(last time - first time), and the panels' figures follow from those rates
by their definitions (a wait-state share is a state's rate over the sum of
the states' rates, CPUs busy is microseconds per second / 1e6, ...). The
dmstats rates are the feed's (tests/dashboards/dmstats_feed.py). D0R2 is
also checked against the stream generator's closed form: processor c is
charged to users for (10 + 7c) % of the time, in emulation mode for 3/4
of that (tests/rig/zvm-stream-gen.c, put_sytprp).

Output: {"panels": {TITLE: {"agg": "median"|"last", "series": {NAME:
value}, "sum_per_group": total, "top": true, "tolerance": fraction
(each optional)}}}:
check.py compares each series' median (or last) point with the value,
within 2 % (or the panel's tolerance); for a top-N panel the order of the names.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, HERE)
import oracle  # noqa: E402
import dmstats_feed  # noqa: E402

HOST = "zvmtest"
# The wait states of the share panel: mutually exclusive states of IBM's
# MRUSEITE high-frequency sampling (USEITE_HF*).
WAIT_STATES = ["hfcpurn", "hfcpuwt", "hfiowt", "hfwtpag", "hfsimwt", "hfcfwt", "hftidl",
               "hftsvm", "hfllist", "hfdorm", "hfothr"]
CPU_STATES = ["user", "nice", "system", "idle", "wait", "interrupt", "softirq", "steal"]
BUSY = ["user", "nice", "system", "interrupt", "softirq"]


def series(scn):
    """{ident: [(seconds, value)]} of every value the plugin dispatches (one
    value per list; a list's values as ident.0, ident.1, ...)."""
    m = oracle.Model(oracle.Scenario(scn), oracle.Config(HOST, one_value_per_list=True))
    nsets = len(m.reader.sets)
    out, _notes, _r = m.dispatches(list(range(1, nsets + 1)))
    res = {}
    for ident, vals in out.items():
        for t, v, *_rest in vals:
            if not isinstance(t, int):
                continue  # stamped on arrival: no record time
            if isinstance(v, list):
                for i, (x, _typ) in enumerate(v):
                    res.setdefault("%s.%d" % (ident, i), []).append((t / 1e6, x))
            else:
                res.setdefault(ident, []).append((t / 1e6, v))
    return {k: sorted(v) for k, v in res.items()}, m


def rate(pts):
    (t0, v0), (t1, v1) = pts[0], pts[-1]
    return (v1 - v0) / (t1 - t0)


def main(argv):
    s, model = series(argv[1])
    panels = {}

    def put(title, values, agg="median", **kw):
        panels[title] = dict(kw, agg=agg, series=values)

    guests = sorted({k.split("/")[1][len("zvm_monitor-"):] for k in s
                     if "/derive-hfcpurn" in k})
    shares, tx = {}, {}
    for g in guests:
        base = "%s/zvm_monitor-%s/" % (HOST, g)
        r = {st: rate(s[base + "derive-" + st]) for st in WAIT_STATES}
        tot = sum(r.values())
        for st in WAIT_STATES:
            shares["%s %s" % (g, st)] = 100.0 * r[st] / tot
        tx["%s transactions" % g] = rate(s[base + "total_events-transactions"])
    put("Wait-state shares (% of samples)", shares, sum_per_group=100.0)
    # transactions end at their own times, not on a grid: a rate over a
    # few seconds' window (Prometheus) scatters around the run's rate
    put("Transactions per second", tx, tolerance=0.2)

    cpus = sorted({k.split("/")[1][len("zvm_monitor-"):] for k in s if "/derive-pfxutime" in k})
    per, tot = {}, {"emulation": 0.0, "users": 0.0}
    for c in cpus:
        base = "%s/zvm_monitor-%s/derive-" % (HOST, c)
        for name, field, share in (("emulation", "pfxprbtm", 0.75), ("users", "pfxutime", 1)):
            v = rate(s[base + field]) / 1e6
            # the generator's closed form, independent of the oracle
            n = int(c[3:])
            want = share * (10 + 7 * (n % 12)) / 100.0
            if abs(v - want) > 0.001:
                sys.exit("expected.py: %s %s: %.4f CPUs from the stream, %.4f by "
                         "construction" % (c, name, v, want))
            per["%s %s" % (c, name)] = v
            tot[name] += v
    put("Processors: CPUs busy per processor", per)
    put("Processors: CPUs busy, all processors", tot)

    threads, config = {}, {}
    for t in ("cp", "ifl"):
        for f in ("activated", "requested", "hardware_max", "zvm_max"):
            threads["%s %s" % (t, f)] = s["%s/zvm_monitor-%s/threads-%s" % (HOST, t, f)][-1][1]
    for f in ("mt_config_seq", "mt_max_threads"):
        config[f] = s["%s/zvm_monitor-system/gauge-%s" % (HOST, f)][-1][1]
    put("Threads per core by CPU type", threads, agg="last")
    # every value of D5R21 (MRPRCSMT), its CPU types' and the system's,
    # for the dashboards of zvm-monitor-record (tests/dashboards/run.sh)
    prcsmt = {}
    for k, v in s.items():
        where, what = k.split("/")[1:3]
        if where in ("zvm_monitor-system", "zvm_monitor-cp", "zvm_monitor-ifl"):
            prcsmt["%s %s" % (where.split("-")[1], what.split("-", 1)[1])] = v[-1][1]
    put("D5R21 values (last)", prcsmt, agg="last")
    put("Multithreading configuration", config, agg="last")

    lnx = sorted({k.split("/")[0] for k in s if "/cpu-0/cpu-user" in k})
    by_state = {st: 0.0 for st in CPU_STATES}
    busy, steal, pct, mem, net = {}, {}, {}, {}, {"rx": 0.0, "tx": 0.0}
    for h in lnx:
        ncpu = sorted({k.split("/")[1] for k in s if k.startswith(h + "/cpu-")})
        r = {st: sum(rate(s["%s/%s/cpu-%s" % (h, c, st)]) for c in ncpu) / 100.0
             for st in CPU_STATES}
        for st in CPU_STATES:
            by_state[st] += r[st]
            pct["%s %s" % (h, st)] = 100.0 * r[st] / sum(r.values())
        busy[h] = sum(r[st] for st in BUSY)
        steal[h] = r["steal"]
        for i, d in enumerate(("rx", "tx")):
            net[d] += rate(s["%s/interface-sum/if_octets.%d" % (h, i)])
        for m in ("used", "free"):
            mem["%s %s" % (h, m)] = s["%s/memory/memory-%s" % (h, m)][-1][1]
    put("Linux guests: CPUs by state (all selected guests)", by_state)
    put("Linux guests: network bytes per second (all selected guests)", net)
    put("Top guests by CPU busy (CPUs)", busy, top=True)
    put("Top guests by steal (CPUs)", steal, top=True)
    put("CPU by state (% of the guest's CPU time)", pct, sum_per_group=100.0)
    put("Memory used and free", mem, agg="last")

    thr, iops, ms, lat = {}, {}, {}, {}
    for pinst, r in dmstats_feed.REGIONS.items():
        for i, d in enumerate(("read", "write")):
            thr["%s %s" % (pinst, d)] = r["octets"][i]
            iops["%s %s" % (pinst, d)] = r["ops"][i]
            ms["%s %s" % (pinst, d)] = r["time_ms"][i]
        for b, v in r["latency"].items():
            lat["latency-" + b] = lat.get("latency-" + b, 0) + v
    put("dmstats: throughput (bytes per second)", thr)
    put("dmstats: I/O operations per second", iops)
    put("dmstats: average time per operation", ms)
    put("dmstats: I/O latency histogram", lat)

    c = model.c
    put("Reader errors since start", {k.split("-")[1]: c["errors-" + k.split("-")[1]]
                                       for k in ("errors-eoverflow", "errors-eio",
                                                 "errors-efault", "errors-malformed")},
        agg="last")
    put("Records dropped and record times not used, since start",
        {k: c["total_objects-" + k] for k in ("appldata_dropped", "time_future")},
        agg="last")
    json.dump({"panels": panels}, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv)
