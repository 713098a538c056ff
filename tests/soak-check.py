#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make soak's helper: faults the generator does not write, the counters a
soak must end with, and the check that no value of a discarded set reached
the csv writer.

  soak-check.py patch IN OUT --malformed M --oversize M:N
      copy a scenario; message M gets a record whose MRHDRLEN is 8 (< 20:
      malformed, the rest of its record set is skipped); the other message's
      MCEs and record sets are repeated N times (a set larger than the soak's
      MaxSetSize: discarded whole, counted in errors-malformed).
  soak-check.py expect SCENARIO --oversize M
      one pass's reader counters as shell assignments (exp_sets=...) and the
      user IDs whose values the soak writes (watch=...): guests of every
      discarded message and two control guests.
  soak-check.py forbidden SCENARIO --csv DIR --passes P --oversize M
      exit 1 if a D4R10 value of a discarded message (EIO, EFAULT,
      oversize), in any loop pass, is in the csv files.

The counting rules and the decoding are the oracle's (tests/e2e/oracle/,
written from the specifications, not from the plugin).
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e"))
import oracle  # noqa: E402

MCE_LEN = 12


def items(path):
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 32
    while pos < len(data):
        kind = data[pos:pos + 1]
        (plen,) = struct.unpack(">I", data[pos + 4:pos + 8])
        out.append([kind, bytearray(data[pos + 8:pos + 8 + plen])])
        pos += 8 + plen
    return data[:32], out


def record_sets(msg):
    """(offset of the record set in msg, its length) per MCE."""
    pos = 0
    while pos + MCE_LEN <= len(msg):
        start, end = struct.unpack(">II", msg[pos + 4:pos + 12])
        n = end - start + 1
        yield pos + MCE_LEN, n
        pos += MCE_LEN + n


def patch(a):
    head, its = items(a.input)
    msgs = [it for it in its if it[0] == b"M"]
    m = msgs[a.malformed][1]
    done = False
    for rs, n in list(record_sets(m))[1:]:
        hl = struct.unpack(">H", m[rs:rs + 2])[0]
        if hl >= 20 and not (m[rs + 4] == 1 and m[rs + 6:rs + 8] == b"\0\x0d") and hl + 20 <= n:
            m[rs + hl:rs + hl + 2] = struct.pack(">H", 8)
            done = True
            break
    if not done:
        sys.exit("soak-check: message %d has no record to make malformed" % a.malformed)
    om, times = (int(x) for x in a.oversize.split(":"))
    msgs[om][1] = bytearray(bytes(msgs[om][1]) * times)
    with open(a.output, "wb") as f:
        f.write(head)
        for kind, payload in its:
            f.write(kind + b"\0\0\0" + struct.pack(">I", len(payload)) + payload)


def model(a):
    m = oracle.Model(oracle.Scenario(a.scenario), oracle.Config(hostname="soak"))
    c = dict(m.c)
    # The oversize message: a complete set for the oracle, discarded by a
    # reader whose MaxSetSize it exceeds (still a set; one malformed).
    idx = [i for i, (_b, msg) in enumerate(m.reader.sets) if msg == a.oversize]
    if len(idx) != 1:
        sys.exit("soak-check: message %d is not a complete set" % a.oversize)
    i = idx[0]
    prev = m.set_records[i - 1] if i > 0 else (0, 0, 0, 0)
    cur = m.set_records[i]
    c["total_objects-records"] -= cur[0] - prev[0]
    c["errors-malformed"] += 1 - (cur[1] - prev[1])
    recs, _n, _b = oracle.decode_set(m.reader.sets[i][0], -1)
    forbidden = m.forbidden + [r for r in recs if m.used(r)]
    return m, c, [r for r in forbidden if r.domain == 4 and r.number == 10]


def expect(a):
    m, c, forb = model(a)
    for k in ("errors-eio", "errors-efault", "errors-eoverflow", "errors-malformed",
              "total_objects-sets", "total_objects-records", "total_bytes-read"):
        print("exp_%s=%d" % (k.split("-", 1)[1], c[k]))
    users = []
    for r in forb:
        name, _vals, _t = m.d4r10_idents(r)
        if name not in users:
            users.append(name)
    # a few guests of each discarded stretch, and two that are never discarded
    pick = users[:3] + users[len(users) // 2:len(users) // 2 + 2] + users[-3:]
    ok = [n for n in ("LINU0001", "LINU1999") if n not in users]
    print("watch='%s'" % "|".join(sorted(set(pick + ok))))
    print("exp_forbidden_guests=%d" % len(users))


def forbidden(a):
    m, _c, forb = model(a)
    csv = oracle.read_csv(a.csv)
    span = m.cfg and oracle.Scenario(a.scenario).span_us
    checked = bad = 0
    for r in forb:
        _name, _vals, tident = m.d4r10_idents(r)
        ident = tident.rsplit("/", 1)[0] + "/" + oracle.USEITE_TYPE
        rows = csv.get(ident)
        if not rows:
            continue
        t0 = m.rec_us(r)
        times = set(round(t * 1000) for t, _v in rows)
        for p in range(a.passes):
            checked += 1
            if round((t0 + p * span) / 1000) in times:
                bad += 1
                if bad <= 10:
                    print("FAIL - %s: a value at %.3f comes from a discarded set (pass %d)"
                          % (ident, (t0 + p * span) / 1e6, p))
    print("discarded D4R10 values checked: %d (%d guests written), from a discarded set: %d"
          % (checked, len(csv), bad))
    return 1 if bad or checked == 0 else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("patch")
    s.add_argument("input")
    s.add_argument("output")
    s.add_argument("--malformed", type=int, required=True)
    s.add_argument("--oversize", required=True)
    for name in ("expect", "forbidden"):
        s = sub.add_parser(name)
        s.add_argument("scenario")
        s.add_argument("--oversize", type=int, required=True)
        if name == "forbidden":
            s.add_argument("--csv", required=True)
            s.add_argument("--passes", type=int, required=True)
    a = p.parse_args()
    if a.cmd == "patch":
        patch(a)
        return 0
    if a.cmd == "expect":
        expect(a)
        return 0
    return forbidden(a)


if __name__ == "__main__":
    sys.exit(main())
