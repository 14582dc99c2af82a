#!/usr/bin/env python3
"""Packs the Sobol initial direction numbers m_1..m_s of Joe and Kuo's
`new-joe-kuo-6.21201` (https://web.maths.unsw.edu.au/~fkuo/sobol/, lines
`d s a m_1 .. m_s`) for dimensions 2..20000 (cuRAND's dimensions 1..19999; its
dimension 0 is van der Corput's) into rand/src/data/joe_kuo_6_m.bin.

Only the m_i are stored: rocm-rand generates the primitive polynomials (s, a) itself
(rand/src/sobol.rs) and this script checks that the file's polynomials are those, in
that order. Each m_i is odd and below 2^i, so (m_i >> 1) takes i - 1 bits; the values
are written dimension after dimension, i = 1..s, least significant bit first, into one
bit stream (the last byte zero-padded).

usage: scripts/pack_joe_kuo.py new-joe-kuo-6.21201 rand/src/data/joe_kuo_6_m.bin
"""
import sys

LAST_DIM = 20000


def primitive(p):
    deg = p.bit_length() - 1
    order = (1 << deg) - 1

    def mulmod(x, y):
        r = 0
        while y:
            if y & 1:
                r ^= x
            y >>= 1
            x <<= 1
            if (x >> deg) & 1:
                x ^= p
        return r

    def powmod(e):
        r, b = 1, 2 % p if deg > 1 else 1
        while e:
            if e & 1:
                r = mulmod(r, b)
            b = mulmod(b, b)
            e >>= 1
        return r

    n, q, primes = order, 2, set()
    while q * q <= n:
        while n % q == 0:
            primes.add(q)
            n //= q
        q += 1
    if n > 1:
        primes.add(n)
    return powmod(order) == 1 and all(powmod(order // q) != 1 for q in primes)


def polynomials(count):
    out, deg = [], 1
    while len(out) < count:
        for p in range(1 << deg, 1 << (deg + 1)):
            if p & 1 and primitive(p):
                out.append(p)
        deg += 1
    return out[:count]


def main(src, dst):
    lines = open(src).read().split("\n")[1:]
    rows = [list(map(int, l.split())) for l in lines if l.strip()]
    rows = [r for r in rows if r[0] <= LAST_DIM]
    assert [r[0] for r in rows] == list(range(2, LAST_DIM + 1)), "dimensions 2..20000 in order"
    polys = polynomials(len(rows))
    bits, nbits = 0, 0
    for r, p in zip(rows, polys):
        d, s, a, ms = r[0], r[1], r[2], r[3:]
        assert len(ms) == s
        assert p == (1 << s) | (a << 1) | 1, f"dimension {d}: polynomial {p} is not s={s} a={a}"
        for i, m in enumerate(ms, start=1):
            assert m % 2 == 1 and m < (1 << i), f"dimension {d}: m_{i} = {m}"
            bits |= (m >> 1) << nbits
            nbits += i - 1
    open(dst, "wb").write(bits.to_bytes((nbits + 7) // 8, "little"))
    print(f"{len(rows)} dimensions, {nbits} bits, {(nbits + 7) // 8} bytes")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
