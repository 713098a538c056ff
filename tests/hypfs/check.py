#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oracle of the hypfs end-to-end test: the values collectd-hypfs(5)
promises for a sequence of generated snapshots, compared with what collectd's
csv plugin wrote.

  check.py [--gah] [--simple] vm|lpar CSVDIR HOST EXPECT1 [EXPECT2 ...]

EXPECTn are hypfs-gen --expect files of the snapshots the plugin read, in
order. Counters are continued as the man page says (LOGOFF, LOGON AND
VANISHING GUESTS); partition sums grow by their CPUs' increments. For every
entity of the last snapshot the csv file must hold a line with exactly the
expected values; for an entity absent from it, its last line must still be
its last expected values (nothing invented). Exit 0 if so, else 1 with the
differences on stdout.
"""
import glob
import math
import os
import sys

SAMPLES = ["samples_cpu_using", "samples_cpu_delay", "samples_mem_delay",
           "samples_idle", "samples_other", "samples_total"]
GUEST_DS = ["cpu_time_us", "online_time_us", "vcpus", "ocpus", "capped",
            "dedicated", "weight_max", "weight_cur", "mem_min_bytes",
            "mem_max_bytes", "mem_share_bytes", "mem_used_bytes"] + SAMPLES
COUNTERS = {"cpu_time_us": 64, "online_time_us": 64}
COUNTERS.update({s: 32 for s in SAMPLES})


class Counter:
    def __init__(self):
        self.last, self.off = {}, {}

    def step(self, raw, restarted, width):
        """raw: {name: value}; returns the continued values."""
        out = {}
        for k, v in raw.items():
            if k in self.last:
                if restarted:
                    self.off[k] += self.last[k]
                elif v < self.last[k]:
                    self.off[k] += (1 << 32) if width(k) == 32 else self.last[k]
            else:
                self.off[k] = 0
            self.last[k] = v
            out[k] = self.off[k] + v
        return out


def read_expect(path):
    rows = {}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        rows.setdefault(f[0], []).append(f[1:])
    return rows


def csv_lines(csvdir, host, pi, type_, ti=""):
    d = os.path.join(csvdir, host, "hypfs" + ("-" + pi if pi else ""))
    name = type_ + ("-" + ti if ti else "")
    files = sorted(glob.glob(os.path.join(d, name + "-????-??-??")))
    lines = []
    for f in files:
        for line in open(f):
            if line.startswith("epoch"):
                continue
            lines.append([float(x) for x in line.strip().split(",")[1:]])
    return lines


def ident(name, gah, host):
    return (name.lower(), "") if gah else (host, name)


def same(a, b):
    """Equal value lists, NaN (collectd's unknown, csv "nan") equal to NaN."""
    return len(a) == len(b) and all(
        x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


def check(label, lines, want, present, errors):
    if not lines:
        errors.append("%s: no csv values" % label)
    elif present and not any(same(want, line) for line in lines):
        errors.append("%s: want %s, csv has (last) %s" % (label, want, lines[-1]))
    elif not present and not same(lines[-1], want):
        errors.append("%s: vanished, its last values should stay %s, got %s"
                      % (label, want, lines[-1]))


def run_vm(args, gah):
    csvdir, host, exps = args[0], args[1], args[2:]
    state, last_vals, errors = {}, {}, []
    present = set()
    for exp in exps:
        rows = read_expect(exp)
        present = set()
        for name, fields in rows.items():
            if name == "hypervisor":
                continue
            vals = {k: int(v) for k, v in fields}
            c = state.setdefault(name, Counter())
            restarted = ("online_time_us" in c.last and
                         vals["online_time_us"] < c.last["online_time_us"])
            cont = c.step({k: vals[k] for k in COUNTERS}, restarted,
                          lambda k: COUNTERS[k])
            vals.update(cont)
            last_vals[name] = [float(vals[k]) for k in GUEST_DS]
            present.add(name)
        hyp = {k: float(v) for k, v in rows.get("hypervisor", [])}
    for name, want in last_vals.items():
        h, pi = ident(name, gah, host)
        check(name, csv_lines(csvdir, h, pi, "hypfs_guest"), want,
              name in present, errors)
    check("hypervisor", csv_lines(csvdir, host, "hypervisor", "hypfs_vm"),
          [hyp["cpus"], hyp["guests"]], True, errors)
    return errors


def run_lpar(args, gah, simple):
    csvdir, host, exps = args[0], args[1], args[2:]
    cpus, parts, prev, errors = {}, {}, {}, []
    last_cpu, last_part, last_phys = {}, {}, {}
    for exp in exps:
        rows = read_expect(exp)
        present_parts = {}
        for key, fields in rows.items():
            f = fields[0]
            vals = {f[i]: int(f[i + 1]) for i in range(0, len(f), 2)}
            c = cpus.setdefault(key, Counter())
            part, ti = key.split("/", 1)
            if part == "physical":
                cont = c.step(vals, False, lambda k: 64)
                last_phys[ti] = [float(cont["mgm"])]
                continue
            restarted = (not simple and "online" in c.last and
                         vals["online"] < c.last["online"])
            if simple:
                vals.pop("online", None)
            cont = c.step(vals, restarted, lambda k: 64)
            acc = parts.setdefault(part, {"cpu": 0, "mgm": 0, "online": 0})
            for k in cont:
                acc[k] += cont[k] - prev[key][k] if key in prev else cont[k]
            prev[key] = cont
            present_parts[part] = present_parts.get(part, 0) + 1
            ks = ["cpu", "mgm"] + ([] if simple else ["online"])
            last_cpu[(part, ti)] = [float(cont[k]) for k in ks]
        for part, n in present_parts.items():
            ks = ["cpu", "mgm"] + ([] if simple else ["online"])
            last_part[part] = [float(parts[part][k]) for k in ks] + [float(n)]
    sfx = "_simple" if simple else ""
    for (part, ti), want in last_cpu.items():
        h, pi = ident(part, gah, host)
        check(part + "/" + ti, csv_lines(csvdir, h, pi, "hypfs_lpar_cpu" + sfx, ti),
              want, True, errors)
    for part, want in last_part.items():
        h, pi = ident(part, gah, host)
        check(part, csv_lines(csvdir, h, pi, "hypfs_lpar" + sfx), want, True,
              errors)
    for ti, want in last_phys.items():
        check("physical/" + ti,
              csv_lines(csvdir, host, "physical", "hypfs_phys_cpu", ti), want,
              True, errors)
    return errors


def main():
    argv = sys.argv[1:]
    gah = "--gah" in argv
    simple = "--simple" in argv
    argv = [a for a in argv if a not in ("--gah", "--simple")]
    if len(argv) < 4 or argv[0] not in ("vm", "lpar"):
        print(__doc__)
        return 2
    errors = (run_vm(argv[1:], gah) if argv[0] == "vm"
              else run_lpar(argv[1:], gah, simple))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
