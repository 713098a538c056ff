#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check Grafana dashboards against real back ends, as Grafana would query them.

    check.py --graphite URL --influxdb URL --prometheus URL --expect FILE
             [--values FILE] DASHBOARD.json...

For every dashboard (its kind is its "datasource" variable's query): every
query variable is resolved against the back end in order (values must be
exactly the expected ones, "select" picks the value the panels use, one
value or one per kind; textbox and custom variables take their current
value), then every panel's targets run with the variables expanded, once
per single value of the variables they use and once with all values
(Grafana's "All": {a,b} for Graphite, (a|b) in regexes). Hidden targets
only feed Grafana's server-side math expressions ("$A * 100 / $B",
series paired by their labels, as Grafana pairs them), which this script
evaluates itself. The series returned, named as Grafana names them
(Graphite's target, InfluxDB's alias with $tag_X, Prometheus'
legendFormat, a displayName override), must be exactly the panel's
expected names, each with at least one non-null point. A panel without
expectations, a query error or an empty result fails.

--values (tests/dashboards/expected.py) adds what the series must show
with all values selected: each named series' median (or last) point
within 2 % of its value, the series of a group (the legend's first word)
adding up to a total at every time they all have a point, and for a top-N
panel the order of the guests. Standard library only.
"""

import argparse
import itertools
import json
import math
import re
import statistics
import sys
import time
import urllib.parse
import urllib.request

# What Grafana puts in for its built-in variables: a one-hour view, and
# $__rate_interval as Grafana computes it for Prometheus scraping every
# second (4 x the scrape interval). The expectations' "select" picks the
# value of a variable where the first one will not do (the test's records
# are 2 s apart: a rate window of 4 s holds two).
BUILTINS = {"$timeFilter": "time >= now() - 1h", "$__interval": "1s",
            "$__rate_interval": "4s", "$__range": "1h"}
VAR_RE = re.compile(r"\$(\w+)|\$\{(\w+)\}")
TOLERANCE = 0.02
# one time for every query, so that the series of a panel share their steps
NOW = int(time.time())


def get_json(url, params):
    full = url + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(full, timeout=30) as r:
        return json.load(r)


class Series:
    """One result series: Grafana's name, labels and points {t: value}."""

    def __init__(self, name, labels, points):
        self.name, self.labels, self.points = name, labels, points


class Backend:
    def __init__(self, url):
        self.url = url.rstrip("/")

    def fmt(self, values, multi, raw):
        if raw:  # textbox and custom values go in as they are
            return values[0]
        return self.fmt_values(values, multi)


class Graphite(Backend):
    kind = "graphite"

    def fmt_values(self, values, multi):
        return "{%s}" % ",".join(values) if multi else values[0]

    def variable(self, query, regex):
        found = get_json(self.url + "/metrics/find", {"query": query})
        return apply_regex([f["text"] for f in found], regex)

    def run(self, target):
        # less than the one-hour archive (1 s steps) back from the time
        # whisper reads it, lest it read the one-minute archive
        res = get_json(self.url + "/render", {"target": target["target"], "from": NOW - 3000,
                                              "until": NOW, "format": "json"})
        return [Series(s["target"], {}, {t: v for v, t in s["datapoints"] if v is not None})
                for s in res]


def regex_escape(v):
    return re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", v)


class InfluxDB(Backend):
    kind = "influxdb"

    def fmt_values(self, values, multi):
        vals = [regex_escape(v) for v in values]
        return "(%s)" % "|".join(vals) if multi else vals[0]

    def query(self, q):
        res = get_json(self.url + "/query", {"db": "collectd", "q": q, "epoch": "s"})
        r = res["results"][0]
        if "error" in r:
            raise RuntimeError("InfluxDB: %s: %s" % (q, r["error"]))
        return r.get("series", [])

    def variable(self, query, regex):
        vals = [v[1] for s in self.query(query) for v in s["values"]]
        return apply_regex(vals, regex)

    def run(self, target):
        out = []
        table = target.get("resultFormat") == "table"
        for s in self.query(target["query"]):
            cols = s["columns"]
            if table:
                # one row per tag value: named by it, its value the row's
                for row in s["values"]:
                    tags = {c: row[i] for i, c in enumerate(cols)
                            if i > 1 and isinstance(row[i], str)}
                    name = target.get("alias") or s["name"]
                    for k, v in tags.items():
                        name = name.replace("$tag_" + k, v)
                    out.append(Series(name, tags, {row[0]: row[1]}))
                continue
            tags = s.get("tags") or {}
            name = target.get("alias") or s["name"]
            for k, v in tags.items():
                name = name.replace("$tag_" + k, v)
            name = name.replace("$measurement", s["name"]).replace("$m", s["name"])
            out.append(Series(name, tags, {row[0]: row[1] for row in s["values"]
                                           if row[1] is not None}))
        return out


class Prometheus(Backend):
    kind = "prometheus"

    def fmt_values(self, values, multi):
        # inside a PromQL string literal: the regex's backslash is doubled
        vals = [regex_escape(v).replace("\\", "\\\\") for v in values]
        return "(%s)" % "|".join(vals) if multi else vals[0]

    def variable(self, query, regex):
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", query)
        if not m:
            raise RuntimeError("unsupported Prometheus variable query %r" % query)
        now = NOW
        res = get_json(self.url + "/api/v1/series",
                       {"match[]": m.group(1), "start": now - 3600, "end": now})
        vals = sorted({s[m.group(2)] for s in res["data"] if m.group(2) in s})
        return apply_regex(vals, regex)

    def run(self, target):
        now = NOW
        if target.get("instant"):
            res = get_json(self.url + "/api/v1/query", {"query": target["expr"], "time": now})
        else:
            res = get_json(self.url + "/api/v1/query_range",
                           {"query": target["expr"], "start": now - 3600, "end": now,
                            "step": 1})
        if res.get("status") != "success":
            raise RuntimeError("Prometheus: %s: %s" % (target["expr"], res))
        out = []
        for s in res["data"]["result"]:
            name = re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda g: s["metric"].get(g.group(1), ""),
                          target.get("legendFormat") or str(s["metric"]))
            vals = s["values"] if "values" in s else [s["value"]]
            out.append(Series(name, s["metric"], {t: float(v) for t, v in vals
                                                  if not math.isnan(float(v))}))
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


def expand(text, sel, backend):
    """Replace $var / ${var} with the selection's value(s) in the back end's format."""
    for k, v in BUILTINS.items():
        text = text.replace(k, v)

    def sub(m):
        name = m.group(1) or m.group(2)
        if name not in sel:
            return m.group(0)
        values, multi, raw = sel[name]
        return backend.fmt(values, multi, raw)
    return VAR_RE.sub(sub, text)


def used_vars(target, names):
    text = json.dumps(target)
    return [n for n in names if ("$" + n) in text or ("${%s}" % n) in text]


def math_expression(expr, results):
    """Grafana's server-side math over series sets: $X refers to target
    X's series; series are paired by labels (equal, or one set a subset of
    the other's) and by time."""
    refs = sorted(set(re.findall(r"\$(\w+)", expr)), key=len, reverse=True)
    sets = {r: results.get(r, []) for r in refs}
    # the most specific label sets give the result's series
    widest = max(refs, key=lambda r: max((len(s.labels) for s in sets[r]), default=0))
    out = []
    for base in sets[widest]:
        operands = {}
        for r in refs:
            match = [s for s in sets[r] if all(base.labels.get(k) == v
                                               for k, v in s.labels.items())]
            if len(match) != 1:
                break
            operands[r] = match[0]
        else:
            times = set.intersection(*(set(s.points) for s in operands.values()))
            pts = {}
            for t in times:
                e = expr
                for r in refs:
                    e = e.replace("$" + r, "(%r)" % float(operands[r].points[t]))
                try:
                    pts[t] = eval(e, {"__builtins__": {}})  # arithmetic only
                except ZeroDivisionError:
                    pass
            out.append(Series("", dict(base.labels), pts))
    return out


def display_names(panel):
    """refId -> displayName of the panel's byFrameRefID overrides."""
    out = {}
    for o in panel.get("fieldConfig", {}).get("overrides", []):
        if o.get("matcher", {}).get("id") == "byFrameRefID":
            for p in o.get("properties", []):
                if p.get("id") == "displayName":
                    out[o["matcher"]["options"]] = p["value"]
    return out


class Checker:
    def __init__(self, backends, expect, values):
        self.backends = backends
        self.expect = expect
        self.values = values
        self.errors = 0
        self.queries = 0
        self.checked_values = 0

    def err(self, msg):
        print("FAIL: " + msg)
        self.errors += 1

    def want_variable(self, name, kind):
        w = self.expect["variables"][name]
        return sorted(w.get(kind, w.get("*")) if isinstance(w, dict) else w)

    def check(self, path):
        with open(path) as f:
            dash = json.load(f)
        tvars = dash["templating"]["list"]
        kind = next(v["query"] for v in tvars if v["type"] == "datasource")
        be = self.backends[kind]
        self.kind = kind
        title = dash["title"]
        print("%s (%s, %s)" % (path, title, kind))
        # Variables, in order: each may use the ones before.
        values = {}
        raw = set()
        for v in tvars:
            if v["type"] in ("textbox", "custom"):
                values[v["name"]] = [v["current"]["value"]]
                raw.add(v["name"])
                continue
            if v["type"] != "query":
                continue
            sel = self.default_selection(values, raw)
            q = expand(v["query"], sel, be)
            regex = expand(v.get("regex", ""), sel, be)
            try:
                got = be.variable(q, regex)
            except Exception as e:  # an error is a failed query
                self.err("%s: variable $%s (%s): %s" % (title, v["name"], q, e))
                got = []
            self.queries += 1
            want = self.want_variable(v["name"], kind)
            if got != want:
                self.err("%s: variable $%s (%s): got %s, want %s" % (title, v["name"], q, got, want))
            else:
                print("  ok - $%s = %s" % (v["name"], ", ".join(got)))
            values[v["name"]] = got or ["<none>"]
        self.raw = raw
        for panel in walk_panels(dash["panels"]):
            self.check_panel(title, panel, values, be)

    def default_selection(self, values, raw):
        # a value, or one per back-end kind ({"graphite": ..., "*": ...})
        pick = {k: (v.get(self.kind, v.get("*")) if isinstance(v, dict) else v)
                for k, v in self.expect.get("select", {}).items()}
        return {k: ([pick[k]] if k in pick else vals[:1], False, k in raw)
                for k, vals in values.items()}

    def run_panel(self, dtitle, panel, sel, be):
        """{name: Series} of the panel's visible targets, expressions evaluated."""
        results, got = {}, {}
        names = display_names(panel)
        ok = True
        for t in panel["targets"]:
            if t.get("datasource", {}).get("type") == "__expr__":
                if t.get("type") != "math":
                    self.err("%s / %s / %s: expression type %s not supported by the check"
                             % (dtitle, panel["title"], t["refId"], t.get("type")))
                    ok = False
                    continue
                res = math_expression(t["expression"], results)
                for s in res:
                    s.name = re.sub(r"\$\{__field\.labels\.(\w+)\}",
                                    lambda g: s.labels.get(g.group(1), ""),
                                    names.get(t["refId"], t["refId"]))
            else:
                q = {k: (expand(v, sel, be) if isinstance(v, str) else v) for k, v in t.items()}
                try:
                    res = be.run(q)
                except Exception as e:  # an error is a failed query
                    self.err("%s / %s / %s: %s" % (dtitle, panel["title"], t["refId"], e))
                    ok = False
                    continue
                self.queries += 1
                if not res:
                    self.err("%s / %s / %s: no series for %s" % (dtitle, panel["title"],
                                                                t["refId"], describe(q)))
                    ok = False
            results[t["refId"]] = res
            if not t.get("hide"):
                for s in res:
                    if s.name in got:
                        got[s.name].points.update(s.points)
                    else:
                        got[s.name] = s
        return got, ok

    def check_panel(self, dtitle, panel, values, be):
        ptitle = panel["title"]
        want_tmpl = self.expect["panels"].get(ptitle)
        if want_tmpl is None:
            self.err("%s: panel %r has no expectation in the test" % (dtitle, ptitle))
            return
        # variables the expectations pick a value for stay at it
        pvars = sorted({n for t in panel["targets"] for n in used_vars(t, values)}
                       - set(self.expect.get("select", {})) - self.raw)
        no_data = self.expect.get("no_data", {}).get(be.kind, {})
        # every single value of each variable (others at their first), and All
        choices = []
        for name in pvars:
            for val in values[name]:
                if val not in no_data.get(name, []):
                    choices.append({name: ([val], False, False)})
        choices.append({name: ([v for v in values[name] if v not in no_data.get(name, [])],
                               True, False) for name in pvars})
        seen = set()
        for choice in choices:
            key = json.dumps(choice, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            sel = self.default_selection(values, self.raw)
            sel.update(choice)
            got, _ok = self.run_panel(dtitle, panel, sel, be)
            want = set()
            for w in want_tmpl:
                names = [n for n in pvars if ("$" + n) in w]
                for combo in itertools.product(*[sel[n][0] for n in names]):
                    s = w
                    for n, v in zip(names, combo):
                        s = s.replace("$" + n, v)
                    want.add(s)
            label = ", ".join("$%s=%s" % (k, "All" if c[1] else c[0][0]) for k, c in choice.items())
            empty = sorted(n for n, s in got.items() if not s.points)
            top = self.values.get(ptitle, {}).get("top")
            if top and not (len(choice) == len(pvars) and all(c[1] for c in choice.values())):
                want = None  # a top-N panel names the top guests of the selection
            if (want is not None and set(got) != want) or empty or not got:
                self.err("%s / %s [%s]: series %s, want %s%s" % (
                    dtitle, ptitle, label or "-", sorted(got), sorted(want or []),
                    "; no points: %s" % empty if empty else ""))
                continue
            print("  ok - %s [%s]: %d series, %d points" % (
                ptitle, label or "-", len(got), sum(len(s.points) for s in got.values())))
            if ptitle in self.values and (not choice or all(c[1] for c in choice.values())):
                self.check_values(dtitle, ptitle, got)

    def check_values(self, dtitle, ptitle, got):
        exp = self.values[ptitle]
        what = "%s / %s" % (dtitle, ptitle)
        if exp.get("top"):
            order = sorted(exp["series"], key=lambda n: -exp["series"][n])
            mine = sorted(got, key=lambda n: -statistics.mean(got[n].points.values()))
            if mine != order:
                self.err("%s: top guests %s, want %s" % (what, mine, order))
            else:
                print("  ok - %s: order %s" % (ptitle, ", ".join(mine)))
            self.checked_values += 1
            return
        shown = []
        for name, want in sorted(exp["series"].items()):
            s = got.get(name)
            if s is None or not s.points:
                self.err("%s: no series %r for the expected value %g" % (what, name, want))
                continue
            pts = [s.points[t] for t in sorted(s.points)]
            v = pts[-1] if exp.get("agg") == "last" else statistics.median(pts)
            if abs(v - want) > exp.get("tolerance", TOLERANCE) * abs(want) + 1e-9:
                self.err("%s: %s = %.6g (%s of %d points), want %.6g" % (
                    what, name, v, exp.get("agg", "median"), len(pts), want))
            shown.append("%s %.4g" % (name, v))
            self.checked_values += 1
        total = exp.get("sum_per_group")
        if total is not None:
            groups = {}
            for name in exp["series"]:
                groups.setdefault(name.split(" ")[0], []).append(got.get(name))
            for g, members in sorted(groups.items()):
                if None in members:
                    continue
                times = set.intersection(*(set(s.points) for s in members))
                bad = [t for t in times if abs(sum(s.points[t] for s in members) - total) > 0.01]
                if not times or bad:
                    self.err("%s: %s does not add up to %g (%d of %d times)"
                             % (what, g, total, len(bad), len(times)))
                else:
                    shown.append("%s sums to %g at %d times" % (g, total, len(times)))
                self.checked_values += 1
        print("  ok - %s values: %s" % (ptitle, "; ".join(shown)))


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
    p.add_argument("--values", help="expected values (tests/dashboards/expected.py)")
    p.add_argument("dashboards", nargs="+")
    a = p.parse_args(argv)
    with open(a.expect) as f:
        expect = json.load(f)
    values = {}
    if a.values:
        with open(a.values) as f:
            values = json.load(f)["panels"]
    c = Checker({"graphite": Graphite(a.graphite), "influxdb": InfluxDB(a.influxdb),
                 "prometheus": Prometheus(a.prometheus)}, expect, values)
    for d in a.dashboards:
        c.check(d)
    print("dashboards: %d queries, %d values, %d failures" % (c.queries, c.checked_values,
                                                            c.errors))
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
