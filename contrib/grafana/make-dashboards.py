#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the zvm_monitor Grafana dashboards, one per datasource kind.

    contrib/grafana/make-dashboards.py [OUTDIR]   (default: this directory)

One panel list, three query languages: Graphite (write_graphite with
Prefix "collectd.", SeparateInstances false), InfluxDB 1.x (its collectd
listener fed by collectd's network plugin) and Prometheus (scraping
collectd's write_prometheus with honor_labels: true). Every panel shows the
same series under the same names and in the same unit in all three, which
is what tests/dashboards/ checks against real back ends, values included.
Edit this file, not the JSON, then run it again (tests/dashboards/run.sh
fails when they differ).

The dashboard is a list of sections (SECTIONS): a section is a function
returning its row title and panels. A plugin adds its section by writing
one such function and one line in SECTIONS, and its template variables, if
any, as entries of VARIABLES; the JSON follows.
"""

import json
import os
import sys

KINDS = ("graphite", "influxdb", "prometheus")
PLUGIN = "zvm_monitor"


class Metric:
    """One collectd data source: host/zvm_monitor-PINST/TYPE[-TINST], DS.

    pinst may be a template variable ("$guest"); name is the legend's
    last word; counter: a DERIVE (shown as a rate per second)."""

    def __init__(self, pinst, type_, tinst, ds="value", name=None, counter=True, rate=None):
        self.pinst, self.type, self.tinst, self.ds = pinst, type_, tinst, ds
        self.name = name or tinst or ds
        self.counter = counter
        # rate: shown as a rate per second (counters, unless shown as they are)
        self.rate = counter if rate is None else rate


# --- the value shapes (contrib/zvm_monitor.pod, METRICS) ---------------------
# The default is one value list per record instance, of the plugin's types
# zvm_useite (D4R10), zvm_prcsmt_cpu and zvm_prcsmt (D5R21), each record
# field a data source: InfluxDB's listener makes a measurement of each data
# source, write_prometheus a metric. write_graphite cannot format lists
# that long, so Graphite needs "OneValuePerList true": one value per list,
# standard types (derive, gauge, threads, total_events) with the field as
# type instance. Reader health is one value per list in both.
class Field:
    def __init__(self, record, field, counter=True):
        self.record, self.field, self.counter = record, field, counter

    def metric(self, one_value_per_list):
        pinst = {"useite": "$guest", "prcsmt_cpu": "$cputype", "prcsmt": "system",
                 "sytprp": "$processor"}[self.record]
        if not one_value_per_list:
            return Metric(pinst, "zvm_" + self.record, "", self.field, self.field, self.counter)
        if self.record in ("useite", "sytprp"):
            type_ = ("total_events" if self.field == "transactions"
                     else "derive" if self.counter else "gauge")
        else:
            type_ = "threads" if self.record == "prcsmt_cpu" else "gauge"
        return Metric(pinst, type_, self.field, counter=self.counter)


class Reader:
    def __init__(self, tinst, type_="errors"):
        self.tinst, self.type = tinst, type_

    def metric(self, one_value_per_list):
        return Metric("reader", self.type, self.tinst)


def reader(tinst, type_="errors"):
    return Reader(tinst, type_)


def user(field, counter=True):
    return Field("useite", field, counter)


def threads(what):
    return Field("prcsmt_cpu", what, counter=False)


def system(what):
    return Field("prcsmt", what, counter=False)


def processor(field):
    return Field("sytprp", field)


# --- query languages ----------------------------------------------------------
# Counters are DERIVE values: shown as rates per second. Records come when
# z/VM writes them (D0R2 and APPLDATA every monitor sample interval, D4R10
# at transaction ends), not every collectd interval: Graphite interpolates
# between them (a step without a point would otherwise blank the rate next
# to it), InfluxDB takes the derivative between the points it has, and
# Prometheus' rate() does so by itself.
def legend(prefix, m):
    return ("$%s %s" % (prefix, m.name)) if prefix else m.name


def g_path(m, host="$host"):
    path = "collectd.%s.%s-%s.%s" % (host, PLUGIN, m.pinst, m.type)
    if m.tinst:
        path += "-" + m.tinst
    if m.ds != "value":
        path += "." + m.ds
    return path


def g_rate(path):
    return "perSecond(interpolate(%s))" % path


def graphite(m, prefix):
    path = g_path(m)
    expr = g_rate(path) if m.rate else path
    if prefix:
        # node 2 is zvm_monitor-<instance>: keep the instance
        return {"target": "aliasSub(aliasByNode(%s, 2), '^%s-(.*)$', '\\1 %s')"
                          % (expr, PLUGIN, m.name)}
    return {"target": "alias(%s, '%s')" % (expr, m.name)}


def i_where(m):
    where = ["\"host\" =~ /^$host$/", "\"type\" = '%s'" % m.type]
    if m.tinst:
        where.append("\"type_instance\" = '%s'" % m.tinst)
    if m.pinst.startswith("$"):
        where.insert(1, "\"instance\" =~ /^%s$/" % m.pinst)
    else:
        where.insert(1, "\"instance\" = '%s'" % m.pinst)
    return " AND ".join(where)


def influxdb(m, prefix):
    field = 'mean("value")'
    sel = "non_negative_derivative(%s, 1s)" % field if m.rate else field
    q = ("SELECT %s FROM \"%s_%s\" WHERE %s AND $timeFilter GROUP BY time($__interval)%s fill(none)"
         % (sel, PLUGIN, m.ds, i_where(m), ', "instance"' if prefix else ""))
    alias = ("$tag_instance %s" % m.name) if prefix else m.name
    return {"rawQuery": True, "query": q, "alias": alias, "resultFormat": "time_series"}


def p_name(m):
    name = "collectd_%s_%s" % (PLUGIN, m.type)
    if m.ds != "value":
        name += "_" + m.ds
    if m.counter:
        name += "_total"
    return name


def p_labels(m):
    labels = ['instance=~"$host"'] + (['type="%s"' % m.tinst] if m.tinst else [])
    if m.pinst.startswith("$"):
        labels.insert(1, '%s=~"%s"' % (PLUGIN, m.pinst))
    else:
        labels.insert(1, '%s="%s"' % (PLUGIN, m.pinst))
    return ", ".join(labels)


def prometheus(m, prefix):
    sel = "%s{%s}" % (p_name(m), p_labels(m))
    expr = "rate(%s[$rate_window])" % sel if m.rate else sel
    leg = ("{{%s}} %s" % (PLUGIN, m.name)) if prefix else m.name
    return {"expr": expr, "legendFormat": leg, "range": True}


QUERY = {"graphite": graphite, "influxdb": influxdb, "prometheus": prometheus}
# Graphite: OneValuePerList true (write_graphite drops the long lists).
ONE_VALUE_PER_LIST = {"graphite": True, "influxdb": False, "prometheus": False}


def p_target(expr, leg, **kw):
    return dict({"expr": expr, "legendFormat": leg, "range": True}, **kw)


def i_target(query, alias, **kw):
    return dict({"rawQuery": True, "query": query, "alias": alias,
                 "resultFormat": "time_series"}, **kw)


def i_rate(measure, where, group, scale=""):
    """InfluxQL: the rate per second of a counter measurement, per group."""
    return ("SELECT non_negative_derivative(mean(\"value\"), 1s)%s FROM \"%s\" WHERE %s AND "
            "$timeFilter GROUP BY time($__interval)%s fill(none)"
            % (scale, measure, where, "".join(', "%s"' % g for g in group)))


def i_sum_of_rates(measure, where, inner, outer, scale="", name="r"):
    """InfluxQL: the sum of several series' rates (per outer group)."""
    return ("SELECT sum(\"%s\")%s FROM (SELECT non_negative_derivative(mean(\"value\"), 1s) "
            "AS \"%s\" FROM \"%s\" WHERE %s AND $timeFilter GROUP BY time($__interval)%s) "
            "WHERE $timeFilter GROUP BY time($__interval)%s fill(none)"
            % (name, scale, name, measure, where, "".join(', "%s"' % g for g in inner),
               "".join(', "%s"' % g for g in outer)))


EXPR = {"type": "__expr__", "uid": "__expr__"}


def i_shares(parts, label, names):
    """InfluxDB 1.x cannot divide series of different measurements: the
    shares are Grafana server-side expressions over hidden queries. parts:
    [(refId, query)], each a rate per label; names: refId -> legend word.
    Returns (targets, overrides)."""
    targets = [dict(i_target(q, "$tag_%s %s" % (label, names[r])), refId=r, hide=True)
               for r, q in parts]
    targets.append({"refId": "total", "datasource": EXPR, "type": "math", "hide": True,
                    "expression": " + ".join("$" + r for r, _q in parts)})
    overrides = []
    for r, _q in parts:
        targets.append({"refId": "share_" + r, "datasource": EXPR, "type": "math",
                        "expression": "$%s * 100 / $total" % r})
        overrides.append(display_name("share_" + r, "${__field.labels.%s} %s" % (label, names[r])))
    return targets, overrides


def display_name(ref, name):
    return {"matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [{"id": "displayName", "value": name}]}


# --- panels -------------------------------------------------------------------
class Panel:
    """One panel: its targets per back end ({kind: [target]}), the unit
    (Grafana's), and a description saying where its series come from."""

    def __init__(self, title, unit, description, targets, type_="timeseries",
                 overrides=None, options=None, width=12, custom=None):
        self.title, self.unit, self.description = title, unit, description
        self.targets, self.type, self.width = targets, type_, width
        self.overrides = overrides or {}
        self.options = options
        self.custom = custom


def simple(title, unit, description, metrics, prefix):
    """A panel of plugin values, one series per metric (and instance)."""
    return Panel(title, unit, description,
                 {k: [QUERY[k](m.metric(ONE_VALUE_PER_LIST[k]), prefix) for m in metrics]
                  for k in KINDS})


# The states of the share panel: the mutually exclusive states of the
# high-frequency user state sampling (IBM MRUSEITE, USEITE_HF*), as IBM's
# Performance Toolkit reports them per user.
WAIT_STATES = [("hfcpurn", "running"), ("hfcpuwt", "CPU wait"), ("hfiowt", "I/O wait"),
               ("hfwtpag", "page wait"), ("hfsimwt", "simulation wait"),
               ("hfcfwt", "console function wait"), ("hftidl", "test idle"),
               ("hftsvm", "test idle in SVM wait"), ("hfllist", "limit list"),
               ("hfdorm", "dormant"), ("hfothr", "none of these")]


def wait_state_shares():
    states = [s for s, _ in WAIT_STATES]
    g = ("aliasSub(asPercent(%s, None, 2), '^asPercent\\(perSecond\\(interpolate\\("
         "collectd\\.[^.]*\\.%s-([^.]*)\\.derive-([a-z0-9_]*)\\)\\).*$', '\\1 \\2')"
         % (g_rate("collectd.$host.%s-$guest.derive-{%s}" % (PLUGIN, ",".join(states))), PLUGIN))
    sel = 'instance=~"$host", %s=~"$guest"' % PLUGIN
    # rate() over several metric names would give series differing only in
    # their dropped names: the total is a sum of one rate per state
    rate = "rate(collectd_%s_zvm_useite_%%s_total{%s}[$rate_window])" % (PLUGIN, sel)
    total = "(%s)" % " + ".join(rate % s for s in states)
    prom = [p_target("100 * %s / %s" % (rate % s, total), "{{%s}} %s" % (PLUGIN, s))
            for s in states]
    where = "\"host\" =~ /^$host$/ AND \"instance\" =~ /^$guest$/ AND \"type\" = 'zvm_useite'"
    influx, over = i_shares([(s, i_rate("%s_%s" % (PLUGIN, s), where, ["instance"]))
                             for s in states], "instance", {s: s for s in states})
    desc = ("D4R10 (MRUSEITE) high-frequency state samples per guest: each state's "
            "sample rate as a percentage of the sum of the rates of these states (%s), the "
            "way IBM's Performance Toolkit shows user state sampling. Unit: percent of the "
            "guest's samples; the states of one guest add up to 100 %%."
            % ", ".join("%s = %s" % s for s in WAIT_STATES))
    return Panel("Wait-state shares (% of samples)", "percent", desc,
                 {"graphite": [{"target": g}], "influxdb": influx, "prometheus": prom},
                 overrides={"influxdb": over}, width=24,
                 custom={"stacking": {"mode": "normal", "group": "A"}, "fillOpacity": 40})


def guests():
    return ("Guests ($guest): user state sampling and transactions (D4R10)", [
        wait_state_shares(),
        simple("Transactions per second", "short",
               "D4R10 (MRUSEITE) records of the guest's base virtual CPU: z/VM writes one at "
               "the end of each transaction. Unit: transactions per second.",
               [user("transactions")], "guest"),
        simple("Dispatch and eligible lists (samples per second)", "short",
               "D4R10 USEITE_HFDISP0..3 and USEITE_HFELIG0..3: high-frequency samples that "
               "found the guest in dispatch list Q0..Q3 resp. eligible list E0..E3. Unit: "
               "samples per second.",
               [user("hfdisp%d" % q) for q in range(4)] +
               [user("hfelig%d" % q) for q in range(4)], "guest"),
        simple("Time slices and deferred work", "short",
               "D4R10 VMDSLCNT (time slices, a level) and VMDDFRWK (deferred work items, a "
               "level) as the latest record gives them. Unit: count.",
               [user("vmdslcnt", False), user("vmddfrwk", False)], "guest"),
    ])


PROC_FIELDS = [("pfxprbtm", "emulation"), ("pfxutime", "users")]


def processors():
    # per processor: rate of the microsecond counters / 1e6 = CPUs busy
    per = {"graphite": [], "influxdb": [], "prometheus": []}
    tot = {"graphite": [], "influxdb": [], "prometheus": []}
    for field, name in PROC_FIELDS:
        path = "collectd.$host.%s-$processor.derive-%s" % (PLUGIN, field)
        per["graphite"].append({"target": "aliasSub(aliasByNode(scale(%s, 0.000001), 2), "
                                          "'^%s-(.*)$', '\\1 %s')" % (g_rate(path), PLUGIN, name)})
        tot["graphite"].append({"target": "alias(scale(sumSeries(%s), 0.000001), '%s')"
                                          % (g_rate(path), name)})
        where = ("\"host\" =~ /^$host$/ AND \"instance\" =~ /^$processor$/ AND "
                 "\"type\" = 'zvm_sytprp'")
        meas = "%s_%s" % (PLUGIN, field)
        per["influxdb"].append(i_target(i_rate(meas, where, ["instance"], " / 1000000"),
                                        "$tag_instance " + name))
        tot["influxdb"].append(i_target(i_sum_of_rates(meas, where, ["instance"], [],
                                                       " / 1000000"), name))
        sel = ('collectd_%s_zvm_sytprp_%s_total{instance=~"$host", %s=~"$processor"}'
               % (PLUGIN, field, PLUGIN))
        per["prometheus"].append(p_target("rate(%s[$rate_window]) / 1e6" % sel,
                                          "{{%s}} %s" % (PLUGIN, name)))
        tot["prometheus"].append(p_target("sum(rate(%s[$rate_window])) / 1e6" % sel, name))
    src = ("D0R2 (MRSYTPRP) per processor: PFXPRBTM (emulation: guest code in SIE, all "
           "users) and PFXUTIME (time charged to users: emulation plus CP's work for them), "
           "counters in microseconds. Unit: CPUs busy (the rate in microseconds per second "
           "/ 1e6; 1 = one processor fully busy, x 100 = percent).")
    return ("Processors ($processor): CPU time (D0R2)", [
        Panel("Processors: CPUs busy per processor", "short", src, per),
        Panel("Processors: CPUs busy, all processors", "short",
              src + " Summed over the selected processors.", tot),
        simple("Hard-affinity dispatches per second", "short",
               "D0R2 PLSCUHAF: virtual processors dispatched with hard affinity on this "
               "processor (a 2-byte counter; a wrap loses one rate). Unit: dispatches per "
               "second.", [processor("plscuhaf")], "processor"),
    ])


def multithreading():
    return ("System: multithreading (D5R21)", [
        simple("Threads per core by CPU type", "short",
               "D5R21 (MRPRCSMT) per CPU type: threads per core activated, requested, the "
               "hardware's and z/VM's maximum, as of the latest configuration change. Unit: "
               "threads.",
               [threads("activated"), threads("requested"), threads("hardware_max"),
                threads("zvm_max")], "cputype"),
        simple("Multithreading configuration", "short",
               "D5R21 RCCSMTSQ (configuration change sequence) and the configured maximum "
               "threads. Unit: count.", [system("mt_config_seq"), system("mt_max_threads")],
               None),
    ])


# Linux guests (APPLDATA, named as collectd's own plugins on each guest:
# host = the guest's user ID in lower case). CPU counters are jiffies
# (1/100 s): their rate / 100 is CPUs.
CPU_STATES = ["user", "nice", "system", "idle", "wait", "interrupt", "softirq", "steal"]
BUSY = ["user", "nice", "system", "interrupt", "softirq"]
APPL = ("APPLDATA (domain 10) records the Linux guests write (arch/s390/appldata), "
        "named as collectd's %s plugin names them on the guest (host = user ID in lower "
        "case). ")


def g_linux(path):
    return "collectd.$lnxguest.%s" % path


def i_linux():
    return "\"host\" =~ /^$lnxguest$/"


def p_linux():
    return 'instance=~"$lnxguest"'


# The drill-down: the guest(s) of $lnxdetail (one by default), while the
# overview sums over $lnxguest (all guests the regex selects, by default).
def g_one(path):
    return "collectd.$lnxdetail.%s" % path


def i_one():
    return "\"host\" =~ /^$lnxdetail$/"


def p_one():
    return 'instance=~"$lnxdetail"'


def cpu_by_state_total():
    t = {"graphite": [], "influxdb": [], "prometheus": []}
    for st in CPU_STATES:
        t["graphite"].append({"target": "alias(scale(sumSeries(%s), 0.01), '%s')"
                                        % (g_rate(g_linux("cpu-*.cpu-" + st)), st)})
        t["influxdb"].append(i_target(i_sum_of_rates(
            "cpu_value", "%s AND \"type\" = 'cpu' AND \"type_instance\" = '%s'"
            % (i_linux(), st), ["host", "instance"], [], " / 100"), st))
        t["prometheus"].append(p_target(
            'sum(rate(collectd_cpu_total{%s, type="%s"}[$rate_window])) / 100'
            % (p_linux(), st), st))
    return Panel("Linux guests: CPUs by state (all selected guests)", "short",
                 APPL % "cpu" + "os record: cpu-N/cpu-STATE counters in jiffies (1/100 s), "
                 "summed over the CPUs of every selected guest. Unit: CPUs (jiffies per "
                 "second / 100). steal is time the guest was ready but z/VM ran something "
                 "else.", t, custom={"stacking": {"mode": "normal", "group": "A"},
                                     "fillOpacity": 40})


def memory_total():
    t = {"graphite": [], "influxdb": [], "prometheus": []}
    for m in ("used", "free"):
        t["graphite"].append({"target": "alias(sumSeries(%s), '%s')"
                                        % (g_linux("memory.memory-" + m), m)})
        t["influxdb"].append(i_target(
            "SELECT sum(\"v\") FROM (SELECT last(\"value\") AS \"v\" FROM \"memory_value\" "
            "WHERE %s AND \"type_instance\" = '%s' AND $timeFilter GROUP BY "
            "time($__interval), \"host\") WHERE $timeFilter GROUP BY time($__interval) "
            "fill(none)" % (i_linux(), m), m))
        t["prometheus"].append(p_target('sum(collectd_memory{%s, memory="%s"})'
                                        % (p_linux(), m), m))
    return Panel("Linux guests: memory used and free (all selected guests)", "bytes",
                 APPL % "memory" + "mem record: memory/memory-used (total - free - buffers - "
                 "cached) and memory-free, summed over the selected guests. Unit: bytes.", t)


def network_total():
    t = {"graphite": [], "influxdb": [], "prometheus": []}
    for d in ("rx", "tx"):
        t["graphite"].append({"target": "alias(sumSeries(%s), '%s')"
                                        % (g_rate(g_linux("interface-sum.if_octets." + d)), d)})
        t["influxdb"].append(i_target(i_sum_of_rates(
            "interface_%s" % d, "%s AND \"instance\" = 'sum' AND \"type\" = 'if_octets'"
            % i_linux(), ["host"], []), d))
        t["prometheus"].append(p_target(
            'sum(rate(collectd_interface_if_octets_%s_total{%s, interface="sum"}'
            '[$rate_window]))' % (d, p_linux()), d))
    return Panel("Linux guests: network bytes per second (all selected guests)", "Bps",
                 APPL % "interface" + "net_sum record: interface-sum/if_octets (rx, tx), the "
                 "sum over each guest's network devices, summed over the selected guests. "
                 "Unit: bytes per second.", t)


def top_guests(title, states, what):
    """Top $topn guests by the average over the dashboard's time range."""
    g = ("highestAverage(aliasByNode(scale(groupByNode(%s, 1, 'sum'), 0.01), 0), $topn)"
         % g_rate(g_linux("cpu-*.cpu-{%s}" % ",".join(states))))
    inner = i_sum_of_rates("cpu_value", "%s AND \"type\" = 'cpu' AND \"type_instance\" =~ "
                           "/^(%s)$/" % (i_linux(), "|".join(states)),
                           ["host", "instance", "type_instance"], ["host"], " / 100", "r")
    inner = inner.replace(' fill(none)', '')
    influx = ("SELECT top(\"busy\", \"host\", $topn) FROM (SELECT mean(\"sum\") AS \"busy\" "
              "FROM (%s) GROUP BY \"host\")" % inner)
    sel = 'collectd_cpu_total{%s, type=~"%s"}' % (p_linux(), "|".join(states))
    prom = ("topk($topn, avg_over_time((sum by (instance) (rate(%s[$rate_window])) / 100)"
            "[$__range:$__interval]))" % sel)
    return Panel(title, "short",
                 APPL % "cpu" + "os record: %s, summed over each guest's CPUs and averaged "
                 "over the dashboard's time range; the $topn highest of the selected guests. "
                 "Unit: CPUs (jiffies per second / 100)." % what,
                 {"graphite": [{"target": g}],
                  "influxdb": [i_target(influx, "$tag_host", resultFormat="table")],
                  "prometheus": [p_target(prom, "{{instance}}", instant=True, range=False)]},
                 type_="bargauge",
                 options={"reduceOptions": {"calcs": ["mean"], "values": False},
                          "orientation": "horizontal", "displayMode": "basic"})


def linux_overview():
    return ("Linux guests: overview (APPLDATA, $lnxguest)", [
        cpu_by_state_total(),
        memory_total(),
        network_total(),
        top_guests("Top guests by CPU busy (CPUs)", BUSY, "cpu-STATE for %s" % ", ".join(BUSY)),
        top_guests("Top guests by steal (CPUs)", ["steal"], "cpu-steal"),
    ])


def linux_guest():
    g = ("aliasSub(asPercent(groupByNodes(%s, 'sum', 1, 3), None, 0), "
         "'^asPercent\\(([^.]*)\\.cpu-([a-z]*),.*$', '\\1 \\2')"
         % g_rate(g_one("cpu-*.cpu-*")))
    rate = "rate(collectd_cpu_total{%s}[$rate_window])" % p_one()
    prom = [p_target("100 * sum by (instance, type) (%s) / on(instance) group_left "
                     "sum by (instance) (%s)" % (rate, rate), "{{instance}} {{type}}")]
    where = "%s AND \"type\" = 'cpu'" % i_one()
    influx = [
        dict(i_target(i_sum_of_rates("cpu_value", where, ["host", "instance", "type_instance"],
                                     ["host", "type_instance"]),
                      "$tag_host $tag_type_instance"), refId="state", hide=True),
        dict(i_target(i_sum_of_rates("cpu_value", where, ["host", "instance", "type_instance"],
                                     ["host"]), "$tag_host"), refId="all", hide=True),
        {"refId": "pct", "datasource": EXPR, "type": "math", "expression": "$state * 100 / $all"},
    ]
    cpu_pct = Panel("CPU by state (% of the guest's CPU time)", "percent",
                    APPL % "cpu" + "os record: each state's jiffies over all states' jiffies "
                    "of the guest (all its CPUs), like top(1). Unit: percent; a guest's states "
                    "add up to 100 %.",
                    {"graphite": [{"target": g}], "influxdb": influx, "prometheus": prom},
                    overrides={"influxdb": [display_name(
                        "pct", "${__field.labels.host} ${__field.labels.type_instance}")]})
    mem = {"graphite": [], "influxdb": [], "prometheus": []}
    for m in ("used", "free"):
        mem["graphite"].append({"target": "aliasSub(%s, '^collectd\\.([^.]*)\\..*$', '\\1 %s')"
                                          % (g_one("memory.memory-" + m), m)})
        mem["influxdb"].append(i_target(
            "SELECT last(\"value\") FROM \"memory_value\" WHERE %s AND \"type_instance\" = '%s' "
            "AND $timeFilter GROUP BY time($__interval), \"host\" fill(none)" % (i_one(), m),
            "$tag_host " + m))
        mem["prometheus"].append(p_target('collectd_memory{%s, memory="%s"}'
                                          % (p_one(), m), "{{instance}} " + m))
    net = {"graphite": [], "influxdb": [], "prometheus": []}
    for d in ("rx", "tx"):
        net["graphite"].append({"target": "aliasSub(%s, '^.*collectd\\.([^.]*)\\..*$', '\\1 %s')"
                                          % (g_rate(g_one("interface-sum.if_octets." + d)), d)})
        net["influxdb"].append(i_target(i_rate(
            "interface_" + d, "%s AND \"instance\" = 'sum' AND \"type\" = 'if_octets'"
            % i_one(), ["host"]), "$tag_host " + d))
        net["prometheus"].append(p_target(
            'rate(collectd_interface_if_octets_%s_total{%s, interface="sum"}[$rate_window])'
            % (d, p_one()), "{{instance}} " + d))
    load = {"graphite": [], "influxdb": [], "prometheus": []}
    for a in ("shortterm", "midterm", "longterm"):
        load["graphite"].append({"target": "aliasSub(%s, '^collectd\\.([^.]*)\\..*$', '\\1 %s')"
                                           % (g_one("load.load." + a), a)})
        load["influxdb"].append(i_target(
            "SELECT mean(\"value\") FROM \"load_%s\" WHERE %s AND $timeFilter GROUP BY "
            "time($__interval), \"host\" fill(none)" % (a, i_one()), "$tag_host " + a))
        load["prometheus"].append(p_target('collectd_load_%s{%s}' % (a, p_one()),
                                           "{{instance}} " + a))
    return ("Linux guest drill-down ($lnxdetail)", [
        cpu_pct,
        Panel("Memory used and free", "bytes",
              APPL % "memory" + "mem record: memory/memory-used and memory-free. Unit: bytes.",
              mem),
        Panel("Network bytes per second", "Bps",
              APPL % "interface" + "net_sum record: interface-sum/if_octets (rx, tx), all "
              "the guest's network devices. Unit: bytes per second.", net),
        Panel("Load average", "short",
              APPL % "load" + "os record: load/load, the 1, 5 and 15 minute averages as "
              "/proc/loadavg shows them. Unit: runnable tasks.", load),
    ])


# dmstats (collectd-dmstats(5)): plugin dmstats, plugin instance
# <device>_r<region>, collectd's disk types.
DM = ("dmstats plugin (on any host: the dmstats host variable): device-mapper statistics "
      "per region (plugin instance DEVICE_rREGION, collectd-dmstats(5)). ")


def dm_rw(title, unit, type_, what):
    t = {"graphite": [], "influxdb": [], "prometheus": []}
    for d in ("read", "write"):
        t["graphite"].append({"target": "aliasSub(%s, '^.*\\.dmstats-([^.]*)\\..*$', '\\1 %s')"
                                        % (g_rate("collectd.$dmhost.dmstats-$dmregion.%s.%s"
                                                  % (type_, d)), d)})
        t["influxdb"].append(i_target(i_rate(
            "dmstats_" + d, "\"host\" =~ /^$dmhost$/ AND \"instance\" =~ /^$dmregion$/ AND "
            "\"type\" = '%s'" % type_, ["instance"]), "$tag_instance " + d))
        t["prometheus"].append(p_target(
            'rate(collectd_dmstats_%s_%s_total{instance=~"$dmhost", dmstats=~"$dmregion"}'
            '[$rate_window])' % (type_, d), "{{dmstats}} " + d))
    return Panel(title, unit, DM + what, t)


def dmstats():
    heat = {
        "graphite": [{"target": "aliasSub(groupByNode(%s, 3, 'sum'), '^derive-', '')"
                                % g_rate("collectd.$dmhost.dmstats-$dmregion.derive-latency-*")}],
        "influxdb": [i_target(i_sum_of_rates(
            "dmstats_value", "\"host\" =~ /^$dmhost$/ AND \"instance\" =~ /^$dmregion$/ AND "
            "\"type\" = 'derive' AND \"type_instance\" =~ /^latency-/",
            ["instance", "type_instance"], ["type_instance"]), "$tag_type_instance")],
        "prometheus": [p_target(
            'sum by (type) (rate(collectd_dmstats_derive_total{instance=~"$dmhost", '
            'dmstats=~"$dmregion", type=~"latency-.*"}[$rate_window]))', "{{type}}")],
    }
    return ("Device-mapper statistics ($dmhost: $dmregion, dmstats)", [
        dm_rw("dmstats: throughput (bytes per second)", "Bps", "disk_octets",
              "disk_octets (read, write): sectors x 512. Unit: bytes per second."),
        dm_rw("dmstats: I/O operations per second", "iops", "disk_ops",
              "disk_ops (read, write): completed I/Os. Unit: operations per second."),
        dm_rw("dmstats: average time per operation", "ms", "disk_time",
              "disk_time (read, write): as collectd's disk plugin, its rate is the average "
              "time per read resp. write. Unit: milliseconds."),
        Panel("dmstats: I/O latency histogram", "short",
              DM + "derive-latency-LOWER-UPPER: I/Os completed with a latency in each bucket "
                   "of the region's histogram (dmstats Histogram option), summed over the "
                   "selected regions; each row is a bucket. Unit: "
                   "I/Os per second.", heat, type_="heatmap",
              options={"calculate": False, "yAxis": {"unit": "short"},
                       "cellGap": 1, "color": {"mode": "scheme", "scheme": "Oranges"},
                       "rowsFrame": {"layout": "unknown"}}),
    ])


def reader_health():
    return ("Reader health", [
        simple("Read errors per second", "short",
               "zvm_monitor-reader errors-* counters: failed read()s of /dev/monreader by "
               "errno, records or sets rejected as malformed, failed open()s "
               "(collectd-zvm_monitor(5), reader counters). Unit: errors per second.",
               [reader("eoverflow"), reader("eio"), reader("efault"), reader("malformed"),
                reader("open")], None),
        Panel("Reader errors since start", "short",
              "zvm_monitor-reader errors-* counters as they are: errors since collectd "
              "started. Unit: count.",
              {k: [QUERY[k](Metric("reader", "errors", t, rate=False), None)
                   for t in ("eoverflow", "eio", "efault", "malformed")] for k in KINDS}),
        simple("Data sets and records per second", "short",
               "zvm_monitor-reader total_objects-sets (data sets read up to their 0-byte read), "
               "-sets_dropped (complete sets lost for want of memory to queue them), "
               "-records (records with a valid header), -skipped (unknown or filtered). Unit: "
               "per second.",
               [reader("sets", "total_objects"), reader("sets_dropped", "total_objects"),
                reader("records", "total_objects"), reader("skipped", "total_objects")],
               None),
        Panel("Records dropped and record times not used, since start", "short",
              "zvm_monitor-reader total_objects-appldata_dropped (records of Linux guests' "
              "APPLDATA instances refused: a guest past ApplDataInstancesPerGuest, or the "
              "guests' pool full; the log names the guest) and total_objects-time_future "
              "(record instances whose record time lay more than 1 h after their data set "
              "arrived: stamped with the arrival time), as they are: since collectd "
              "started. Unit: count.",
              {k: [QUERY[k](Metric("reader", "total_objects", t, rate=False), None)
                   for t in ("appldata_dropped", "time_future")] for k in KINDS}),
        simple("Bytes read per second", "Bps",
               "zvm_monitor-reader total_bytes-read: every byte read() returned. Unit: bytes "
               "per second.", [reader("read", "total_bytes")], None),
    ])


# The dashboard's sections, top to bottom.
SECTIONS = [
    guests,
    processors,
    multithreading,
    linux_overview,
    linux_guest,
    dmstats,
    reader_health,
]


# --- template variables -------------------------------------------------------
# Guests are the upper-case plugin instances (user IDs); reader, system and
# the CPU types are lower case (naming contract).
GUEST_RE = "^%s-([A-Z0-9@#$_+%%-]+)$" % PLUGIN
CPUTYPE_RE = "^%s-(cp|zaap|ifl|icf|ziip|type[0-9]+)$" % PLUGIN
PROCESSOR_RE = "^%s-(cpu[0-9]+)$" % PLUGIN


class Variable:
    """A query variable: its query and Grafana regex per back end."""

    def __init__(self, name, label, multi, graphite, influxdb, prometheus, current=None):
        self.name, self.label, self.multi = name, label, multi
        self.queries = {"graphite": graphite, "influxdb": influxdb, "prometheus": prometheus}
        self.current = current or {}


# The query variables, in the order Grafana resolves them (each may use the
# ones before). A section that needs one adds it here. Graphite lists
# every host for a host variable (the z/VM system, the Linux guests, ...);
# in InfluxDB the reader's counters are in zvm_monitor_value, the records'
# data sources each in zvm_monitor_<ds>.
LNX_INFLUX = ('SHOW TAG VALUES FROM "cpu_value" WITH KEY = "host" '
              "WHERE \"host\" =~ /$lnxfilter/", "")
LNX_PROM = ('label_values(collectd_cpu_total{instance=~"$lnxfilter"}, instance)', "")
VARIABLES = [
    Variable("host", "z/VM system (host)", False,
             ("collectd.*", ""),
             ('SHOW TAG VALUES FROM "%s_value" WITH KEY = "host"' % PLUGIN, ""),
             ("label_values(collectd_%s_total_objects_total, instance)" % PLUGIN, "")),
    Variable("guest", "Guest", True,
             ("collectd.$host.%s-*" % PLUGIN, "/%s/" % GUEST_RE),
             ('SHOW TAG VALUES FROM "%s_transactions" WITH KEY = "instance" '
              "WHERE \"host\" =~ /^$host$/ AND \"type\" = 'zvm_useite'" % PLUGIN, ""),
             ('label_values(collectd_%s_zvm_useite_transactions_total{instance=~"$host"}, %s)'
              % (PLUGIN, PLUGIN), "")),
    Variable("cputype", "CPU type", True,
             ("collectd.$host.%s-*" % PLUGIN, "/%s/" % CPUTYPE_RE),
             ('SHOW TAG VALUES FROM "%s_activated" WITH KEY = "instance" '
              "WHERE \"host\" =~ /^$host$/ AND \"type\" = 'zvm_prcsmt_cpu'" % PLUGIN, ""),
             ('label_values(collectd_%s_zvm_prcsmt_cpu_activated{instance=~"$host"}, %s)'
              % (PLUGIN, PLUGIN), "")),
    Variable("processor", "Processor", True,
             ("collectd.$host.%s-*" % PLUGIN, "/%s/" % PROCESSOR_RE),
             ('SHOW TAG VALUES FROM "%s_pfxutime" WITH KEY = "instance" '
              "WHERE \"host\" =~ /^$host$/ AND \"type\" = 'zvm_sytprp'" % PLUGIN, ""),
             ('label_values(collectd_%s_zvm_sytprp_pfxutime_total{instance=~"$host"}, %s)'
              % (PLUGIN, PLUGIN), "")),
    # the overview sums over all the Linux guests the regex selects
    Variable("lnxguest", "Linux guests (overview)", True,
             ("collectd.*", "/$lnxfilter/"), LNX_INFLUX, LNX_PROM,
             current={"text": ["All"], "value": ["$__all"]}),
    Variable("lnxdetail", "Linux guest (drill-down)", False,
             ("collectd.*", "/$lnxfilter/"), LNX_INFLUX, LNX_PROM),
    Variable("dmhost", "dmstats host", False,
             ("collectd.*", ""),
             ('SHOW TAG VALUES FROM "dmstats_read" WITH KEY = "host"', ""),
             ("label_values(collectd_dmstats_disk_ops_read_total, instance)", "")),
    Variable("dmregion", "dm region", True,
             ("collectd.$dmhost.dmstats-*", "/^dmstats-(.*)$/"),
             ('SHOW TAG VALUES FROM "dmstats_read" WITH KEY = "instance" '
              "WHERE \"host\" =~ /^$dmhost$/", ""),
             ('label_values(collectd_dmstats_disk_ops_read_total{instance=~"$dmhost"}, '
              'dmstats)', "")),
]


def variables(kind):
    ds = {"type": kind, "uid": "${datasource}"}
    out = [{"type": "datasource", "name": "datasource", "label": "Data source",
            "query": kind, "current": {}, "hide": 0},
           {"type": "textbox", "name": "lnxfilter", "label": "Linux guests (regex)",
            "query": ".*", "current": {"text": ".*", "value": ".*"}, "hide": 0,
            "description": "Regular expression selecting Linux guests (host names) for the "
                           "Linux panels, e.g. ^lnxweb"},
           {"type": "custom", "name": "topn", "label": "Top N", "query": "5,10,20,50",
            "current": {"text": "10", "value": "10"}, "hide": 0,
            "options": [{"text": n, "value": n, "selected": n == "10"}
                        for n in ("5", "10", "20", "50")]}]
    if kind == "prometheus":
        # z/VM writes sample records every monitor sample interval (60 s by
        # default) and write_prometheus serves each value once: rate()
        # needs a window holding at least two records
        out.append({"type": "custom", "name": "rate_window", "label": "Rate window",
                    "query": "1m,2m,5m,15m,1h", "current": {"text": "5m", "value": "5m"},
                    "hide": 0, "description": "rate() window: at least two monitor sample "
                                              "intervals (CP MONITOR SAMPLE INTERVAL)",
                    "options": [{"text": n, "value": n, "selected": n == "5m"}
                                for n in ("1m", "2m", "5m", "15m", "1h")]})
    for v in VARIABLES:
        query, regex = v.queries[kind]
        out.append({"type": "query", "name": v.name, "label": v.label, "datasource": ds,
                    "query": query, "definition": query, "regex": regex, "refresh": 2,
                    "sort": 1, "multi": v.multi, "includeAll": v.multi,
                    "current": v.current, "hide": 0})
    return out


def dashboard(kind):
    panels = []
    pid = 1
    y = 0
    for section in SECTIONS:
        row_title, row = section()
        panels.append({"type": "row", "title": row_title, "id": pid, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        pid += 1
        y += 1
        x = 0
        for p in row:
            if x + p.width > 24:
                x = 0
                y += 8
            targets = []
            for j, t in enumerate(p.targets[kind]):
                t = dict(t)
                t.setdefault("refId", chr(ord("A") + j))
                t.setdefault("datasource", {"type": kind, "uid": "${datasource}"})
                targets.append(t)
            defaults = {"unit": p.unit}
            if p.custom:
                defaults["custom"] = p.custom
            panel = {
                "type": p.type, "title": p.title, "id": pid, "description": p.description,
                "datasource": {"type": kind, "uid": "${datasource}"},
                "gridPos": {"h": 8, "w": p.width, "x": x, "y": y},
                "fieldConfig": {"defaults": defaults, "overrides": p.overrides.get(kind, [])},
                "options": p.options or {"legend": {"displayMode": "list", "placement": "bottom"},
                                         "tooltip": {"mode": "multi"}},
                "targets": targets}
            panels.append(panel)
            pid += 1
            x += p.width
        y += 8
    names = {"graphite": "Graphite", "influxdb": "InfluxDB 1.x", "prometheus": "Prometheus"}
    return {
        "title": "z/VM monitor (zvm_monitor, %s)" % names[kind],
        "uid": "zvm-monitor-%s" % kind,
        "description": "collectd zvm_monitor plugin: per-guest user state sampling (D4R10), "
                       "processors (D0R2), multithreading (D5R21), Linux guests (APPLDATA), "
                       "device-mapper statistics (dmstats plugin), reader health. "
                       "%sGenerated by contrib/grafana/make-dashboards.py."
                       % ("Needs OneValuePerList true in the plugin's configuration. "
                          if ONE_VALUE_PER_LIST[kind] else ""),
        "tags": ["collectd", "z/VM", "zvm_monitor"],
        "editable": True, "schemaVersion": 37, "version": 1,
        "time": {"from": "now-1h", "to": "now"}, "refresh": "1m",
        "templating": {"list": variables(kind)},
        "annotations": {"list": []},
        "panels": panels,
    }


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for kind in KINDS:
        path = os.path.join(out, "zvm_monitor-%s.json" % kind)
        with open(path, "w") as f:
            json.dump(dashboard(kind), f, indent=2, sort_keys=True)
            f.write("\n")
        print(path)
    hypfs_dashboards(out)


# --- the hypfs plugin (collectd-hypfs(5)): its own dashboards --------------
def hypfs_dashboards(out):
    """hypfs-<kind>.json: per-guest CPU (% of one CPU) and memory (DIAG
    X'2FC'), state samples, LPAR partitions and CPUs (DIAG X'204'), reader
    health. Graphite needs the plugin's OneValuePerList true (types derive
    and gauge, the data source as type instance); InfluxDB has one
    measurement hypfs_<ds> per data source, Prometheus one metric
    collectd_hypfs_<type>_<ds>[_total]."""
    P = "hypfs"

    class M:
        # pinst: plugin instance (may be "$guest"); type_: hypfs type;
        # ds; tinst: the list's type instance (may be "$cpu", regex);
        # scale: factor on the rate or value; name: legend's last word
        def __init__(self, pinst, type_, ds, name, counter=True, scale=None, tinst=None):
            self.pinst, self.type, self.ds, self.name = pinst, type_, ds, name
            self.counter, self.scale, self.tinst = counter, scale, tinst

    def graphite_q(m, prefix):
        # m.tinst is a regex (".*") for InfluxDB and Prometheus, a glob here
        ti = m.ds if m.tinst is None else "*-%s" % m.ds
        path = "collectd.$host.%s-%s.%s-%s" % (P, m.pinst, "derive" if m.counter else "gauge", ti)
        expr = "perSecond(%s)" % path if m.counter else path
        if m.scale is not None:
            expr = "scale(%s, %s)" % (expr, m.scale)
        if prefix == "pinst":
            return {"target": "aliasSub(aliasByNode(%s, 2), '^%s-(.*)$', '\\1 %s')" % (expr, P, m.name)}
        if prefix == "tinst":
            return {"target": "aliasSub(aliasByNode(%s, 2, 3), '^%s-(.*)\\.[a-z]+-(.*)-%s$', '\\1 \\2 %s')"
                              % (expr, P, m.ds, m.name)}
        return {"target": "alias(%s, '%s')" % (expr, m.name)}

    def influx_q(m, prefix):
        field = 'mean("value")'
        sel = "non_negative_derivative(%s, 1s)" % field if m.counter else field
        if m.scale is not None:
            sel = "%s * %s" % (sel, m.scale)
        inst = ("\"instance\" =~ /^%s$/" % m.pinst if m.pinst.startswith("$")
                else "\"instance\" = '%s'" % m.pinst)
        where = ["\"host\" =~ /^$host$/", inst, "\"type\" = '%s'" % m.type]
        if m.tinst is not None:
            where.append("\"type_instance\" =~ /^%s$/" % m.tinst)
        group = {"pinst": ', "instance"', "tinst": ', "instance", "type_instance"'}.get(prefix, "")
        q = ("SELECT %s FROM \"%s_%s\" WHERE %s AND $timeFilter GROUP BY time($__interval)%s fill(none)"
             % (sel, P, m.ds, " AND ".join(where), group))
        alias = {"pinst": "$tag_instance %s" % m.name,
                 "tinst": "$tag_instance $tag_type_instance %s" % m.name}.get(prefix, m.name)
        return {"rawQuery": True, "query": q, "alias": alias, "resultFormat": "time_series"}

    def prom_q(m, prefix):
        name = "collectd_%s_%s_%s" % (P, m.type, m.ds) + ("_total" if m.counter else "")
        labels = ['instance=~"$host"']
        labels.append('%s=~"%s"' % (P, m.pinst) if m.pinst.startswith("$") else '%s="%s"' % (P, m.pinst))
        if m.tinst is not None:
            labels.append('type=~"%s"' % m.tinst)
        sel = "%s{%s}" % (name, ", ".join(labels))
        expr = "rate(%s[$__rate_interval])" % sel if m.counter else sel
        if m.scale is not None:
            expr = "%s * %s" % (expr, m.scale)
        leg = {"pinst": "{{%s}} %s" % (P, m.name),
               "tinst": "{{%s}} {{type}} %s" % (P, m.name)}.get(prefix, m.name)
        return {"expr": expr, "legendFormat": leg, "range": True}

    pct = 0.0001  # microseconds per second -> % of one CPU
    G, L = "$guest", "$partition"
    reader_row = ("hypfs reader", [
        ("Snapshots read, rejected, restarts per second", "short", None,
         [M("reader", "total_objects", "reads", "reads"),
          M("reader", "errors", "short", "short"),
          M("reader", "total_objects", "restarts", "restarts")]),
    ])
    dashboards = {
        "zvm": ("z/VM guests", "guest", "Guest", [
            ("z/VM guests (DIAG X'2FC')", [
                ("CPU (% of one CPU)", "percent", "pinst",
                 [M(G, "hypfs_guest", "cpu_time_us", "cpu", scale=pct)]),
                ("Memory used and maximum", "bytes", "pinst",
                 [M(G, "hypfs_guest", "mem_used_bytes", "used", False),
                  M(G, "hypfs_guest", "mem_max_bytes", "max", False)]),
                ("State samples per second", "short", "pinst",
                 [M(G, "hypfs_guest", "samples_" + x, x)
                  for x in ("cpu_using", "cpu_delay", "mem_delay", "idle", "other", "total")]),
                ("Virtual CPUs", "short", "pinst",
                 [M(G, "hypfs_guest", "vcpus", "vcpus", False),
                  M(G, "hypfs_guest", "ocpus", "operating", False)]),
            ]),
            reader_row]),
        "lpar": ("LPARs", "partition", "Partition", [
            ("LPAR (DIAG X'204')", [
                ("Partition CPU and management time (% of one CPU)", "percent", "pinst",
                 [M(L, "hypfs_lpar", "cpu_time_us", "cpu", scale=pct),
                  M(L, "hypfs_lpar", "mgm_time_us", "mgm", scale=pct)]),
                ("Logical CPUs (% busy)", "percent", "tinst",
                 [M(L, "hypfs_lpar_cpu", "cpu_time_us", "cpu", scale=pct, tinst=".*")]),
                ("Physical CPUs: management time (% of one CPU)", "percent", "tinst",
                 [M("physical", "hypfs_phys_cpu", "mgm_time_us", "mgm", scale=pct, tinst=".*")]),
            ]),
            reader_row]),
    }

    def target(kind, m, prefix):
        if m.pinst == "reader":
            # single-value lists of collectd's types errors/total_objects
            if kind == "graphite":
                return {"target": "alias(perSecond(collectd.$host.%s-reader.%s-%s), '%s')"
                                  % (P, m.type, m.ds, m.name)}
            if kind == "influxdb":
                q = ("SELECT non_negative_derivative(mean(\"value\"), 1s) FROM \"%s_value\" WHERE "
                     "\"host\" =~ /^$host$/ AND \"instance\" = 'reader' AND \"type\" = '%s' AND "
                     "\"type_instance\" = '%s' AND $timeFilter GROUP BY time($__interval) fill(none)"
                     % (P, m.type, m.ds))
                return {"rawQuery": True, "query": q, "alias": m.name, "resultFormat": "time_series"}
            return {"expr": 'rate(collectd_%s_%s_total{instance=~"$host", %s="reader", type="%s"}'
                            '[$__rate_interval])' % (P, m.type, P, m.ds),
                    "legendFormat": m.name, "range": True}
        return {"graphite": graphite_q, "influxdb": influx_q, "prometheus": prom_q}[kind](m, prefix)

    # Hosts and names: a z/VM host has the hypervisor's hypfs_vm list, an
    # LPAR host hypfs_lpar_sys; guests have vcpus, partitions a cpus count.
    def variables(kind, which, var):
        ds = {"type": kind, "uid": "${datasource}"}
        name_re = "/^%s-([A-Z0-9@#$_+%%-]+)$/" % P
        if kind == "graphite":
            q = {"host": ("collectd.*", ""), var: ("collectd.$host.%s-*" % P, name_re)}
        elif kind == "influxdb":
            meas, typ = ("vcpus", "hypfs_guest") if which == "zvm" else ("cpus", "hypfs_lpar")
            # z/VM's hypervisor list has a cpus data source too
            hmeas = "vcpus" if which == "zvm" else "partitions"
            q = {"host": ('SHOW TAG VALUES FROM "%s_%s" WITH KEY = "host"' % (P, hmeas), ""),
                 var: ('SHOW TAG VALUES FROM "%s_%s" WITH KEY = "instance" '
                       "WHERE \"host\" =~ /^$host$/ AND \"type\" = '%s'" % (P, meas, typ), "")}
        else:
            metric = ("collectd_%s_hypfs_guest_vcpus" % P if which == "zvm"
                      else "collectd_%s_hypfs_lpar_cpus" % P)
            q = {"host": ("label_values(%s, instance)" % metric, ""),
                 var: ('label_values(%s{instance=~"$host"}, %s)' % (metric, P), "")}
        out_ = [{"type": "datasource", "name": "datasource", "label": "Data source",
                 "query": kind, "current": {}, "hide": 0}]
        for name, label, multi in (("host", "Host", False), (var, var.capitalize(), True)):
            query, regex = q[name]
            out_.append({"type": "query", "name": name, "label": label, "datasource": ds,
                         "query": query, "definition": query, "regex": regex, "refresh": 2,
                         "sort": 1, "multi": multi, "includeAll": multi, "current": {},
                         "hide": 0})
        return out_

    names = {"graphite": "Graphite", "influxdb": "InfluxDB 1.x", "prometheus": "Prometheus"}
    for which, (what, var, _label, rows) in dashboards.items():
        for kind in KINDS:
            panels, pid, y = [], 1, 0
            for row_title, row in rows:
                panels.append({"type": "row", "title": row_title, "id": pid, "collapsed": False,
                               "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
                pid += 1
                y += 1
                for i, (title, unit, prefix, metrics) in enumerate(row):
                    targets = []
                    for j, m in enumerate(metrics):
                        t = {"refId": chr(ord("A") + j),
                             "datasource": {"type": kind, "uid": "${datasource}"}}
                        t.update(target(kind, m, prefix))
                        targets.append(t)
                    panels.append({
                        "type": "timeseries", "title": title, "id": pid,
                        "datasource": {"type": kind, "uid": "${datasource}"},
                        "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": y + 8 * (i // 2)},
                        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                        "options": {"legend": {"displayMode": "list", "placement": "bottom"},
                                    "tooltip": {"mode": "multi"}},
                        "targets": targets})
                    pid += 1
                y += 8 * ((len(row) + 1) // 2)
            dash = {
                "title": "%s (hypfs, %s)" % (what, names[kind]),
                "uid": "hypfs-%s-%s" % (which, kind),
                "description": "collectd hypfs plugin (collectd-hypfs(5)): %s. %sGenerated by "
                               "contrib/grafana/make-dashboards.py."
                               % ("per-guest CPU and memory from DIAG X'2FC'" if which == "zvm"
                                  else "partitions and CPUs from DIAG X'204'",
                                  "Needs OneValuePerList true in the plugin's configuration. "
                                  if kind == "graphite" else ""),
                "tags": ["collectd", "hypfs", "z/VM" if which == "zvm" else "LPAR"],
                "editable": True, "schemaVersion": 37, "version": 1,
                "time": {"from": "now-1h", "to": "now"}, "refresh": "1m",
                "templating": {"list": variables(kind, which, var)},
                "annotations": {"list": []},
                "panels": panels,
            }
            path = os.path.join(out, "hypfs-%s-%s.json" % (which, kind))
            with open(path, "w") as f:
                json.dump(dash, f, indent=2, sort_keys=True)
                f.write("\n")
            print(path)


if __name__ == "__main__":
    main(sys.argv)
