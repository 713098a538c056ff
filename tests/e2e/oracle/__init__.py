# SPDX-License-Identifier: MIT
"""Independent oracle for the zvm_monitor end-to-end tests.

A second implementation of what the plugin must dispatch, written from the
specifications only -- never from the plugin's C code:

  * the scenario file format and fault semantics of the emulated device
    (tests/rig/README.md),
  * the data stream of /dev/monreader (the kernel's monreader documentation and IBM's device driver book: MCE, record sets,
    0-byte read, EIO/EFAULT/EOVERFLOW),
  * the record header MRHDR, D4R10 MRUSEITE (IBM, z/VM V6R2.0) and D5R21 MRPRCSMT
    (IBM MRPRCSMT, z/VM V6R4.0), 4 KB frames and the end-of-frame record D1R13,
  * domain 10 (APPLDATA): the APHDR, the Linux kernel's appldata_{mem,os,
    net_sum}.c and s390-tools' mon_fsstatd/mon_procd layouts, and the names
    collectd 5.12's cpu, memory, swap, vmem, load, processes, interface and
    df plugins give their values,
  * the naming contract, the counting rules and the aggregation rules
    (contrib/zvm_monitor.pod).

It parses the scenario byte by byte, models the device's read stream and a
reader following the counting rules, decodes the complete data sets and maps
them under a configuration (Domain, UserID, IgnoreSelected, GuestsAsHosts,
ApplDataKinds, ApplDataNaming).
How the sets were spread over read callbacks is taken from the daemon's own
total_objects-sets series (one line per callback), so the expected values
are exact even when several data sets meet in one callback.

Commands (Python 3 standard library only):

  oracle.py dump SCENARIO [CONFIG]            what the plugin must dispatch
  oracle.py ready SCENARIO --csv DIR [CONFIG]  exit 0 once the reader
                                              counters in DIR are final
  oracle.py check SCENARIO --csv DIR [CONFIG] [--log FILE]
                                              compare everything, exit 1 on
                                              any difference
  oracle.py value SCENARIO IDENT [CONFIG]     last expected value of one
                                              identifier: "TIME VALUE"

CONFIG: --hostname H, --domain D (repeatable), --userid U (repeatable),
--ignore-selected, --guests-as-hosts, --one-value-per-list,
--report-by-vcpu, --open-errors-min N (errors-open is
only known to be at least N, e.g. EBUSY while another process holds the
device), --leap-seconds N (LeapSecondOffset N; default 0, what "auto"
finds for data far from the local clock), --wall FROM:TO (Unix seconds
between which the daemon ran: the window of every set's arrival time),
--appldata-kind K (repeatable), --appldata-naming collectd|zvm_monitor.

Time rules (the man page, "AGGREGATION AND TIME STAMPS"): a record's TOD is taken in the
TOD epoch (1900 + k * 2^52 us) nearest the local clock, less the
leap-second offset. Per read callback, the latest record of an instance (a
guest; a CPU type or the system part of D5R21) gives its values; if its
time is not after the instance's last time, the values carry the set's
arrival time if that is later (known only to lie in the --wall window),
else the last time + 1 us, and total_objects-restamped counts one. A record
time more than 1 h + 60 s after its set's arrival is not used: the arrival
time is (or the last time + 1 us), and total_objects-time_future counts one
instead (scenarios keep record times either well behind or well ahead of
the --wall window; a time within the window's uncertainty is an error).
--conf FILE (the daemon's collectd.conf: its <Record> blocks, decoded
here from their own text). D0R2 (IBM mon640 MRSYTPRP) is decoded as the
built-in record.

Value shape (contrib/zvm_monitor.pod, "VALUE LISTS AND TYPES"): by default
every record instance is one value list of the record's type -- a guest's
D4R10 values are one list of type zvm_useite whose data sources are
transactions and then the D4R10 values below in this order; D5R21 gives
zvm_prcsmt (system) and zvm_prcsmt_cpu (per CPU type). Its identifier here
is "host/plugin-instance/type" (empty type instance) and its value all the
data sources in order, as the csv plugin writes them. With
--one-value-per-list every value is a list of its own, as in the first
release. An IDENT for "value" may name one data source of a list:
"host/plugin-instance/type/ds".

Layout: one module per part, each record family in its own, all re-exported
here ("import oracle"; tests/e2e/oracle.py is the command line):
  base      stream and TOD constants, be(), tod_to_us()
  stream    the scenario file and the device's read stream
  reader    the reader's counters and complete sets
  sets      a set's MCEs and records (the frame rule)
  naming    user IDs and identifiers
  config    the configuration modelled
  useite    D4R10 MRUSEITE            prcsmt    D5R21 MRPRCSMT
  sytprp    D0R2 MRSYTPRP             session   D4R1/D4R2 logon, logoff
  records   <Record> blocks           appldata  domain 10 (APPLDATA)
  model     aggregation per read callback, time rules, value shape
  output    what collectd wrote (csv, log)
  check     the comparison            cli       the commands
"""

from .base import *  # noqa: F401,F403
from .stream import *  # noqa: F401,F403
from .reader import *  # noqa: F401,F403
from .sets import *  # noqa: F401,F403
from .naming import *  # noqa: F401,F403
from .config import *  # noqa: F401,F403
from .useite import *  # noqa: F401,F403
from .prcsmt import *  # noqa: F401,F403
from .sytprp import *  # noqa: F401,F403
from .session import *  # noqa: F401,F403
from .records import *  # noqa: F401,F403
from .appldata import *  # noqa: F401,F403
from .model import *  # noqa: F401,F403
from .output import *  # noqa: F401,F403
from .check import *  # noqa: F401,F403
from .cli import *  # noqa: F401,F403
