# SPDX-License-Identifier: MIT
"""User IDs and identifiers as the naming contract writes them."""

ALLOWED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$_-+")


def user_name(raw):
    """EBCDIC user ID -> identifier text: trailing blanks trimmed, bytes
    other than A-Z 0-9 @ # $ _ - + as %XX (the EBCDIC code)."""
    raw = raw.rstrip(b"\x40")
    out = []
    for b in raw:
        ch = bytes([b]).decode("cp037")
        out.append(ch if ch in ALLOWED else "%%%02X" % b)
    return "".join(out)


def ident(host, pinst, type_, tinst):
    p = "zvm_monitor" + ("-" + pinst if pinst else "")
    if tinst is None:  # a record instance's list: no type instance
        return "%s/%s/%s" % (host, p, type_)
    return "%s/%s/%s-%s" % (host, p, type_, tinst)
