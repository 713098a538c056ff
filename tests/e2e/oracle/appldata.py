# SPDX-License-Identifier: MIT
"""Domain 10 (APPLDATA): Linux guests' own records."""

from .base import be
from .naming import user_name


# --------------------------------------------------------------------------
# Domain 10 (APPLDATA): Linux guests' own data, decoded from the published
# layouts, never from the plugin's C code:
#   APHDR (D10R1 MRAPLEDT / D10R2 MRAPLSDT): 20 CALDATOF s2, 22 CALDATLN s2,
#     24 USERID c8 EBCDIC, 32 product ID c16, 48 status.
#   kernel arch/s390/appldata/appldata_base.c (product ID EBCDIC
#     "LINUXKRNL" + record byte + "2601" + mod level), appldata_mem.c,
#     appldata_os.c, appldata_net_sum.c (struct appldata_*_data, packed).
#   s390-tools mon_tools/mon_fsstatd.{c,h}, mon_procd.{c,h} (product ID
#     ASCII "LNXAPPL" + applid u16 + record + version u16 + release +
#     slot).
# Names: collectd 5.12's own plugins on the guest (contrib/zvm_monitor.pod,
# APPLDATA).

APL_KINDS = ("mem", "os", "net_sum", "fsstat", "procd_sum", "procd_task")
APL_DEFAULT_KINDS = ("mem", "os", "net_sum", "fsstat", "procd_sum")
APL_KERNEL_ID = "LINUXKRNL".encode("cp037")
APL_KERNEL_VER = "2601".encode("cp037")


def apl_product(p):
    """Product ID -> layout name, or None."""
    if p[:9] == APL_KERNEL_ID and p[10:14] == APL_KERNEL_VER:
        mod = p[14:16].decode("cp037")
        if p[9] == 1 and mod == "00":
            return "mem"
        if p[9] == 2 and mod in ("00", "01"):
            return "os"
        if p[9] == 3 and mod == "00":
            return "net_sum"
        return None
    if p[:7] == b"LNXAPPL" and be(p, 10, 2) == 0:
        applid, rec = be(p, 7, 2), p[9]
        return {(1, 0): "fsstat", (2, 0): "procd_sum", (2, 1): "procd_task"}.get((applid, rec))
    return None


def apl_decode(rec):
    """(status, kind, fields) of a domain 10 record; status is "ok",
    "bad" (header or data), "unknown", "torn" or "empty"."""
    d = rec.data
    if len(d) < 52:
        return "bad", None, None
    off, ln = be(d, 20, 2, True), be(d, 22, 2, True)
    if off < 52 or ln < 0 or off + ln > len(d):
        return "bad", None, None
    kind = apl_product(d[32:48])
    if kind is None:
        return "unknown", None, None
    a = d[off:off + ln]
    f = {}
    if kind in ("mem", "os", "net_sum"):
        need = {"mem": 144, "os": 52, "net_sum": 96}[kind]
        if len(a) < need:
            return "bad", kind, None
        if be(a, 8, 4) != be(a, 12, 4):
            return "torn", kind, None
        if be(a, 0, 8) == 0:
            return "empty", kind, None
    if kind == "mem":
        names = ("pgpgin pgpgout pswpin pswpout sharedram totalram freeram totalhigh "
                 "freehigh bufferram cached totalswap freeswap pgalloc pgfault pgmajfault").split()
        for i, n in enumerate(names):
            f[n] = be(a, 16 + 8 * i, 8)
    elif kind == "os":
        ncpu, size, coff = be(a, 16, 4), be(a, 20, 4), be(a, 24, 4)
        f["nr_cpus"], f["nr_running"], f["nr_threads"] = ncpu, be(a, 28, 4), be(a, 32, 4)
        f["avenrun"] = [be(a, 36 + 4 * i, 4) for i in range(3)]
        f["nr_iowait"] = be(a, 48, 4)
        if size < 28 or coff < 52 or coff + ncpu * size > len(a):
            return "bad", kind, None
        cpus = []
        for i in range(ncpu):
            e = coff + i * size
            c = dict(zip("user nice system idle irq softirq iowait".split(),
                         (be(a, e + 4 * k, 4) for k in range(7))))
            if size >= 36:
                c["steal"], c["id"] = be(a, e + 28, 4), be(a, e + 32, 4)
            else:
                c["id"] = i
            cpus.append(c)
        ids = [c["id"] for c in cpus]
        if len(set(ids)) != len(ids) or any(i > 4095 for i in ids):
            return "bad", kind, None
        f["cpus"] = cpus
    elif kind == "net_sum":
        f["nr_interfaces"] = be(a, 16, 4)
        for i, n in enumerate("rx_packets tx_packets rx_bytes tx_bytes rx_errors "
                              "tx_errors rx_dropped tx_dropped collisions".split()):
            f[n] = be(a, 24 + 8 * i, 8)
    else:
        if len(a) < 12:
            return "bad", kind, None
        ts, dlen, doff = be(a, 0, 8), be(a, 8, 2), be(a, 10, 2)
        if doff < 12 or doff + dlen > len(a):
            return "bad", kind, None
        p = a[doff:doff + dlen]
        need = {"fsstat": 6 + 72, "procd_sum": 166, "procd_task": 111}[kind]
        if dlen < need:
            return "bad", kind, None
        if ts == 0:
            return "empty", kind, None

        def strings(pos, n):
            out = []
            for _ in range(n):
                if pos + 2 > len(p):
                    return None, pos
                sl = be(p, pos, 2)
                if pos + 2 + sl > len(p):
                    return None, pos
                out.append(bytes(p[pos + 2:pos + 2 + sl]))
                pos += 2 + sl
            return out, pos
        if kind == "fsstat":
            s, pos = strings(0, 3)
            if s is None or pos + 72 > len(p) or not s[1]:
                return "bad", kind, None
            f["dev"], f["dir"], f["type"] = s
            for i, n in enumerate("bsize frsize blocks bfree bavail files ffree favail flag".split()):
                f[n] = be(p, pos + 8 * i, 8)
        elif kind == "procd_sum":
            f["uptime"], f["users"] = be(p, 0, 8), be(p, 8, 4)
            for i, n in enumerate("total running sleeping stopped zombie".split()):
                f["tasks_" + n] = be(p, 30 + 4 * i, 4)
            for i, n in enumerate("user nice system idle wait interrupt softirq steal".split()):
                f["p" + n] = be(p, 54 + 2 * i, 2)
        else:
            f["pid"] = be(p, 0, 4)
            for n, o in (("size", 42), ("resident", 58), ("trs", 66), ("drs", 74)):
                f[n] = be(p, o, 8)
            f["pcpu"], f["pmem"] = be(p, 22, 2), be(p, 24, 2)
            s, _pos = strings(111, 6)
            if s is None:
                return "bad", kind, None
            f["cmd"] = s[4]
    return "ok", kind, f


