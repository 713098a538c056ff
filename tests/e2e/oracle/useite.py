# SPDX-License-Identifier: MIT
"""D4R10 MRUSEITE: a guest's values, summed over its VMDBKs."""

from .base import be
from .naming import ident, user_name


# --------------------------------------------------------------------------
# Record layout (offsets in bytes from the record start).
# (offset, width, signed, collectd type, type instance)

# D4R10 MRUSEITE (IBM MRUSEITE, z/VM V6R2.0). The pod names the dispatched
# fields: every counter as derive-<name>, VMDSLCNT and VMDDFRWK as gauges.
# Not dispatched: VMDCPUAD (address), VMDSVMID (name), flag bytes,
# VMDSTATE, VMDPUTYP (CPU type).
D4R10_USER = (20, 8)  # USEITE_VMDUSER, EBCDIC, blank padded
D4R10_FIELDS = [
    (30, 2, True, "gauge", "vmdslcnt"),  # Signed 2
    (32, 4, False, "derive", "vmdsvmfx"),
    (48, 4, False, "derive", "hfquct"),
    (52, 4, False, "derive", "hfdisp0"),
    (56, 4, False, "derive", "hfdisp1"),
    (60, 4, False, "derive", "hfdisp2"),
    (64, 4, False, "derive", "hfdisp3"),
    (68, 4, False, "derive", "hfelig0"),
    (72, 4, False, "derive", "hfelig1"),
    (76, 4, False, "derive", "hfelig2"),
    (80, 4, False, "derive", "hfelig3"),
    (84, 4, False, "derive", "hfstct"),
    (88, 4, False, "derive", "hftidl"),
    (92, 4, False, "derive", "hftsvm"),
    (96, 4, False, "derive", "hfiowt"),
    (100, 4, False, "derive", "hfcfwt"),
    (104, 4, False, "derive", "hfsimwt"),
    (108, 4, False, "derive", "hfwtpag"),
    (112, 4, False, "derive", "hfcpuwt"),
    (116, 4, False, "derive", "hfcpurn"),
    (120, 4, False, "derive", "hfesvm"),
    (124, 4, False, "derive", "hfload"),
    (128, 4, False, "derive", "hfdorm"),
    (132, 4, True, "derive", "hfdsvm"),  # the one Signed 4 counter
    (136, 4, False, "derive", "hfothr"),
    (140, 2, False, "derive", "vmdcntid"),
    (142, 2, False, "derive", "vmdctidl"),
    (144, 4, False, "gauge", "vmddfrwk"),
]
for _base, _name in ((152, "vmdcprmd"), (160, "vmdcwsgd"), (168, "vmdcetsd"),
                     (176, "vmdcidld")):  # Unsigned 2 (4): Q0..Q3
    for _q in range(4):
        D4R10_FIELDS.append((_base + 2 * _q, 2, False, "derive", "%s_q%d" % (_name, _q)))
D4R10_FIELDS += [
    (184, 4, False, "derive", "hfioact"),
    (188, 4, False, "derive", "hfllist"),
    (192, 4, False, "derive", "hfpgact"),
]
# Levels, not counters: never summed over a guest's VMDBKs (the base
# VMDBK's value is the guest's).
LEVELS = {"vmdslcnt", "vmddfrwk"}


# One value list per record instance (the default): the data sources of
# each record's type, in the documented order (the pod and the shipped
# contrib/zvm_monitor.types.db), written down here, not derived from the C.
USEITE_TYPE = "zvm_useite"  # transactions, then D4R10_FIELDS in order


def d4r10_values(rec):
    """[(type, type_instance, value)] of the fields the record contains."""
    out = []
    for off, width, signed, typ, name in D4R10_FIELDS:
        if off + width <= len(rec.data):
            out.append((typ, name, be(rec.data, off, width, signed)))
    return out


# D5R21 values (IBM MRPRCSMT (z/VM V6R4.0); names from the man page). Thread counts are


class UseiteModel:
    """The Model's D4R10 part: a guest's identifiers and values."""

    def user_host_pinst(self, name):
        if self.cfg.guests_as_hosts:
            return name.lower(), ""
        return self.cfg.hostname, name

    def d4r10_idents(self, r):
        """Identifiers a D4R10 record's user has (for discarded sets)."""
        name = user_name(r.data[20:28])
        host, pinst = self.user_host_pinst(name)
        return name, [(ident(host, pinst, t, ti), t, v) for t, ti, v in d4r10_values(r)], \
            ident(host, pinst, "total_events", "transactions")

    def user_values(self, name, st):
        """A guest's values from its VMDBKs (IBM MRUSEITE: one record per VMDBK,
        told apart by VMDCPUAD): each counter is the sum over the VMDBKs of
        each one's latest value; the levels VMDSLCNT and VMDDFRWK are the
        base VMDBK's (CALBASE) latest value; transactions counts base
        records."""
        host, pinst = self.user_host_pinst(name)
        vals = {}
        sums = {}
        for vm in st["vmdbk"].values():
            for typ, ti, v in vm:
                if ti in LEVELS:
                    continue
                sums[ti] = (typ, sums.get(ti, (typ, 0))[1] + v)
        for ti, (typ, v) in sums.items():
            vals[ident(host, pinst, typ, ti)] = (v, typ)
        for typ, ti, v in st["base_levels"]:
            vals[ident(host, pinst, typ, ti)] = (v, typ)
        vals[ident(host, pinst, "total_events", "transactions")] = (st["transactions"], "derive")
        return vals
