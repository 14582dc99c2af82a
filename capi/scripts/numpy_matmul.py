"""One `a @ b` on n×n f64 through whatever libblas.so.3 this process loaded.

Usage: numpy_matmul.py N OUT.npy — writes the product and prints the best of three
wall times (seconds) of the product alone. Run by numpy-check.sh once per library.
"""
import sys
import time

import numpy as np

n, out = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(12345)
a = rng.standard_normal((n, n))
b = rng.standard_normal((n, n))
best = float("inf")
for _ in range(3):
    t = time.perf_counter()
    c = a @ b
    best = min(best, time.perf_counter() - t)
np.save(out, c)
print(f"{best:.4f}")