APL_SAFE = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")


def apl_name(raw, slash_to_dash, size=64):
    """Guest-written bytes -> name: '/' -> '-' (df), bytes outside
    [A-Za-z0-9._+-] as %xx; longer than size-1: a prefix (never cut
    inside %xx), '~' and the 32-bit FNV-1a of the bytes in hex."""
    parts = []
    for b in raw:
        if slash_to_dash and b == 0x2F:
            parts.append("-")
        elif b in APL_SAFE:
            parts.append(chr(b))
        else:
            parts.append("%%%02x" % b)
    s = "".join(parts)
    if len(s) <= size - 1:
        return s
    h = 2166136261
    for b in raw:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    out = ""
    for p in parts:
        if len(out) + len(p) > size - 1 - 9:
            break
        out += p
    return "%s~%08x" % (out, h)


def apl_mount(d):
    if d == b"/":
        return "root"
    return apl_name(d[1:] if d[:1] == b"/" else d, True)


def apl_load(x):
    return (x >> 11) + (((x & 2047) * 100) >> 11) / 100.0


def apl_values(kind, f):
    """[(plugin, plugin instance, type, type instance, ((kind, v), ...))]"""
    out = []
    G, D = "gauge", "derive"

    def v(pl, pi, ty, ti, *vals):
        out.append((pl, pi, ty, ti, tuple(vals)))
    if kind == "mem":
        busy = f["freeram"] + f["bufferram"] + f["cached"]
        if f["totalram"] >= busy:
            v("memory", "", "memory", "used", (G, (f["totalram"] - busy) * 1024.0))
        for ti, n in (("buffered", "bufferram"), ("cached", "cached"), ("free", "freeram")):
            v("memory", "", "memory", ti, (G, f[n] * 1024.0))
        if f["totalswap"] >= f["freeswap"]:
            v("swap", "", "swap", "used", (G, (f["totalswap"] - f["freeswap"]) * 1024.0))
        v("swap", "", "swap", "free", (G, f["freeswap"] * 1024.0))
        v("swap", "", "swap_io", "in", (D, f["pswpin"]))
        v("swap", "", "swap_io", "out", (D, f["pswpout"]))
        v("vmem", "", "vmpage_io", "memory", (D, f["pgpgin"]), (D, f["pgpgout"]))
        v("vmem", "", "vmpage_io", "swap", (D, f["pswpin"]), (D, f["pswpout"]))
        v("vmem", "", "vmpage_faults", "", (D, f["pgfault"]), (D, f["pgmajfault"]))
        v("vmem", "", "vmpage_action", "alloc", (D, f["pgalloc"]))
    elif kind == "os":
        for c in f["cpus"]:
            pi = str(c["id"])
            for ti, n in (("user", "user"), ("nice", "nice"), ("system", "system"),
                          ("idle", "idle"), ("wait", "iowait"), ("interrupt", "irq"),
                          ("softirq", "softirq"), ("steal", "steal")):
                if n in c:
                    v("cpu", pi, "cpu", ti, (D, c[n]))
        v("cpu", "", "count", "", (G, f["nr_cpus"]))
        v("load", "", "load", "", *((G, apl_load(x)) for x in f["avenrun"]))
        v("processes", "", "ps_state", "running", (G, f["nr_running"]))
        v("processes", "", "ps_state", "blocked", (G, f["nr_iowait"]))
        v("processes", "", "threads", "", (G, f["nr_threads"]))
    elif kind == "net_sum":
        for ty, n in (("if_octets", "bytes"), ("if_packets", "packets"),
                      ("if_errors", "errors"), ("if_dropped", "dropped")):
            v("interface", "sum", ty, "", (D, f["rx_" + n]), (D, f["tx_" + n]))
        v("interface", "sum", "if_collisions", "", (D, f["collisions"]))
        v("interface", "sum", "count", "", (G, f["nr_interfaces"]))
    elif kind == "fsstat":
        pi = apl_mount(f["dir"])
        if not pi or f["blocks"] == 0:
            return out
        bavail = 0 if f["bavail"] >= 1 << 63 else f["bavail"]
        bfree = max(f["bfree"], bavail)
        blocks = max(f["blocks"], bfree)
        bs = f["frsize"]
        v("df", pi, "df_complex", "free", (G, float(bavail) * bs))
        v("df", pi, "df_complex", "reserved", (G, float(bfree - bavail) * bs))
        v("df", pi, "df_complex", "used", (G, float(blocks - bfree) * bs))
        if f["files"] and f["ffree"]:
            ffree = max(f["ffree"], f["favail"])
            files = max(f["files"], ffree)
            v("df", pi, "df_inodes", "free", (G, float(f["favail"])))
            v("df", pi, "df_inodes", "reserved", (G, float(ffree - f["favail"])))
            v("df", pi, "df_inodes", "used", (G, float(files - ffree)))
    elif kind == "procd_sum":
        for ti in ("sleeping", "stopped"):
            v("processes", "", "ps_state", ti, (G, f["tasks_" + ti]))
        v("processes", "", "ps_state", "zombies", (G, f["tasks_zombie"]))
        v("users", "", "users", "", (G, f["users"]))
        v("uptime", "", "uptime", "", (G, f["uptime"]))
        for ti in "user nice system idle wait interrupt softirq steal".split():
            v("cpu", "", "percent", ti, (G, f["p" + ti] / 100.0))
    elif kind == "procd_task":
        pi = "%s_%d" % (apl_name(f["cmd"], False, 53), f["pid"])
        for ty, n in (("ps_rss", "resident"), ("ps_vm", "size"), ("ps_code", "trs"),
                      ("ps_data", "drs")):
            v("processes", pi, ty, "", (G, f[n] * 1024.0))
        v("processes", pi, "percent", "cpu", (G, f["pcpu"] / 100.0))
        v("processes", pi, "percent", "memory", (G, f["pmem"] / 100.0))
    return out


