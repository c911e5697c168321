"""Queries graphite-web's HTTP API for the tests, printing plain lines a shell can read.

  graphite_client.py BASE_URL find QUERY
      /metrics/find: one line per node, "leaf|branch ID".
  graphite_client.py BASE_URL render TARGET [FROM]
      /render?format=json: one line per non-null point, "SERIES TIMESTAMP VALUE" (FROM
      defaults to -10min). A target that graphite-web cannot parse or evaluate exits 1.
  graphite_client.py free-ports N
      N TCP ports on 127.0.0.1 that nothing listens on now.

Exit status 1 with the HTTP error on stderr when graphite-web answers with an error.
"""
import json
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request


def get(base, path, params):
    url = f"{base}{path}?{urllib.parse.urlencode(params)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        # graphite-web's error page carries the Python exception in its last lines.
        detail = [line for line in body.splitlines() if "Error" in line or "Exception" in line]
        sys.exit(f"{url}: HTTP {e.code}: {' | '.join(detail[-3:])}")


def find(base, query):
    for node in get(base, "/metrics/find", {"query": query}):
        print("leaf" if node["leaf"] else "branch", node["id"])


def render(base, target, since="-10min"):
    for series in get(base, "/render", {"target": target, "format": "json", "from": since}):
        for value, ts in series["datapoints"]:
            if value is not None:
                print(series["target"], ts, repr(value))


def free_ports(n):
    socks = [socket.socket() for _ in range(int(n))]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    print(" ".join(str(s.getsockname()[1]) for s in socks))
    for s in socks:
        s.close()


if __name__ == "__main__":
    if sys.argv[1] == "free-ports":
        free_ports(sys.argv[2])
    elif sys.argv[2] == "find":
        find(sys.argv[1], sys.argv[3])
    elif sys.argv[2] == "render":
        render(sys.argv[1], *sys.argv[3:5])
    else:
        sys.exit(f"unknown command {sys.argv[2]!r}; see the usage at the top of {sys.argv[0]}")
