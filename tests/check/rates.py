"""Rates of rare events for the TCG studies (boot-oops.sh, text-poke.sh):
a 95% Wilson interval and Fisher's exact test. Hand-written: a dozen
lines, where scipy (not a dependency of kbench) would be the only user."""
import math

Z = 1.959964


def wilson(k, n):
    """The 95% Wilson score interval of K events in N trials."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def fisher(a, n1, b, n2):
    """Fisher's exact test, two-sided: A of N1 against B of N2."""
    k, n = a + b, n1 + n2
    if not n1 or not n2:
        return float("nan")

    def p(x):
        return math.comb(n1, x) * math.comb(n2, k - x) / math.comb(n, k)
    p0 = p(a)
    return min(1.0, sum(p(x) for x in range(max(0, k - n2), min(k, n1) + 1) if p(x) <= p0 * (1 + 1e-9)))
