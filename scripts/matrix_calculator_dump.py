#!/usr/bin/env python3
# Dumps the calculator's full register layouts: one file per (arch, instruction),
# lines "<matrix> <row> <col> <reg> <lane> <bit> <width>" (one line per replica).
#
# Usage: scripts/matrix_calculator_dump.py CALCULATOR_DIR OUT_DIR
#   CALCULATOR_DIR: a checkout of github.com/ROCm/amd_matrix_instruction_calculator
#   then: ROCM_MATRIX_CALC_DUMP=OUT_DIR cargo test -p rocm-core --lib calculator_dump_agrees
import os, re, subprocess, sys
CALC, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
ARCH = {"gfx908": "cdna1", "gfx90a": "cdna2", "gfx942": "cdna3", "gfx1100": "rdna3"}
INSTR = {
 "gfx908": "v_mfma_f32_32x32x2f32 v_mfma_f32_16x16x4f32 v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16 v_mfma_f32_32x32x4bf16 v_mfma_f32_16x16x8bf16 v_mfma_i32_32x32x8i8 v_mfma_i32_16x16x16i8",
 "gfx90a": "v_mfma_f32_32x32x2f32 v_mfma_f32_16x16x4f32 v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16 v_mfma_f32_32x32x4bf16 v_mfma_f32_16x16x8bf16 v_mfma_f32_32x32x8bf16_1k v_mfma_f32_16x16x16bf16_1k v_mfma_f64_16x16x4f64 v_mfma_i32_32x32x8i8 v_mfma_i32_16x16x16i8",
 "gfx942": "v_mfma_f32_32x32x2_f32 v_mfma_f32_16x16x4_f32 v_mfma_f32_32x32x8_f16 v_mfma_f32_16x16x16_f16 v_mfma_f32_32x32x8_bf16 v_mfma_f32_16x16x16_bf16 v_mfma_f64_16x16x4_f64 v_mfma_i32_32x32x16_i8 v_mfma_i32_16x16x32_i8 v_mfma_f32_32x32x4_xf32 v_mfma_f32_16x16x8_xf32 v_mfma_f32_32x32x16_fp8_fp8 v_mfma_f32_16x16x32_fp8_fp8",
 "gfx1100": "v_wmma_f32_16x16x16_f16 v_wmma_f32_16x16x16_bf16 v_wmma_f16_16x16x16_f16 v_wmma_bf16_16x16x16_bf16 v_wmma_i32_16x16x16_iu8 v_wmma_i32_16x16x16_iu4",
}
cell = re.compile(r"v(?:(\d+)|\[(\d+):(\d+)\])\{(\d+)\}(?:\.\[(\d+):(\d+)\])?")
for t, names in INSTR.items():
    for ins in names.split():
        out = []
        mats = [("A", []), ("B", []), ("C", []), ("D", [])]
        if ins.startswith("v_wmma_f16") or ins.startswith("v_wmma_bf16"):
            mats += [("C4", ["--opsel", "4"]), ("D4", ["--opsel", "4"])]
        for m, extra in mats:
            cmd = ["python3", os.path.join(CALC, "matrix_calculator.py"), "-a", ARCH[t], "-i", ins, "-" + m[0], "-R", "-c"] + extra
            if "wmma" in ins: cmd += ["-w", "32"]
            txt = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            for line in txt.splitlines():
                f = line.split(",")
                if len(f) < 2 or not f[0].isdigit(): continue
                row = int(f[0])
                for col, c in enumerate(f[1:]):
                    for g in cell.finditer(c):
                        if g.group(1) is not None: reg, nregs = int(g.group(1)), 1
                        else: reg, nregs = int(g.group(3)), int(g.group(2)) - int(g.group(3)) + 1
                        lane = int(g.group(4))
                        if g.group(5) is not None: bit, width = int(g.group(6)), int(g.group(5)) - int(g.group(6)) + 1
                        else: bit, width = 0, 32 * nregs
                        out.append(f"{m} {row} {col} {reg} {lane} {bit} {width}")
        open(os.path.join(OUT, f"{t}_{ins}.txt"), "w").write("\n".join(out) + "\n")
        print(t, ins, len(out))
