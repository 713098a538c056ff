# SPDX-License-Identifier: MIT
"""What collectd wrote: csv files, the reader's series, the log's
notifications."""

import glob
import os
import re

from .reader import READER_COUNTERS


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
