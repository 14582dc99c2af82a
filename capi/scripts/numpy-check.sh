#!/usr/bin/env bash
# numpy's `a @ b` (n×n f64, default n = 4096) through rocm-capi and through OpenBLAS,
# both loaded as numpy's libblas.so.3 (Debian's python3-numpy links libblas.so.3; a
# directory holding a libblas.so.3 first on LD_LIBRARY_PATH replaces the system one):
# prints both times and the largest difference relative to the OpenBLAS result's scale
# (the two sum 4096 products in different orders: within a few n·u of each other).
#
#   capi/scripts/numpy-check.sh [N]            # ROCM_DEVICE / ROCM_CAPI_THRESHOLD as set
#
# Needs python3-numpy and libopenblas0-pthread (Debian) and a release build of rocm-capi.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-4096}
py=/usr/bin/python3
lib=$PWD/target/release/librocm_capi.so
openblas=$(ls /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3)
[ -f "$lib" ] || { echo "build first: cargo build --release -p rocm-capi"; exit 1; }
tmp=$(mktemp -d)
mkdir -p "$tmp/ours" "$tmp/openblas"
ln -s "$lib" "$tmp/ours/libblas.so.3"
ln -s "$openblas" "$tmp/openblas/libblas.so.3"
t_open=$(LD_LIBRARY_PATH=$tmp/openblas $py capi/scripts/numpy_matmul.py "$n" "$tmp/open.npy")
t_ours=$(LD_LIBRARY_PATH=$tmp/ours $py capi/scripts/numpy_matmul.py "$n" "$tmp/ours.npy")
$py - "$tmp" "$n" "$t_open" "$t_ours" <<'PY'
import sys
import numpy as np
d, n, t_open, t_ours = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
o, r = np.load(f"{d}/open.npy"), np.load(f"{d}/ours.npy")
scale = np.abs(o).max()
diff = np.abs(o - r).max() / scale
u = np.finfo(np.float64).eps / 2
print(f"n = {n}: OpenBLAS {t_open:.3f} s, rocm-capi {t_ours:.3f} s ({t_open / t_ours:.2f}x OpenBLAS)")
print(f"max |ours - OpenBLAS| / max |OpenBLAS| = {diff:.3e} ({diff / (n * u):.4f} n·u)")
sys.exit(0 if diff <= 2 * n * u else 1)
PY
rm -rf "$tmp"
