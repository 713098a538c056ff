# SPDX-License-Identifier: MIT
"""<Record> blocks of collectd.conf and the values of the records they
define."""

import re

from .base import TOD_UNIX_EPOCH, be
from .naming import user_name


# --------------------------------------------------------------------------
# <Record> blocks of collectd.conf (man page, "RECORDS DEFINED IN
# COLLECTD.CONF"), read from the daemon's own configuration file.

class UserField:
    def __init__(self, name):
        self.name = name.lower()
        self.offset = self.length = self.type = self.kind = None
        self.scale = 1.0
        self.count = 1
        self.down = False
        self.mask = 0        # Mask: a named bit, 1 or 0
        self.hex = False     # Format "hex": an instance number in hex
        self.elem = "_"      # ElementPrefix

    def ds_names(self):
        if self.count == 1:
            return [self.name]
        return ["%s%s%d" % (self.name, self.elem, i) for i in range(self.count)]


class UserRecord:
    def __init__(self, ident):
        d, r = ident.split("/")
        self.domain, self.number = int(d), int(r)
        self.name = None
        self.prefix = ""
        self.fields = []

    @property
    def type_name(self):
        return "zvm_" + self.name

    def keys(self):
        return [f for f in self.fields if f.kind == "instance"]

    def values(self):
        return [f for f in self.fields if f.kind in ("counter", "gauge")]


def parse_record_blocks(path):
    """[UserRecord] from the <Record> blocks of a collectd.conf (the subset
    of its syntax the e2e configurations use: one option per line)."""
    recs = []
    rec = fld = None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            m = re.match(r'^<Record\s+"([^"]*)">$', line, re.I)
            if m:
                rec = UserRecord(m.group(1))
                continue
            if rec is None:
                continue
            m = re.match(r'^<Field\s+"([^"]*)">$', line, re.I)
            if m:
                fld = UserField(m.group(1))
                continue
            if re.match(r"^</Field>$", line, re.I):
                rec.fields.append(fld)
                fld = None
                continue
            if re.match(r"^</Record>$", line, re.I):
                recs.append(rec)
                rec = None
                continue
            m = re.match(r'^(\w+)\s+"?([^"]*)"?$', line)
            if not m:
                continue
            k, v = m.group(1).lower(), m.group(2)
            if fld is not None:
                if k in ("offset", "length", "count"):
                    setattr(fld, k, int(float(v)))
                elif k in ("type", "kind"):
                    setattr(fld, k, v.lower())
                elif k == "scale":
                    fld.scale = float(v)
                elif k == "countsdown":
                    fld.down = v.lower() == "true"
                elif k == "mask":
                    fld.mask = int(float(v))
                elif k == "format":
                    fld.hex = v.lower() == "hex"
                elif k == "elementprefix":
                    fld.elem = v.lower()
            elif k == "name":
                rec.name = v.lower()
            elif k == "instanceprefix":
                rec.prefix = v
    return recs


def user_field_value(f, data, i):
    """Element i of a counter/gauge field, or None if the record is too
    short for it."""
    off = f.offset + i * f.length
    if off + f.length > len(data):
        return None
    raw = be(data, off, f.length, f.type == "signed")
    if f.mask:
        return 1.0 if raw & f.mask else 0.0
    if f.type == "cputimer":
        v = (((2**63 - 1 - raw) % 2**64) if f.down else raw) >> 12
    elif f.type == "tod":
        v = (raw - TOD_UNIX_EPOCH) / 4096e6
    elif f.down:
        v = (2**63 - 1 - raw) % 2**64
    else:
        v = raw
    v = v * f.scale if f.scale != 1.0 else v
    return int(v) if f.kind == "counter" else float(v)


def user_record_values(rec, data):
    """(plugin instance, [(data source, value or None)]) of one record, or
    None if an instance field lies outside it."""
    parts = []
    for i, k in enumerate(rec.keys()):
        if k.offset + k.length > len(data):
            return None
        raw = data[k.offset:k.offset + k.length]
        if k.type in ("ebcdic", "userid"):
            text = user_name(raw)
            if not text.strip("\x00"):
                return None  # a blank name names nothing: skipped
        elif k.hex:
            text = "%0*X" % (2 * k.length, be(raw, 0, k.length))
        else:
            text = str(be(raw, 0, k.length))
        parts.append((rec.prefix if i == 0 else "_") + text)
    vals = []
    for f in rec.values():
        for i, ds in enumerate(f.ds_names()):
            vals.append((ds, user_field_value(f, data, i)))
    return "".join(parts), vals
