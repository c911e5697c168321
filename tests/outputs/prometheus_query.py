#!/usr/bin/python3
"""The tests' client of a Prometheus server's HTTP API (tests/outputs/prometheus_lib.sh).

  prometheus_query.py URL EXPR
      Evaluates the PromQL expression EXPR now and prints the value of each series of the
      result, one per line ("labels value", labels as {k="v",...}); nothing when it is empty.
      A range vector (EXPR[10s]) prints each series' samples as "labels time=value ...".

Exit status 1 with the server's error on stderr when the query is refused.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def query(url, expr):
    q = urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:
        sys.exit(f"prometheus refused {expr!r}: {e.read().decode(errors='replace')}")
    if body.get("status") != "success":
        sys.exit(f"prometheus answered {body!r} to {expr!r}")
    data = body["data"]
    if data["resultType"] == "scalar":
        print(data["result"][1])
        return
    for s in data["result"]:
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(s["metric"].items()))
        if "values" in s:
            print("{%s} %s" % (labels, " ".join(f"{t}={v}" for t, v in s["values"])))
        else:
            print("{%s} %s" % (labels, s["value"][1]))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    query(sys.argv[1], sys.argv[2])
