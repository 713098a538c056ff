#!/usr/bin/env python3
"""Check Grafana dashboards against real back ends, as Grafana would query them.

    check.py --graphite URL --influxdb URL --prometheus URL --expect FILE DASHBOARD.json...

For every dashboard (its kind is its "datasource" variable's query): every
query variable is resolved against the back end in order (values must be
exactly the expected ones), then every panel's targets run with the
variables expanded, once per single value of the variables they use and
once with all values (Grafana's "All": {a,b} for Graphite, (a|b) in
regexes). The series returned, named as Grafana names them (Graphite's
target, InfluxDB's alias with $tag_X, Prometheus' legendFormat), must be
exactly the panel's expected names, each with at least one non-null
point. A panel without expectations, a query error or an empty result fails.
Standard library only.
"""

import argparse
import itertools
import json
import math
import re
import sys
import time
import urllib.parse
import urllib.request

# What Grafana puts in for its built-in variables (one-hour view).
BUILTINS = {"$timeFilter": "time >= now() - 1h", "$__interval": "1s",
            "$__rate_interval": "1m"}
VAR_RE = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def get_json(url, params):
    full = url + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(full, timeout=30) as r:
        return json.load(r)


class Backend:
    def __init__(self, url):
        self.url = url.rstrip("/")


class Graphite(Backend):
    kind = "graphite"

    def fmt(self, values, multi, regex_context):
        return "{%s}" % ",".join(values) if multi else values[0]

    def variable(self, query, regex):
        found = get_json(self.url + "/metrics/find", {"query": query})
        return apply_regex([f["text"] for f in found], regex)

    def run(self, target):
        res = get_json(self.url + "/render", {"target": target["target"], "from": "-1h",
                                              "until": "now", "format": "json"})
        return {s["target"]: sum(1 for v, _ in s["datapoints"] if v is not None) for s in res}


def regex_escape(v):
    return re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", v)


class InfluxDB(Backend):
    kind = "influxdb"

    def fmt(self, values, multi, regex_context):
        vals = [regex_escape(v) for v in values]
        return "(%s)" % "|".join(vals) if multi else vals[0]

    def query(self, q):
        res = get_json(self.url + "/query", {"db": "collectd", "q": q, "epoch": "ms"})
        r = res["results"][0]
        if "error" in r:
            raise RuntimeError("InfluxDB: %s: %s" % (q, r["error"]))
        return r.get("series", [])

    def variable(self, query, regex):
        vals = [v[1] for s in self.query(query) for v in s["values"]]
        return apply_regex(vals, regex)

    def run(self, target):
        out = {}
        for s in self.query(target["query"]):
            name = target.get("alias") or s["name"]
            for k, v in (s.get("tags") or {}).items():
                name = name.replace("$tag_" + k, v)
            name = name.replace("$measurement", s["name"]).replace("$m", s["name"])
            out[name] = out.get(name, 0) + sum(1 for row in s["values"] if row[1] is not None)
        return out


class Prometheus(Backend):
    kind = "prometheus"

    def fmt(self, values, multi, regex_context):
        # inside a PromQL string literal: the regex's backslash is doubled
        vals = [regex_escape(v).replace("\\", "\\\\") for v in values]
        return "(%s)" % "|".join(vals) if multi else vals[0]

    def variable(self, query, regex):
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", query)
        if not m:
            raise RuntimeError("unsupported Prometheus variable query %r" % query)
        now = time.time()
        res = get_json(self.url + "/api/v1/series",
                       {"match[]": m.group(1), "start": now - 3600, "end": now})
        vals = sorted({s[m.group(2)] for s in res["data"] if m.group(2) in s})
        return apply_regex(vals, regex)

    def run(self, target):
        now = time.time()
        res = get_json(self.url + "/api/v1/query_range",
                       {"query": target["expr"], "start": now - 3600, "end": now, "step": 1})
        if res.get("status") != "success":
            raise RuntimeError("Prometheus: %s: %s" % (target["expr"], res))
        out = {}
        for s in res["data"]["result"]:
            name = re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda g: s["metric"].get(g.group(1), ""),
                          target.get("legendFormat") or str(s["metric"]))
            n = sum(1 for _, v in s["values"] if not math.isnan(float(v)))
            out[name] = out.get(name, 0) + n
        return out


def apply_regex(values, regex):
    """Grafana's variable regex: keep matches, the first group is the value."""
    if not regex:
        return sorted(set(values))
    rx = re.compile(regex.strip("/"))
    out = set()
    for v in values:
        m = rx.search(v)
        if m:
            out.add(m.group(1) if m.groups() else v)
    return sorted(out)


