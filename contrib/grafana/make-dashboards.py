#!/usr/bin/env python3
"""Write the zvm_monitor Grafana dashboards, one per datasource kind.

    contrib/grafana/make-dashboards.py [OUTDIR]   (default: this directory)

One panel list, three query languages: Graphite (write_graphite with
Prefix "collectd.", SeparateInstances false), InfluxDB 1.x (its collectd
listener fed by collectd's network plugin) and Prometheus (scraping
collectd's write_prometheus with honor_labels: true). Every panel shows the
same series under the same names in all three, which is what
tests/dashboards/ checks against real back ends. Edit this file, not the
JSON, then run it again (tests/dashboards/run.sh fails when they differ).
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

    def __init__(self, pinst, type_, tinst, ds="value", name=None, counter=True):
        self.pinst, self.type, self.tinst, self.ds = pinst, type_, tinst, ds
        self.name = name or tinst or ds
        self.counter = counter


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
        pinst = {"useite": "$guest", "prcsmt_cpu": "$cputype", "prcsmt": "system"}[self.record]
        if not one_value_per_list:
            return Metric(pinst, "zvm_" + self.record, "", self.field, self.field, self.counter)
        if self.record == "useite":
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


# --- panels -----------------------------------------------------------------
# (row title, [(panel title, unit, legend prefix variable, [metrics])])
WAIT_STATES = ["hfcpurn", "hfcpuwt", "hfiowt", "hfwtpag", "hfsimwt", "hfcfwt",
               "hftidl", "hfllist"]
ROWS = [
    ("Guest $guest", [
        ("Wait states (high-frequency samples per second)", "short", "guest",
         [user(f) for f in WAIT_STATES]),
        ("D4R10 records per second", "short", "guest", [user("transactions")]),
        ("Dispatch and eligible lists (samples per second)", "short", "guest",
         [user("hfdisp%d" % q) for q in range(4)] + [user("hfelig%d" % q) for q in range(4)]),
        ("Time slices and deferred work", "short", "guest",
         [user("vmdslcnt", False), user("vmddfrwk", False)]),
    ]),
    ("System: multithreading (D5R21)", [
        ("Threads per core by CPU type", "short", "cputype",
         [threads("activated"), threads("requested"), threads("hardware_max"),
          threads("zvm_max")]),
        ("Multithreading configuration", "short", None,
         [system("mt_config_seq"), system("mt_max_threads")]),
    ]),
    ("Reader health", [
        ("Read errors per second", "short", None,
         [reader("eoverflow"), reader("eio"), reader("efault"), reader("malformed"),
          reader("open")]),
        ("Data sets and records per second", "short", None,
         [reader("sets", "total_objects"), reader("records", "total_objects"),
          reader("skipped", "total_objects")]),
        ("Bytes read per second", "Bps", None, [reader("read", "total_bytes")]),
    ]),
]


# --- query languages ----------------------------------------------------------
def legend(prefix, m):
    return ("$%s %s" % (prefix, m.name)) if prefix else m.name


def graphite(m, prefix):
    path = "collectd.$host.%s-%s.%s" % (PLUGIN, m.pinst, m.type)
    if m.tinst:
        path += "-" + m.tinst
    if m.ds != "value":
        path += "." + m.ds
    # Records come when z/VM writes them, not every step: without
    # keepLastValue a step without a point would blank the rate next to it.
    expr = "perSecond(keepLastValue(%s))" % path if m.counter else path
    if prefix:
        # node 2 is zvm_monitor-<instance>: keep the instance
        return {"target": "aliasSub(aliasByNode(%s, 2), '^%s-(.*)$', '\\1 %s')"
                          % (expr, PLUGIN, m.name)}
    return {"target": "alias(%s, '%s')" % (expr, m.name)}


def influxdb(m, prefix):
    field = 'mean("value")'
    sel = "non_negative_derivative(%s, 1s)" % field if m.counter else field
    where = ["\"host\" =~ /^$host$/", "\"type\" = '%s'" % m.type]
    if m.tinst:
        where.append("\"type_instance\" = '%s'" % m.tinst)
    if m.pinst.startswith("$"):
        where.insert(1, "\"instance\" =~ /^%s$/" % m.pinst)
    else:
        where.insert(1, "\"instance\" = '%s'" % m.pinst)
    q = ("SELECT %s FROM \"%s_%s\" WHERE %s AND $timeFilter GROUP BY time($__interval)%s fill(none)"
         % (sel, PLUGIN, m.ds, " AND ".join(where), ', "instance"' if prefix else ""))
    alias = ("$tag_instance %s" % m.name) if prefix else m.name
    return {"rawQuery": True, "query": q, "alias": alias, "resultFormat": "time_series"}


def prometheus(m, prefix):
    name = "collectd_%s_%s" % (PLUGIN, m.type)
    if m.ds != "value":
        name += "_" + m.ds
    if m.counter:
        name += "_total"
    labels = ['instance=~"$host"'] + (['type="%s"' % m.tinst] if m.tinst else [])
    if m.pinst.startswith("$"):
        labels.insert(1, '%s=~"%s"' % (PLUGIN, m.pinst))
    else:
        labels.insert(1, '%s="%s"' % (PLUGIN, m.pinst))
    sel = "%s{%s}" % (name, ", ".join(labels))
    expr = "rate(%s[$__rate_interval])" % sel if m.counter else sel
    leg = ("{{%s}} %s" % (PLUGIN, m.name)) if prefix else m.name
    return {"expr": expr, "legendFormat": leg, "range": True}


QUERY = {"graphite": graphite, "influxdb": influxdb, "prometheus": prometheus}
# Graphite: OneValuePerList true (write_graphite drops the long lists).
ONE_VALUE_PER_LIST = {"graphite": True, "influxdb": False, "prometheus": False}


# --- template variables -------------------------------------------------------
# Guests are the upper-case plugin instances (user IDs); reader, system and
# the CPU types are lower case (naming contract).
GUEST_RE = "^%s-([A-Z0-9@#$_+%%-]+)$" % PLUGIN
CPUTYPE_RE = "^%s-(cp|zaap|ifl|icf|ziip|type[0-9]+)$" % PLUGIN


def variables(kind):
    ds = {"type": kind, "uid": "${datasource}"}
    if kind == "graphite":
        q = {"host": ("collectd.*", ""),
             "guest": ("collectd.$host.%s-*" % PLUGIN, "/%s/" % GUEST_RE),
             "cputype": ("collectd.$host.%s-*" % PLUGIN, "/%s/" % CPUTYPE_RE)}
    elif kind == "influxdb":
        # the reader's counters are in zvm_monitor_value, the records'
        # data sources each in zvm_monitor_<ds>
        q = {"host": ('SHOW TAG VALUES FROM "%s_value" WITH KEY = "host"' % PLUGIN, ""),
             "guest": ('SHOW TAG VALUES FROM "%s_transactions" WITH KEY = "instance" '
                       "WHERE \"host\" =~ /^$host$/ AND \"type\" = 'zvm_useite'" % PLUGIN, ""),
             "cputype": ('SHOW TAG VALUES FROM "%s_activated" WITH KEY = "instance" '
                         "WHERE \"host\" =~ /^$host$/ AND \"type\" = 'zvm_prcsmt_cpu'" % PLUGIN,
                         "")}
    else:
        q = {"host": ("label_values(collectd_%s_total_objects_total, instance)" % PLUGIN, ""),
             "guest": ('label_values(collectd_%s_zvm_useite_transactions_total{instance=~"$host"}, %s)'
                       % (PLUGIN, PLUGIN), ""),
             "cputype": ('label_values(collectd_%s_zvm_prcsmt_cpu_activated{instance=~"$host"}, %s)'
                         % (PLUGIN, PLUGIN), "")}
    out = [{"type": "datasource", "name": "datasource", "label": "Data source",
            "query": kind, "current": {}, "hide": 0}]
    for name, label, multi in (("host", "z/VM system (host)", False),
                               ("guest", "Guest", True), ("cputype", "CPU type", True)):
        query, regex = q[name]
        out.append({"type": "query", "name": name, "label": label, "datasource": ds,
                    "query": query, "definition": query, "regex": regex, "refresh": 2,
                    "sort": 1, "multi": multi, "includeAll": multi, "current": {},
                    "hide": 0})
    return out


def dashboard(kind):
    panels = []
    pid = 1
    y = 0
    for row_title, row in ROWS:
        panels.append({"type": "row", "title": row_title, "id": pid, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        pid += 1
        y += 1
        for i, (title, unit, prefix, metrics) in enumerate(row):
            targets = []
            for j, m in enumerate(metrics):
                t = {"refId": chr(ord("A") + j), "datasource": {"type": kind, "uid": "${datasource}"}}
                t.update(QUERY[kind](m.metric(ONE_VALUE_PER_LIST[kind]), prefix))
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
    names = {"graphite": "Graphite", "influxdb": "InfluxDB 1.x", "prometheus": "Prometheus"}
    return {
        "title": "z/VM monitor (zvm_monitor, %s)" % names[kind],
        "uid": "zvm-monitor-%s" % kind,
        "description": "collectd zvm_monitor plugin: per-guest D4R10, multithreading D5R21, "
                       "reader health. %sGenerated by contrib/grafana/make-dashboards.py."
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