def apl_ident(cfg, guest, pl, pi, ty, ti):
    """Identifier of an APPLDATA value under the naming option."""
    if cfg.appldata_naming == "zvm_monitor":
        inst = "%s-%s%s" % (guest, pl, "-" + pi if pi else "")
        return "%s/zvm_monitor-%s/%s%s" % (cfg.hostname, inst, ty, "-" + ti if ti else "")
    return "%s/%s%s/%s%s" % (guest.lower(), pl, "-" + pi if pi else "", ty, "-" + ti if ti else "")


class AppldataModel:
    """The Model's APPLDATA part: which records yield values, and which."""

    def appldata_used(self, r):
        """A D10R2 record that yields values: decoded OK, its kind
        selected (ApplDataKinds), its guest selected (UserID). D10R1
        event records, torn, empty, unknown or bad ones yield none."""
        status, kind, _f = apl_decode(r)
        if status != "ok" or kind not in self.cfg.appldata_kinds:
            return False
        name = user_name(r.data[24:32])
        return bool(name) and self.cfg.user_selected(name)

    def appldata_idents(self, r):
        _status, kind, f = apl_decode(r)
        guest = user_name(r.data[24:32])
        return [(apl_ident(self.cfg, guest, pl, pi, ty, ti), vals)
                for pl, pi, ty, ti, vals in apl_values(kind, f)]

    def appldata_instances(self, r):
        """{instance: {ident: (value, type)}}: one instance per guest and
        record kind, per file system name (fsstat) and per process name
        (procd_task), as the plugin keeps them (man page)."""
        _status, kind, f = apl_decode(r)
        guest = user_name(r.data[24:32])
        if kind == "fsstat":
            name = apl_mount(f["dir"])
        elif kind == "procd_task":
            name = "%s_%d" % (apl_name(f["cmd"], False, 53), f["pid"])
        else:
            name = ""
        vals = {}
        for pl, pi, ty, ti, vv in apl_values(kind, f):
            i = apl_ident(self.cfg, guest, pl, pi, ty, ti)
            vals[i] = (vv[0][1], vv[0][0]) if len(vv) == 1 else \
                ([(x, k) for k, x in vv], "list")
        return {("apl", guest, kind, name): vals}
