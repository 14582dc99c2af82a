#!/usr/bin/env bash
# Same-call before/after comparison on a CUDA machine: the issue tables a change to kernels or
# their hosts must keep (GEMM table, Level 1, gemv, copy bandwidth), each case run by the
# "before" and the "after" rocm-bench in alternation, `rounds` times.
#
#   bash scripts/gpu-before-after.sh BEFORE AFTER [rounds] [sections]
#
# BEFORE and AFTER are rocm-bench executables built with `--features vendor` (cuBLAS in the
# same run); sections is a comma list of gemm,l1,gemv,bandwidth (default all). Output goes to
# stdout with a `[t+Ns] <binary> <args>` line before each case.
set -uo pipefail
before=$1 after=$2 rounds=${3:-2} sections=${4:-gemm,l1,gemv,bandwidth}
start=$(date +%s)
case_() {
  local bin=$1; shift
  echo "[t+$(($(date +%s) - start))s] $(basename "$bin") $*"
  "$bin" "$@" 2>&1
}
both() { case_ "$before" "$@"; case_ "$after" "$@"; }
gemm_cases=(
  "--dtype bf16 --m 8192 --n 8192 --k 8192"
  "--dtype f16 --m 8192 --n 8192 --k 8192"
  "--dtype tf32 --m 8192 --n 8192 --k 8192"
  "--dtype f32 --m 8192 --n 8192 --k 8192"
  "--dtype f64 --m 8192 --n 8192 --k 8192"
  "--dtype bf16 --m 4097 --n 4097 --k 4097"
  "--dtype bf16 --m 64 --n 8192 --k 8192"
  "--dtype bf16 --m 8192 --n 8192 --k 64"
  "--dtype f32 --m 64 --n 64 --k 64 --batch 10000"
)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv 2>/dev/null
for r in $(seq 1 "$rounds"); do
  echo "== round $r"
  if [[ ,$sections, == *,gemm,* ]]; then
    for c in "${gemm_cases[@]}"; do
      # shellcheck disable=SC2086
      both blas gemm --device cuda:0 --vendor $c
    done
  fi
  [[ ,$sections, == *,l1,* ]] && both blas l1 --device cuda:0 --repeat 5
  if [[ ,$sections, == *,gemv,* ]]; then
    for d in f32 f64; do for t in n t; do
      both blas gemv --device cuda:0 --vendor --dtype $d --trans $t
    done; done
  fi
  [[ ,$sections, == *,bandwidth,* ]] && both bandwidth --device cuda:0
done
