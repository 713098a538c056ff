# SPDX-License-Identifier: MIT
"""D4R1 MRUSELON and D4R2 MRUSELOF: guest logon and logoff."""




class SessionModel:
    """The Model's D4R1/D4R2 part: the notification of a logon or logoff
    (their order and grouping: Model.dispatches)."""

    def session_note(self, r, name, logon):
        """Logon (OKAY) / logoff (WARNING) notification of a guest."""
        if self.cfg.guests_as_hosts:
            host, pinst = name.lower(), ""
        else:
            host, pinst = self.cfg.hostname, name
        return ("OKAY" if logon else "WARNING", self.rec_us(r),
                "z/VM guest %s logged %s" % (name, "on" if logon else "off"),
                None, host, pinst, "logon" if logon else "logoff")
