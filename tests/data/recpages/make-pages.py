#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Test pages for zvm-monitor-record (tests/unit/tools/test_recpage.c), written for the
tests in the format of IBM's z/VM monitor-record pages (prolog, control
block contents, cross reference, level trailer), in the ways copies of
those pages come: aligned columns, rows run together on one line, HTML
with <pre>, HTML tables.

  useite-*: D4R10 MRUSEITE with the layout of the plugin's built-in table
            (plugin/records/useite.c: IBM z/VM V6R2.0 MRUSEITE); the
            descriptions are short and in IBM's manner, written here.
  prcsmt-*: D5R21 MRPRCSMT with the layout of plugin/records/prcsmt.c
            (IBM z/VM V6R4.0 MRPRCSMT), its variable tail and array entry.
  usetst-*: a made-up record D4R200 MRUSETST at two levels (the second
            appends fields), 100+ fields: bits, arrays, reserved fields, a
            variable tail and its array entry.

Run it in this directory to rewrite the pages: python3 make-pages.py
"""
import html

def r(off, typ, ln, name, desc="", dim=None, bits=(), var=False):
    return dict(off=off, typ=typ, len=ln, name=name, desc=desc, dim=dim,
                bits=list(bits), var=var)

def header(ds, length, var=False):
    return [r(0, "Structure", length, ds, "Start of monitor record", var=var),
            r(0, "Character", 0, ds + "_MRHDR", "Record header."),
            r(0, "Character", 20, "MRHDR"),
            r(0, "Unsigned", 2, "MRHDRLEN", "record length in bytes"),
            r(2, "Unsigned", 2, "MRHDRZER", "field of zeros"),
            r(4, "Unsigned", 1, "MRHDRDM", "domain identifier"),
            r(5, "Unsigned", 1, "*"),
            r(6, "Unsigned", 2, "MRHDRRC", "record identifier"),
            r(8, "Character", 8, "MRHDRTOD", "Time the record was built, TOD clock format."),
            r(16, "Character", 4, "*"),
            r(20, "Character", 0, "MRHDR_END", "End of header")]

def flags(*named):
    pats = ["1... ....", ".1.. ....", "..1. ....", "...1 ....",
            ".... 1...", ".... .1..", ".... ..1.", ".... ...1"]
    out = []
    for i, p in enumerate(pats):
        n = named[i] if i < len(named) else None
        out.append((p, n[0] if n else "*", n[1] if n else ""))
    return out

# ---- D4R10 MRUSEITE, the layout of plugin/records/useite.c ---------------
U = "USEITE_"
def hf(off, name, what):
    return r(off, "Unsigned", 4, U + name, "Number of times this user " + what)
useite = header("USEITE", 200) + [
    r(20, "Character", 8, U + "VMDUSER", "User logon identification"),
    r(28, "Unsigned", 2, U + "VMDCPUAD", "Processor address"),
    r(30, "Signed", 2, U + "VMDSLCNT", "Count of minor time slices expired since the start of the current transaction."),
    r(32, "Unsigned", 4, U + "VMDSVMFX", "Number of times the SVM wait flag had to be reset by the scheduler."),
    r(36, "Character", 8, U + "VMDSVMID", "VMDBK name for the last successful IUCV, VMCF or APPC/VM Send."),
    r(44, "Bitstring", 1, U + "VMDSVMWT", "SVM wait flag byte.", bits=flags((U + "VMDSVMWF", "VMDBK waits for a response."))),
    r(45, "Character", 0, U + "VMDSVMW2", "Back-up byte to VMDSVMWT."),
    r(45, "Bitstring", 1, U + "VMDSVMWT", "SVM wait flag byte.", bits=[("1... ....", U + "VMDSVMWF", "VMDBK waits for a response.")]),
    r(46, "Character", 0, U + "VMDRDYCM", "Flag byte set by IUCV, VMCF or APPC."),
    r(46, "Bitstring", 1, U + "VMDSVMWT", "SVM wait flag byte.", bits=[("1... ....", U + "VMDSVMWF", "VMDBK waits for a response.")]),
    r(47, "Bitstring", 1, U + "CALFLAG1", "Flag byte", bits=flags((U + "CALBASE", "This is the base VMDBK."))),
    r(48, "Unsigned", 4, U + "HFQUCT", "Number of times VMDBK was sampled for high-frequency data"),
] + [hf(52 + 4 * i, "HFDISP%d" % i, "was in Q%d." % i) for i in range(4)] \
  + [hf(68 + 4 * i, "HFELIG%d" % i, "was in E%d." % i) for i in range(4)] + [
    hf(84, "HFSTCT", "was high-frequency sampled."),
    hf(88, "HFTIDL", "was found in test idle and not in SVM wait"),
    hf(92, "HFTSVM", "was found in test idle and in SVM wait"),
    hf(96, "HFIOWT", "was in I/O wait."),
    hf(100, "HFCFWT", "was in console-function wait."),
    hf(104, "HFSIMWT", "was in simulation wait."),
    hf(108, "HFWTPAG", "was in page wait."),
    hf(112, "HFCPUWT", "was waiting to run on the real CPU."),
    hf(116, "HFCPURN", "was running on the real CPU."),
    hf(120, "HFESVM", "was in SVM wait and in the eligible list."),
    hf(124, "HFLOAD", "was considered a loading user."),
    hf(128, "HFDORM", "was found dormant."),
    r(132, "Signed", 4, U + "HFDSVM", "Number of times this user was in SVM wait and in the dormant list."),
    hf(136, "HFOTHR", "was in none of the above states"),
    r(140, "Unsigned", 2, U + "VMDCNTID", "Number of times the user was not granted a test idle time"),
    r(142, "Unsigned", 2, U + "VMDCTIDL", "Number of times the user was granted a test idle time"),
    r(144, "Unsigned", 4, U + "VMDDFRWK", "Count of deferred work items that have yet to run."),
    r(148, "Bitstring", 1, U + "VMDSTATE", "Scheduler/Dispatcher State. X'63' = Review-suspended. X'4D' = Selected by the dispatcher. X'2C' = Idle."),
    r(149, "Bitstring", 1, U + "CALOSTAT", "Virtual machine operating status", bits=flags(
        (U + "VMDSYSOP", "User is primary system operator"), (U + "VMDUSRCT", "User is counted as logged on"), None,
        (U + "VMDFORCE", "User is to be logged off."), (U + "VMDUFORC", "User is forced to log off"),
        (U + "VMDDISC", "User runs disconnected"), (U + "VMDAUTOL", "AUTOLOG in progress."), (U + "VMDXAUTO", "The command was XAUTOLOG."))),
    r(150, "Bitstring", 1, U + "CALRSTAT", "Reasons the dispatched VMDBK is not run", bits=flags(
        None, (U + "VMDCFWT", "Console function wait."), (U + "VMDSIMWT", "CP simulates a hardware function."),
        (U + "VMDIOWT", "Waiting for I/O status."))),
    r(151, "Unsigned", 1, "*", "Reserved for IBM use"),
    r(152, "Unsigned", 2, U + "VMDCPRMD", "Number of times this user was pre-empted from the dispatch list (Q0, Q1, Q2, Q3).", dim=4),
    r(160, "Unsigned", 2, U + "VMDCWSGD", "Number of times this user was removed from the dispatch list at its working set growth limit.", dim=4),
    r(168, "Unsigned", 2, U + "VMDCETSD", "Number of times this user was removed from the dispatch list at elapsed time slice end.", dim=4),
    r(176, "Unsigned", 2, U + "VMDCIDLD", "Number of times this user was removed from the dispatch list when its test idle time expired.", dim=4),
    r(184, "Unsigned", 4, U + "HFIOACT", "High Frequency Count. Number of times the user had an asynchronous I/O outstanding."),
    r(188, "Unsigned", 4, U + "HFLLIST", "High Frequency Count. Number of times the user was on the Limit List."),
    r(192, "Unsigned", 4, U + "HFPGACT", "High Frequency Count. Number of times page fault requests were active."),
    r(196, "Unsigned", 1, U + "VMDPUTYP", "CPU Type. Valid values: X'00' - General Purpose (CP) X'03' - Integrated Facility for Linux (IFL)"),
    r(197, "Bitstring", 1, U + "VMDCFGEM", "Virtual configuration indicators.", bits=flags(None, (U + "VMDCPUAF", "User requested CPU Affinity"))),
    r(198, "Bitstring", 1, U + "VMDPUST", "CPU Status flag", bits=flags((U + "VMDAFSUP", "CPU Affinity suppressed"))),
    r(199, "Character", 1, "*", "Reserved for IBM use"),
    r(200, "Character", 0, U + "END"),
]
useite_prolog = dict(dsect="USEITE", domain="Domain 4 - User Domain",
    record="Record 10 - User Interaction at Transaction End",
    kind="Monitor Event Record",
    desc=["Describes a VMDBK's interaction with other VMDBKs during a",
          "transaction; one record for each VMDBK of a virtual complex."],
    notes=["- Fields labeled by the prefix, 'USEITE_HF', are high-frequency",
           "  counters."])

# ---- D5R21 MRPRCSMT, the layout of plugin/records/prcsmt.c ----------------
P = "PRCSMT_"
prcsmt = header("PRCSMT", 36, var=True) + [
    r(20, "Unsigned", 4, P + "RCCSMTSQ", "Multithreading config change sequence number."),
    r(24, "Unsigned", 1, P + "CAL_STATUS", "Status codes. Different flags may be set in the start and end records."),
    r(25, "Unsigned", 1, P + "CALMAXTC", "Configured maximum thread count."),
    r(26, "Unsigned", 1, P + "RCCCOALL", "Thread count specified on ALL of the MULTITHREADING statement."),
    r(27, "Unsigned", 1, P + "RCCSMALL", "Thread count specified for ALL of SET MULTITHREAD."),
    r(28, "Bitstring", 1, P + "RCCSMSET", "SET MULTITHREAD flags.", bits=flags((P + "RCCSMINI", "SET MULTITHREAD INITIAL was specified."))),
    r(29, "Unsigned", 1, P + "CAL_CPUTACNT", "Number of entries in PRCSMT_CPUTINFO array."),
    r(30, "Unsigned", 2, P + "CAL_CPUTAESZ", "Size of an entry in the PRCSMT_CPUTINFO array."),
    r(32, "Unsigned", 2, P + "CAL_CPUTAOFF", "Offset to array PRCSMT_CPUTINFO."),
    r(34, "Unsigned", 2, "*", "Reserved for IBM use."),
    r(36, "Character", 0, P + "END", "End of record"),
]
cputinfo = [
    r(0, "Structure", 8, P + "CPUTINFO"),
    r(0, "Unsigned", 1, P + "CAL_CPUTYPE", "CPU Type for this entry."),
    r(1, "Unsigned", 1, P + "CAL_RCCCOMNT", "Requested threads for this CPU type on the MULTITHREADING statement."),
    r(2, "Unsigned", 1, P + "CAL_RCCHWMNT", "Maximum number of threads supported by hardware for this CPU type."),
    r(3, "Unsigned", 1, P + "CAL_RCCSYMNT", "Maximum number of threads supported by z/VM for this CPU type."),
    r(4, "Unsigned", 1, P + "CAL_RCCACMNT", "Number of activated threads for this CPU type."),
    r(5, "Unsigned", 1, P + "CAL_RCCSMMNT", "Threads for this CPU type requested on the last SET MULTITHREAD."),
    r(6, "Unsigned", 1, P + "CAL_RCCCRMNT", "The current requested threads for this CPU type."),
    r(7, "Unsigned", 1, "*", "Reserved for IBM use."),
    r(8, "Character", 0, P + "CPUTINFO_END", "End of CPUTINFO entry"),
]
prcsmt_prolog = dict(dsect="PRCSMT", domain="Domain 5 - Processor Domain",
    record="Record 21 - Multithreading config change event",
    kind="Monitor Event Record",
    desc=["Parameters of a successful SET MULTITHREAD command and the",
          "resulting configuration."], notes=[])

# ---- D4R200 MRUSETST, made up, two levels ----------------------------------
T = "USETST_"
def usetst(level):
    rows = [r(20, "Character", 8, T + "USERID", "Userid"),
            r(28, "Unsigned", 2, T + "VMDCPUAD", "Processor address of the virtual processor"),
            r(30, "Bitstring", 1, T + "MODE", "Machine mode", bits=flags(None, (T + "ESA", "ESA mode"), (T + "XA", "XA mode"))),
            r(31, "Unsigned", 1, "*", "Reserved for IBM use"),
            r(32, "Character", 8, T + "LOGTOD", "Time of logon in TOD clock format"),
            r(40, "Unsigned", 8, T + "TTIME", "Total CPU time used, in CPU timer units"),
            r(48, "Unsigned", 4, T + "ARRCNT", "Number of entries in the USETST_ENTRY array."),
            r(52, "Unsigned", 2, T + "ARRSIZ", "Size of an entry in the USETST_ENTRY array."),
            r(54, "Unsigned", 2, T + "ARROFF", "Offset to array USETST_ENTRY."),
            r(56, "Unsigned", 4, T + "PGRDS", "Count of page reads", dim=4),
            r(72, "Signed", 4, T + "WSS", "Current working set size in pages")]
    off = 76
    for i in range(90):   # 90 counters: more than a record block holds
        rows.append(r(off, "Unsigned", 4, T + "C%03d" % i, "Number of times event %d happened." % i))
        off += 4
    rows.append(r(off, "Character", 4, "*", "Reserved for IBM use"))
    off += 4
    if level == 2:       # the newer level appends fields
        rows.append(r(off, "Unsigned", 8, T + "VTIME", "Virtual CPU time, in CPU timer units"))
        off += 8
        rows.append(r(off, "Unsigned", 4, T + "QDEPTH", "Current depth of the queue"))
        off += 4
    rows.append(r(off, "Character", 0, T + "END", "End of record"))
    return header("USETST", off, var=True) + rows
usetst_entry = [
    r(0, "Structure", 8, T + "ENTRY"),
    r(0, "Unsigned", 2, T + "ENTDEV", "Device number"),
    r(2, "Unsigned", 2, "*"),
    r(4, "Unsigned", 4, T + "ENTIOS", "Count of I/O requests"),
    r(8, "Character", 0, T + "ENTRY_END"),
]
usetst_prolog = dict(dsect="USETST", domain="Domain 4 - User Domain",
    record="Record 200 - Test Activity Data", kind="Monitor Sample Record",
    desc=["Test activity data. Generated for each virtual", "processor in a virtual configuration."],
    notes=[])

# ---- writers ----------------------------------------------------------------
def wrap(text, width):
    lines, cur = [], ""
    for w in text.split():
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w) if cur else w
    return lines + ([cur] if cur else []) or [""]

def lentext(x):
    return "%d%s" % (x["len"], "+" if x["var"] else "")

def nametext(x):
    return x["name"] + ("(%d)" % x["dim"] if x["dim"] else "")

def prolog_lines(mr, p, level_note):
    out = ["Programming Interface Information:",
           "The Monitor Records are intended Programming Interfaces.", "",
           mr, "", "Prolog", "Control Block Contents", "Cross Reference", "",
           mr + " Prolog", "", " DSECT NAME - " + p["dsect"],
           " FUNCTION - Map a Monitor record.",
           " NAME - " + mr, " DESCRIPTIVE NAME - " + p["kind"],
           "                    " + p["domain"],
           "                    " + p["record"],
           " DESCRIPTION - " + p["desc"][0]]
    out += ["               " + d for d in p["desc"][1:]]
    if p["notes"]:
        out.append(" NOTES:")
        out += ["  " + n for n in p["notes"]]
    return out

def aligned(tables):
    out = []
    for t in tables:
        out += ["", "Offsets", "Dec  Hex  Type        Len  Name (Dim)             Description", " "]
        for x in t:
            d = wrap(x["desc"], 30)
            out.append("%4d %3X  %-10s %4s  %-22s %s" % (x["off"], x["off"], x["typ"], lentext(x), nametext(x), d[0]))
            out += [" " * 48 + l for l in d[1:]]
            for pat, n, bd in x["bits"]:
                bl = wrap(bd, 30)
                out.append("          %s      %-22s %s" % (pat, n, bl[0]) if True else "")
                out += [" " * 48 + l for l in bl[1:]]
    return out

def run_together(tables, per_line=3):
    out = []
    for t in tables:
        out.append("Offsets Dec Hex Type Len Name (Dim) Description")
        items = []
        for x in t:
            s = "%d %X %s %s %s %s" % (x["off"], x["off"], x["typ"], lentext(x), nametext(x), x["desc"])
            for pat, n, bd in x["bits"]:
                s += " %s %s %s" % (pat, n, bd)
            items.append(s.strip())
        for i in range(0, len(items), per_line):
            out.append(" ".join(items[i:i + per_line]))
    return out

def xref_entries(tables):
    ents = []
    for t in tables:
        for x in t:
            if x["name"] == "*":
                continue
            ln = x["len"] * (x["dim"] or 1)
            ents.append((x["name"], "%X" % x["off"], "%d%s" % (ln, "+" if x["var"] else ""), ""))
            for pat, n, bd in x["bits"]:
                if n != "*":
                    v = int(pat.replace(" ", "").replace(".", "0"), 2)
                    ents.append((n, "%X" % x["off"], "", "%02X" % v))
    return sorted(ents)

def xref_text(mr, tables):
    out = ["", mr + " Cross Reference", "",
           "                      Hex           Hex",
           "Name                  Offset Length Value", " "]
    for n, o, l, v in xref_entries(tables):
        out.append("%-22s %6s %6s %s" % (n, o, l, v))
    return out

def trailer(level):
    return ["", "This information is", "based on z/VM %s." % level, "",
            "Last updated on 1 Jan 2024 at 00:00:00."]

def text_page(mr, p, tables, level, run=False):
    lines = prolog_lines(mr, p, level) + ["", mr + " Control Block Contents"]
    lines += run_together(tables) if run else aligned(tables)
    lines += xref_text(mr, tables) + trailer(level)
    return "\n".join(lines) + "\n"

def html_pre_page(mr, p, tables, level, run=False):
    e = lambda ls: "\n".join(html.escape(l, quote=False) for l in ls)
    body = ["<!DOCTYPE html>", "<html><head><title>%s</title></head><body>" % mr,
            "<h1>%s</h1>" % mr, "<pre>", e(prolog_lines(mr, p, level)), "</pre>",
            "<h2>%s Control Block Contents</h2>" % mr, "<pre>",
            e(run_together(tables) if run else aligned(tables)), "</pre>",
            "<h2>%s Cross Reference</h2>" % mr, "<pre>",
            e(xref_text(mr, tables)[2:]), "</pre>",
            "<p>This information is<br>based on z/VM %s.</p>" % level,
            "</body></html>"]
    return "\n".join(body) + "\n"

def html_table_page(mr, p, tables, level):
    td = lambda *c: "<tr>" + "".join("<td>%s</td>" % html.escape(str(x)) for x in c) + "</tr>"
    body = ["<!DOCTYPE html>", "<html><head><title>%s</title></head><body>" % mr,
            "<h1>%s</h1>" % mr]
    body += ["<p>%s</p>" % html.escape(l.strip()) for l in prolog_lines(mr, p, level) if l.strip()]
    body.append("<h2>%s Control Block Contents</h2>" % mr)
    for t in tables:
        body.append("<table border=\"1\">")
        body.append("<tr><th colspan=\"2\">Offsets</th></tr>")
        body.append("<tr><th>Dec</th><th>Hex</th><th>Type</th><th>Len</th><th>Name (Dim)</th><th>Description</th></tr>")
        for x in t:
            body.append(td(x["off"], "%X" % x["off"], x["typ"], lentext(x), nametext(x), x["desc"]))
            for pat, n, bd in x["bits"]:
                body.append(td("", "", pat, "", n, bd))
        body.append("</table>")
    body.append("<h2>%s Cross Reference</h2>" % mr)
    body.append("<table><tr><th></th><th>Hex</th><th></th><th>Hex</th></tr>")
    body.append("<tr><th>Name</th><th>Offset</th><th>Length</th><th>Value</th></tr>")
    for n, o, l, v in xref_entries(tables):
        body.append(td(n, o, l, v))
    body += ["</table>", "<p>This information is based on z/VM %s.</p>" % level,
             "<p>Last updated on 1 Jan 2024 &amp; &#169; IBM</p>", "</body></html>"]
    return "\n".join(body) + "\n"

def write(name, text):
    with open(name, "w") as f:
        f.write(text)

write("useite-v6r2.txt", text_page("MRUSEITE", useite_prolog, [useite], "V6R2.0"))
write("useite-v6r2-run.html", html_pre_page("MRUSEITE", useite_prolog, [useite], "V6R2.0", run=True))
write("prcsmt-v6r4.txt", text_page("MRPRCSMT", prcsmt_prolog, [prcsmt, cputinfo], "V6R4.0", run=True))
write("usetst-l1.txt", text_page("MRUSETST", usetst_prolog, [usetst(1), usetst_entry], "V6R1.0"))
write("usetst-l2-pre.html", html_pre_page("MRUSETST", usetst_prolog, [usetst(2), usetst_entry], "V6R2.0"))
write("usetst-l2-table.html", html_table_page("MRUSETST", usetst_prolog, [usetst(2), usetst_entry], "V6R2.0"))