def expand(text, sel, backend, regex_context=True):
    """Replace $var / ${var} with the selection's value(s) in the back end's format."""
    for k, v in BUILTINS.items():
        text = text.replace(k, v)

    def sub(m):
        name = m.group(1) or m.group(2)
        if name not in sel:
            return m.group(0)
        values, multi = sel[name]
        return backend.fmt(values, multi, regex_context)
    return VAR_RE.sub(sub, text)


def used_vars(target, names):
    text = json.dumps(target)
    return [n for n in names if ("$" + n) in text or ("${%s}" % n) in text]


class Checker:
    def __init__(self, backends, expect):
        self.backends = backends
        self.expect = expect
        self.errors = 0
        self.queries = 0

    def err(self, msg):
        print("FAIL: " + msg)
        self.errors += 1

    def check(self, path):
        with open(path) as f:
            dash = json.load(f)
        tvars = dash["templating"]["list"]
        kind = next(v["query"] for v in tvars if v["type"] == "datasource")
        be = self.backends[kind]
        title = dash["title"]
        print("%s (%s, %s)" % (path, title, kind))
        # Variables, in order: each may use the ones before.
        values = {}
        for v in tvars:
            if v["type"] != "query":
                continue
            sel = {k: (vals[:1], False) for k, vals in values.items()}
            q = expand(v["query"], sel, be)
            try:
                got = be.variable(q, v.get("regex", ""))
            except Exception as e:  # an error is a failed query
                self.err("%s: variable $%s (%s): %s" % (title, v["name"], q, e))
                got = []
            self.queries += 1
            want = sorted(self.expect["variables"][v["name"]])
            if got != want:
                self.err("%s: variable $%s (%s): got %s, want %s" % (title, v["name"], q, got, want))
            else:
                print("  ok - $%s = %s" % (v["name"], ", ".join(got)))
            values[v["name"]] = got or ["<none>"]
        for panel in walk_panels(dash["panels"]):
            self.check_panel(title, panel, values, be)

    def check_panel(self, dtitle, panel, values, be):
        ptitle = panel["title"]
        want_tmpl = self.expect["panels"].get(ptitle)
        if want_tmpl is None:
            self.err("%s: panel %r has no expectation in the test" % (dtitle, ptitle))
            return
        pvars = sorted({n for t in panel["targets"] for n in used_vars(t, values)} - {"host"})
        # every single value of each variable (others at their first), and All
        choices = []
        for name in pvars:
            for val in values[name]:
                choices.append({name: ([val], False)})
        choices.append({name: (values[name], True) for name in pvars})
        seen = set()
        for choice in choices:
            key = json.dumps(choice, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            sel = {k: (vals[:1], False) for k, vals in values.items()}
            sel.update(choice)
            got = {}
            for t in panel["targets"]:
                q = {k: (expand(v, sel, be) if isinstance(v, str) else v) for k, v in t.items()}
                try:
                    res = be.run(q)
                except Exception as e:  # an error is a failed query
                    self.err("%s / %s / %s: %s" % (dtitle, ptitle, t["refId"], e))
                    continue
                self.queries += 1
                if not res:
                    self.err("%s / %s / %s: no series for %s" % (dtitle, ptitle, t["refId"],
                                                                describe(q)))
                for name, n in res.items():
                    got[name] = got.get(name, 0) + n
            want = set()
            for w in want_tmpl:
                names = [n for n in pvars if ("$" + n) in w]
                for combo in itertools.product(*[sel[n][0] for n in names]):
                    s = w
                    for n, v in zip(names, combo):
                        s = s.replace("$" + n, v)
                    want.add(s)
            label = ", ".join("$%s=%s" % (k, "All" if c[1] else c[0][0]) for k, c in choice.items())
            empty = sorted(n for n, c in got.items() if c == 0)
            if set(got) != want or empty:
                self.err("%s / %s [%s]: series %s, want %s%s" % (
                    dtitle, ptitle, label or "-", sorted(got), sorted(want),
                    "; no points: %s" % empty if empty else ""))
            else:
                print("  ok - %s [%s]: %d series, %d points" % (ptitle, label or "-", len(got),
                                                               sum(got.values())))


def describe(t):
    return t.get("target") or t.get("query") or t.get("expr")


def walk_panels(panels):
    for p in panels:
        if p.get("type") == "row":
            yield from walk_panels(p.get("panels", []))
        else:
            yield p


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--graphite", required=True)
    p.add_argument("--influxdb", required=True)
    p.add_argument("--prometheus", required=True)
    p.add_argument("--expect", required=True)
    p.add_argument("dashboards", nargs="+")
    a = p.parse_args(argv)
    with open(a.expect) as f:
        expect = json.load(f)
    c = Checker({"graphite": Graphite(a.graphite), "influxdb": InfluxDB(a.influxdb),
                 "prometheus": Prometheus(a.prometheus)}, expect)
    for d in a.dashboards:
        c.check(d)
    print("dashboards: %d queries, %d failures" % (c.queries, c.errors))
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
