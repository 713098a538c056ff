# SPDX-License-Identifier: MIT
"""The configuration the oracle models: Domain, UserID, IgnoreSelected,
GuestsAsHosts, the value shape, ApplDataKinds, ApplDataNaming."""

import re

from .appldata import APL_DEFAULT_KINDS
from .base import OracleError


DOMAINS = {
    "system": 0, "monitor": 1, "scheduler": 2, "storage": 3, "user": 4,
    "processor": 5, "i/o": 6, "seek": 7, "virtual_network": 8, "isfc": 9,
    "appldata": 10, "ssi": 11,
}


# --------------------------------------------------------------------------
# Configuration, selection and naming

class Config:
    def __init__(self, hostname="zvmtest", domains=(), userids=(),
                 ignore_selected=False, guests_as_hosts=False,
                 leap_seconds=0, wall=None, report_by_vcpu=False,
                 one_value_per_list=False, records=(), appldata_kinds=None,
                 appldata_naming="collectd"):
        self.hostname = hostname
        self.one_value_per_list = one_value_per_list
        self.appldata_kinds = set(appldata_kinds or APL_DEFAULT_KINDS)
        self.appldata_naming = appldata_naming
        self.records = {(r.domain, r.number): r for r in records}
        self.report_by_vcpu = report_by_vcpu
        self.leap_us = leap_seconds * 1000000
        if wall:
            lo, hi = (int(x) for x in wall.split(":"))
        else:
            import time as _time
            lo = hi = int(_time.time())
        # every set arrived in this window (a second of slack either side)
        self.wall_from_us, self.wall_to_us = (lo - 1) * 1000000, (hi + 1) * 1000000
        self.wall_ref_us = lo * 1000000
        self.domains = set()
        for d in domains:
            if d.isdigit():
                self.domains.add(int(d))
            elif d.lower() in DOMAINS:
                self.domains.add(DOMAINS[d.lower()])
            else:
                raise OracleError("unknown domain %r" % d)
        self.exact = [u.upper() for u in userids if not (len(u) >= 2 and u[0] == "/" and u[-1] == "/")]
        self.regex = [re.compile(u[1:-1]) for u in userids if len(u) >= 2 and u[0] == "/" and u[-1] == "/"]
        self.ignore_selected = ignore_selected
        self.guests_as_hosts = guests_as_hosts

    def domain_selected(self, dom):
        return not self.domains or dom in self.domains

    def mask_selected(self, mask):
        """MCE mask: byte 1 X'80' = domain 0 ... byte 2 X'01' = domain 15."""
        if not self.domains:
            return True
        return any(mask & (0x8000 >> d) for d in self.domains)

    def user_selected(self, name):
        if not self.exact and not self.regex:
            return True
        hit = name.upper() in self.exact or any(r.search(name) for r in self.regex)
        return hit != self.ignore_selected
