#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two end-to-end runs, e.g. amd64 and s390x (tests/run's s390x stage).

  compare.py DIR_A DIR_B

DIR_A and DIR_B are the E2E_DIR of two runs of tests/e2e/run.sh (one
subdirectory per scenario). Generic: whatever the scenarios write is
compared; nothing here knows a metric, a scenario or a value shape.

What must be identical, scenario by scenario (a scenario may run several
daemons: every csv directory, collectd.log and stream below its directory
is compared with the one at the same place in the other run):
  * every generated stream (*.scn): byte for byte;
  * the set of identifiers the csv writer wrote (host/plugin-instance/
    type-type-instance, the csv file's date suffix dropped);
  * the notifications in each collectd.log (the line's timestamp is the
    notification's time, a record time: compared too), as a multiset, the
    run's own directory (in device paths) read as "E2E_DIR";
  * for every identifier except the reader's counters: the last line
    (time and all values), and the line at every time both runs wrote.

What legitimately differs, and how it is compared instead:
  * How data sets fall into read callbacks depends on timing (qemu is
    slower): a guest's two records may meet in one callback in one run and
    be dispatched once, in two callbacks in the other and be dispatched
    twice. So a time written by one run only is not a difference; each run
    is checked against the oracle for its own callbacks by run.sh.
  * The reader's counters (plugin instance "reader") are stamped with the
    wall clock at each read callback: only their final values are compared.
  * errors-open counts failed opens; while another process holds the device
    (the plugin logs that it is busy) the number of retries depends on the
    wall clock: then it need only be at least 1 in both runs.
  * The reader's notifications (plugin instance "reader": lost data, device
    trouble) are stamped with the wall clock: their time is not compared,
    nor the durations they tell ("N s"); a device episode's message also
    tells how many opens failed while it lasted: its numbers are not
    compared at all. When an episode ends, and so whether the next loss
    starts a new one, is decided by the wall clock ("nothing discarded for
    N s"; qemu is slower), and an end may come after the daemon was
    stopped: compared are the kinds of episodes (type instance) and the
    first start (WARNING) of each kind, with the numbers it tells.
  * Values the plugin restamps with their arrival time (its time rules:
    a record time equal to or before one already dispatched) carry the
    wall clock: a line whose time lies within the run's daemons' log span
    (+-2 s) is such a line; of those, the last one's values are compared.

Prints one line per scenario and "N identical, N differ"; exit 1 on any
difference. Python 3 standard library only.
"""

import calendar
import glob
import os
import re
import sys
import time

CSV_DATE = re.compile(r"-\d{4}-\d{2}-\d{2}$")
NOTIFICATION = re.compile(r"^(\[[^]]*\]) (?:\[[a-z]+\] )?(Notification: .*)$")
READER_PINST = "-reader"
LOG_TIME = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]")
WALL_MARGIN = 2  # seconds around a daemon's log lines that count as its wall clock
READER_NOTE = "plugin_instance = reader,"
DEVICE_EPISODE = "type_instance = device,"


def read_csv(d):
    """{ident: {time_text: values_text}} of a csv plugin DataDir."""
    out = {}
    for path in glob.glob(os.path.join(d, "*", "*", "*")):
        host, pdir, fname = path.split(os.sep)[-3:]
        key = "%s/%s/%s" % (host, pdir, CSV_DATE.sub("", fname))
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("epoch"):
                    t, v = line.split(",", 1)
                    out.setdefault(key, {})[t] = v
    return out


class Log:
    """A collectd.log: the notifications of records (sorted), the reader's
    notifications (in order), whether the plugin logged a busy device, and
    the wall-clock span of its other lines (seconds). root: the run's
    directory, which messages may name."""

    def __init__(self, path, root):
        self.notes, self.reader_notes, self.busy, self.wall = [], [], False, []
        if not os.path.exists(path):
            return
        with open(path, errors="replace") as f:
            for line in f:
                m = NOTIFICATION.match(line.rstrip("\n"))
                if m:
                    stamp, text = m.group(1), m.group(2).replace(root, "<run>")
                    if READER_NOTE in text:
                        # the device path: cut to a fixed length by the plugin
                        text = re.sub(r"(<run>|/)[^\s:,]*", "<device>", text)
                        text = re.sub(r"\b\d+ s\b", "N s", text)  # durations
                        if DEVICE_EPISODE in text:
                            text = re.sub(r"\d+", "N", text)
                        self.reader_notes.append(text)
                    else:
                        self.notes.append(stamp + " " + text)
                    continue
                w = LOG_TIME.match(line)
                if w:
                    self.wall.append(calendar.timegm(time.strptime(w.group(1), "%Y-%m-%d %H:%M:%S")))
                if "zvm_monitor plugin:" in line and "busy" in line.lower():
                    self.busy = True
        self.notes.sort()


def first_warnings(notes):
    """{type_instance: the first WARNING of that kind} of the reader's
    notifications: when an episode ends (and the next one starts) is
    decided by the wall clock ("nothing discarded for N s"), its first
    start is not."""
    out = {}
    for n in notes:
        m = re.search(r"type_instance = ([^,]*),", n)
        if "severity = WARNING," in n and m and m.group(1) not in out:
            out[m.group(1)] = n
    return out


def reader_notes_differ(na, nb):
    """collectd cuts a notification's message at a fixed length, and the
    device path in it is as long as the run's directory: one message may
    end earlier than the other."""
    fa, fb = first_warnings(na), first_warnings(nb)
    return set(fa) != set(fb) or any(
        not (fa[k].startswith(fb[k]) or fb[k].startswith(fa[k])) for k in fa)


def last(series):
    t = max(series, key=float)
    return t, series[t]


def below(top, want):
    """Paths relative to top of the files (or directories) named by want()."""
    out = set()
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            if want(n):
                out.add(os.path.relpath(os.path.join(d, n), top))
    return out


def compare_scenario(a, b, a_root, b_root):
    """([differences], summary) of one scenario's two directories (below the
    runs' directories a_root, b_root)."""
    diffs = []
    for rel in sorted(below(a, lambda n: n.endswith(".scn")) | below(b, lambda n: n.endswith(".scn"))):
        pa, pb = os.path.join(a, rel), os.path.join(b, rel)
        if not os.path.exists(pa) or not os.path.exists(pb):
            diffs.append("stream %s: in one run only" % rel)
            continue
        with open(pa, "rb") as fa, open(pb, "rb") as fb:
            if fa.read() != fb.read():
                diffs.append("stream %s: not byte-identical" % rel)
    ca, cb = {}, {}
    for rel in below(a, lambda n: n == "csv") | below(b, lambda n: n == "csv"):
        prefix = "" if rel == "csv" else os.path.dirname(rel) + ":"
        for k, v in read_csv(os.path.join(a, rel)).items():
            ca[prefix + k] = v
        for k, v in read_csv(os.path.join(b, rel)).items():
            cb[prefix + k] = v
    for k in sorted(set(ca) - set(cb)):
        diffs.append("%s: only in the first run" % k)
    for k in sorted(set(cb) - set(ca)):
        diffs.append("%s: only in the second run" % k)
    na = []
    busy = set()  # directories whose daemon logged a busy device
    wall_a, wall_b = [], []  # wall-clock seconds of each run's daemons
    for rel in sorted(below(a, lambda n: n == "collectd.log") | below(b, lambda n: n == "collectd.log")):
        la = Log(os.path.join(a, rel), os.path.abspath(a_root))
        lb = Log(os.path.join(b, rel), os.path.abspath(b_root))
        wall_a += la.wall
        wall_b += lb.wall
        if la.busy or lb.busy:
            busy.add(os.path.dirname(rel))
        if la.notes != lb.notes:
            only_a = [n for n in la.notes if n not in lb.notes]
            only_b = [n for n in lb.notes if n not in la.notes]
            diffs.append("%s: notifications differ (%d vs %d); first run only: %s; second run only: %s" % (
                rel, len(la.notes), len(lb.notes), only_a[:2], only_b[:2]))
        if reader_notes_differ(la.reader_notes, lb.reader_notes):
            diffs.append("%s: the reader's notifications differ: %s vs %s" % (
                rel, la.reader_notes, lb.reader_notes))
        na = na + la.notes + la.reader_notes

    def wall_stamped(series, wall):
        """Lines stamped with the daemon's clock (arrival time), not a record's."""
        if not wall:
            return set()
        lo, hi = min(wall) - WALL_MARGIN, max(wall) + WALL_MARGIN
        return {t for t in series if lo <= float(t) <= hi}
    points = counters = 0
    for k in sorted(set(ca) & set(cb)):
        sa, sb = ca[k], cb[k]
        where, _, ident = k.rpartition(":")
        pdir = ident.split("/")[1]
        if pdir.endswith(READER_PINST):
            counters += 1
            va, vb = last(sa)[1], last(sb)[1]
            if k.endswith("/errors-open") and where in busy:
                if float(va) < 1 or float(vb) < 1:
                    diffs.append("%s: device busy, want at least 1 in both runs: %s vs %s" % (k, va, vb))
            elif va != vb:
                diffs.append("%s: final value %s vs %s" % (k, va, vb))
            continue
        # Values restamped with their arrival time (the plugin's time rules):
        # the last such line's values are compared, not its time.
        wa, wb = wall_stamped(sa, wall_a), wall_stamped(sb, wall_b)
        if bool(wa) != bool(wb):
            diffs.append("%s: stamped with the daemon's clock in one run only" % k)
        elif wa and sa[max(wa, key=float)] != sb[max(wb, key=float)]:
            diffs.append("%s: last arrival-stamped line %s vs %s" % (
                k, sa[max(wa, key=float)], sb[max(wb, key=float)]))
        sa = {t: v for t, v in sa.items() if t not in wa}
        sb = {t: v for t, v in sb.items() if t not in wb}
        if bool(sa) != bool(sb):
            diffs.append("%s: record-stamped lines in one run only" % k)
            continue
        if sa and last(sa) != last(sb):
            diffs.append("%s: last line %s,%s vs %s,%s" % ((k,) + last(sa) + last(sb)))
        for t in sorted(set(sa) & set(sb), key=float):
            points += 1
            if sa[t] != sb[t]:
                diffs.append("%s at %s: %s vs %s" % (k, t, sa[t], sb[t]))
    summary = "%d identifiers, %d reader counters, %d common lines, %d notifications" % (
        len(ca), counters, points, len(na))
    return diffs, summary


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: compare.py DIR_A DIR_B\n")
        return 2
    da, db = argv[1], argv[2]
    sa = {n for n in os.listdir(da) if os.path.isdir(os.path.join(da, n))}
    sb = {n for n in os.listdir(db) if os.path.isdir(os.path.join(db, n))}
    same = differ = 0
    for name in sorted(sa | sb):
        if name not in sa or name not in sb:
            print("DIFF: %s: ran in one run only" % name)
            differ += 1
            continue
        diffs, summary = compare_scenario(os.path.join(da, name), os.path.join(db, name), da, db)
        if diffs:
            differ += 1
            print("DIFF: %s (%s)" % (name, summary))
            for d in diffs[:20]:
                print("    " + d)
            if len(diffs) > 20:
                print("    ... %d more" % (len(diffs) - 20))
        else:
            same += 1
            print("same: %s (%s)" % (name, summary))
    if same == 0 and differ == 0:
        print("no scenarios to compare")
        differ = 1
    print("%d identical, %d differ" % (same, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
