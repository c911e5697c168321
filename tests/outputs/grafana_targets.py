"""Lists every Graphite query of a Grafana dashboard, as Grafana would send it for one host.

Usage: grafana_targets.py DASHBOARD.json HOST

Prints one line per target: "PANEL-ID<TAB>TARGET<TAB>PATH[ PATH...]", where TARGET has the
dashboard's $host / ${host} replaced by HOST and the PATHs are the series patterns inside it
(what /metrics/find can look up). Exits 1 naming the panel when the dashboard is not what
the test expects: a panel without targets, a target without a series path, a panel whose
data source is not the dashboard's Graphite variable, or a variable other than
datasource and host (the test could not fill it in).
"""
import json
import re
import sys

path, host = sys.argv[1:3]
with open(path) as f:
    dash = json.load(f)

variables = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
if set(variables) != {"datasource", "host"} or variables["datasource"].get("query") != "graphite":
    sys.exit(f"{path}: templating must be exactly a graphite 'datasource' and 'host'; it has {sorted(variables)}")


def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))   # a row's panels (collapsed rows nest them)


# A series path: dotted words that may hold graphite globs (* [0-9] {a,b}: a comma only
# inside braces, elsewhere it separates function arguments), starting at HOST.
word = r"(?:[A-Za-z0-9_*+\[\]\-]|\{[^{}]*\})+"
series = re.compile(r"%s(?:\.%s)+" % (re.escape(host), word))
count = 0
for p in panels(dash["panels"]):
    if p.get("type") == "row":
        continue
    title = f"panel {p.get('id')} ({p.get('title')!r})"
    if p.get("datasource", {}).get("uid") != "${datasource}":
        sys.exit(f"{path}: {title} does not use the dashboard's ${{datasource}} variable")
    targets = p.get("targets") or []
    if not targets:
        sys.exit(f"{path}: {title} has no targets")
    for t in targets:
        target = re.sub(r"\$\{host\}|\$host\b", host, t["target"])
        if "$" in target:
            sys.exit(f"{path}: {title}: target {t['target']!r} uses a variable other than $host")
        paths = series.findall(target)
        if not paths:
            sys.exit(f"{path}: {title}: target {t['target']!r} names no series under $host")
        print(f"{p.get('id')}\t{target}\t{' '.join(paths)}")
        count += 1
if count == 0:
    sys.exit(f"{path}: no targets at all")
