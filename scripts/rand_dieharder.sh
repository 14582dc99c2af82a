#!/usr/bin/env bash
# The Dieharder battery on rocm-rand's generators (a bench, not CI): each generator's
# u32 stream (rand/examples/rand_stream.rs, CPU device, seed 1234) is piped raw into
# `dieharder -a -g 200`, one generator at a time under `nice -n 19`. The stream runs
# until dieharder has read what it needs (more than 2^30 words for the whole battery).
#
# usage: scripts/rand_dieharder.sh OUTDIR [generator ...]
#   (default generators: philox threefry xorwow mrg32k3a)
# Writes OUTDIR/<generator>.txt (dieharder's report) and prints a summary line per
# generator: the tests PASSED / WEAK / FAILED.
set -euo pipefail
out=${1:?usage: scripts/rand_dieharder.sh OUTDIR [generator ...]}
shift
gens=("$@")
[ ${#gens[@]} -gt 0 ] || gens=(philox threefry xorwow mrg32k3a)
mkdir -p "$out"
bin=${RAND_STREAM:-target/release/examples/rand_stream}
[ -x "$bin" ] || { echo "build it first: cargo build -p rocm-rand --release --example rand_stream" >&2; exit 1; }
for g in "${gens[@]}"; do
    start=$(date -u +%FT%TZ)
    nice -n 19 "$bin" "$g" 1234 2> "$out/$g.stream" | nice -n 19 dieharder -a -g 200 > "$out/$g.txt" 2>&1 || true
    p=$(grep -c PASSED "$out/$g.txt" || true)
    w=$(grep -c WEAK "$out/$g.txt" || true)
    f=$(grep -c FAILED "$out/$g.txt" || true)
    echo "$g: started $start, ended $(date -u +%FT%TZ): $p PASSED, $w WEAK, $f FAILED; $(cat "$out/$g.stream")"
done
