#!/usr/bin/python3
"""The `le` values ebpf_exporter exposes for a histogram of its YAML, for
collectd_exporter_prometheus.sh: written from its exporter/histogram.go (the keyer) and its
Prometheus client's text writer (strconv.FormatFloat(le, 'g', -1, 64)), not from our output.

  go_le.py exp2|exp2zero|linear MIN MAX MULTIPLIER
      one le a line, bucket MIN to MAX: keyer(bucket)
  go_le.py text X...
      each X (a float) as Go's FormatFloat(X, 'g', -1, 64) writes it
"""
import decimal
import math
import sys


def go_g(x):
    """Go's 'g' with the shortest precision: the shortest digits that read back (Python's repr
    has them too), %e form when the exponent is below -4 or at least 6 (eprec 6 for the
    shortest), the exponent with at least two digits."""
    if x == 0:
        return "0"
    sign, digits, exp = decimal.Decimal(repr(float(x))).normalize().as_tuple()
    d = "".join(map(str, digits))
    e = exp + len(d) - 1  # exponent of the first digit
    s = "-" if sign else ""
    if e < -4 or e >= 6:
        return "%s%s%se%s%02d" % (s, d[0], "." + d[1:] if len(d) > 1 else "", "-" if e < 0 else "+", abs(e))
    if e < 0:
        return s + "0." + "0" * (-e - 1) + d
    if len(d) <= e + 1:
        return s + d + "0" * (e + 1 - len(d))
    return s + d[: e + 1] + "." + d[e + 1 :]


def keyer(kind, mult, b):
    if kind == "exp2":
        return math.ldexp(1, b) * mult
    if kind == "exp2zero":
        return 0.0 if b == 0 else math.ldexp(1, b - 1) * mult
    return b * mult


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "text":
        for x in sys.argv[2:]:
            print(go_g(float(x)))
    elif len(sys.argv) == 5:
        kind, lo, hi, mult = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
        for b in range(lo, hi + 1):
            print(go_g(keyer(kind, mult, b)))
    else:
        sys.exit(__doc__)
