#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Put dmstats values of two regions into a collectd daemon (unixsock).

    dmstats_feed.py --socket PATH [--socket PATH...] [--host zvmtest]

The build machine has no device-mapper to measure, so the dashboard test
puts values named exactly as the dmstats plugin names them (collectd-dmstats(5),
METRICS) into the daemon that writes to the back ends: counters growing at
the constant rates of REGIONS, one point every STEP seconds for STEPS
steps, each at its time (write_prometheus shows only a metric's latest
value to Prometheus' scrapes). tests/dashboards/expected.py takes the rates from here, so the test
knows each panel's value without asking the dashboards' queries.
"""

import argparse
import socket
import sys
import time

STEP = 2
STEPS = 11
# plugin instance: per second rates (bytes, operations, latency-bucket I/Os),
# average ms per read/write, I/Os in flight
REGIONS = {
    "vg0-data_r0": {"octets": (1048576, 262144), "ops": (128, 32), "time_ms": (2, 5),
                    "latency": {"0ms-1ms": 120, "1ms-5ms": 30, "5ms-20ms": 8, "20ms-inf": 2},
                    "pending": 3},
    "mpatha_r0": {"octets": (4194304, 2097152), "ops": (512, 256), "time_ms": (1, 3),
                  "latency": {"0ms-1ms": 700, "1ms-5ms": 50, "5ms-20ms": 12, "20ms-inf": 6},
                  "pending": 7},
}


def lines(host, i, t):
    s = STEP * i
    if True:
        for pinst, r in sorted(REGIONS.items()):
            base = "PUTVAL \"%s/dmstats-%s/%%s\" interval=%d %d:%%s" % (host, pinst, STEP, t)
            yield base % ("disk_octets", "%d:%d" % (r["octets"][0] * s, r["octets"][1] * s))
            yield base % ("disk_ops", "%d:%d" % (r["ops"][0] * s, r["ops"][1] * s))
            yield base % ("disk_time", "%d:%d" % (r["time_ms"][0] * s, r["time_ms"][1] * s))
            yield base % ("pending_operations", "%d" % r["pending"])
            for b, rate in sorted(r["latency"].items()):
                yield base % ("derive-latency-" + b, "%d" % (rate * s))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--socket", action="append", required=True)
    p.add_argument("--host", default="zvmtest")
    a = p.parse_args(argv)
    files = []
    for path in a.socket:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        files.append(s.makefile("rw"))
    bad = 0
    start = int(time.time()) + 1
    for i in range(STEPS):
        t = start + STEP * i
        time.sleep(max(0.0, t - time.time()))
        for line in lines(a.host, i, t):
            for f in files:
                f.write(line + "\n")
                f.flush()
                answer = f.readline().strip()
                if not answer.startswith("0 "):
                    print("dmstats_feed: %s: %s" % (line, answer), file=sys.stderr)
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
