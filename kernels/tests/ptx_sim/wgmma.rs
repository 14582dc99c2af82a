//! The sm_90a asynchronous instructions, read from the PTX ISA independently of the
//! generator: `cp.async` with zero fill, and `wgmma.mma_async` with shared-memory
//! matrix descriptors in the 128-byte swizzle mode.
//!
//! ## Descriptors (PTX ISA "Matrix Descriptor Format")
//! Bits 0–13: start address >> 4; 16–29: leading-dimension byte offset >> 4; 32–45:
//! stride-dimension byte offset >> 4; 49–51: base offset (must be 0 here); 62–63:
//! swizzle mode (1 = 128-byte, the only one accepted here).
//!
//! ## Canonical layouts, 128-byte swizzle (T = 16 / element size elements per 16 bytes)
//! Element (x, κ) of an operand (x along M or N, κ along K of the instruction), as a
//! byte offset from the start address before swizzling:
//! - K-major (no transpose): rows of 128 bytes along K, 8 rows per 1024-byte atom:
//!   `(x mod 8)·128 + (x div 8)·SBO + κ·size` (the instruction's K·size is 32 bytes,
//!   inside one row, so LBO plays no part).
//! - MN-major (transpose immediate 1): rows of 128 bytes along x (8·T elements), one row
//!   per κ, 8 κ-rows per atom: `(x mod 8T)·size + (x div 8T)·LBO + (κ mod 8)·128 +
//!   (κ div 8)·SBO`.
//!
//! Swizzle: the 16-byte chunk bits 4–6 of the address are XORed with bits 7–9.
//!
//! ## Accumulator fragment (m64nN, f32)
//! Thread r of the warpgroup (warp w = r / 32, lane g = (r % 32) / 4, t = r % 4) holds in
//! its register q: D[16w + g + 8·((q mod 4) div 2)][8·(q div 4) + 2t + q mod 2].

use super::{Arg, Inst, Kernel, Memory, Thread};

impl Kernel {
    /// Sizes the dynamic shared memory (`.extern .shared`) of every block, for kernels
    /// whose only shared array it is (it replaces any static size).
    pub fn set_dynamic_shared(&mut self, bytes: usize) {
        self.shared_bytes = bytes;
    }

    /// `cp.async.cg.shared.global [dst], [src], 16, n` (and `.ca` with 4, 8 or 16
    /// bytes): copies `n` bytes, zero-fills the rest of the copy size; no global access
    /// when n = 0. Both addresses must be aligned to the copy size.
    pub(super) fn cp_async(
        &self,
        inst: &Inst,
        t: &mut Thread,
        mem: &mut Memory,
        shared: &mut [u8],
    ) {
        let name = inst.op.join(".");
        if matches!(
            name.as_str(),
            "cp.async.commit_group" | "cp.async.wait_group"
        ) {
            // The copies are already done.
            return;
        }
        let size = match (name.as_str(), &inst.args[2]) {
            ("cp.async.cg.shared.global", Arg::Imm(16)) => 16,
            ("cp.async.ca.shared.global", Arg::Imm(s @ (4 | 8 | 16))) => *s as usize,
            _ => panic!("`{}`", inst.text),
        };
        let addr = |a: &Arg| -> u64 {
            match a {
                Arg::Mem(base, off) => {
                    let Arg::Reg(r) = **base else {
                        panic!("`{}`", inst.text)
                    };
                    t.regs[r].wrapping_add(*off as u64)
                }
                other => panic!("{other:?} in `{}`", inst.text),
            }
        };
        let (dst, src) = (addr(&inst.args[0]), addr(&inst.args[1]));
        assert_eq!(
            dst % size as u64,
            0,
            "`{}`: shared destination {dst:#x}",
            inst.text
        );
        let dst = super::shared_offset(dst, &inst.text);
        let n = match inst.args[3] {
            Arg::Reg(r) => t.regs[r] as usize,
            Arg::Imm(v) => v as usize,
            ref other => panic!("{other:?} in `{}`", inst.text),
        };
        assert!(n <= size, "`{}`: {n} source bytes", inst.text);
        assert!(
            dst + size <= shared.len(),
            "`{}`: shared {dst:#x} out of range",
            inst.text
        );
        let mut chunk = [0u8; 16];
        if n > 0 {
            assert_eq!(
                src % size as u64,
                0,
                "`{}`: global source {src:#x}",
                inst.text
            );
            chunk[..n].copy_from_slice(mem.locate(src, n, &inst.text));
        }
        shared[dst..dst + size].copy_from_slice(&chunk[..size]);
    }

    /// `wgmma.mma_async.sync.aligned.m64nNkK.f32.<ab>.<ab> {d}, da, db, scale_d, 1, 1[, ta, tb]`
    /// for the 128 threads of one warpgroup: D = A·B + (scale_d ? D : 0), the products
    /// and their sum in f64, rounded once to f32.
    pub(super) fn wgmma(&self, inst: &Inst, group: &mut [Thread], shared: &[u8]) {
        let op: Vec<&str> = inst.op.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            &op[..4],
            ["wgmma", "mma_async", "sync", "aligned"],
            "`{}`",
            inst.text
        );
        let shape = op[4];
        let (n, k) = {
            let rest = shape.strip_prefix("m64n").expect("m64 shape");
            let (n, k) = rest.split_once('k').unwrap();
            (n.parse::<usize>().unwrap(), k.parse::<usize>().unwrap())
        };
        assert_eq!(op[5], "f32", "`{}`: f32 accumulation only", inst.text);
        let ab = op[6];
        assert_eq!(op[7], ab, "`{}`", inst.text);
        let size = if ab == "tf32" { 4 } else { 2 };
        assert_eq!(k * size, 32, "`{}`: K is 32 bytes", inst.text);
        let decode = |bits: u64| -> f64 {
            match ab {
                "f16" => super::f16_to_f64(bits as u16),
                "bf16" => f32::from_bits((bits as u32) << 16) as f64,
                // tf32: the top 19 bits of the f32 pattern.
                "tf32" => f32::from_bits(bits as u32 & 0xFFFF_E000) as f64,
                other => panic!("`{}`: type {other}", inst.text),
            }
        };
        let Arg::List(d) = &inst.args[0] else {
            panic!("`{}`", inst.text)
        };
        assert_eq!(d.len(), n / 2, "`{}`: accumulator count", inst.text);
        // Uniform operands: every thread must pass the same descriptors and flags.
        let uniform = |a: &Arg| -> u64 {
            let v = |t: &Thread| match a {
                Arg::Reg(r) => t.regs[*r],
                Arg::Imm(v) => *v,
                other => panic!("{other:?} in `{}`", inst.text),
            };
            let first = v(&group[0]);
            assert!(
                group.iter().all(|t| v(t) == first),
                "`{}`: operand differs across the warpgroup",
                inst.text
            );
            first
        };
        let (da, db, scale_d) = (
            uniform(&inst.args[1]),
            uniform(&inst.args[2]),
            uniform(&inst.args[3]) != 0,
        );
        assert_eq!(uniform(&inst.args[4]), 1, "`{}`: imm-scale-a", inst.text);
        assert_eq!(uniform(&inst.args[5]), 1, "`{}`: imm-scale-b", inst.text);
        let (ta, tb) = if ab == "tf32" {
            assert_eq!(
                inst.args.len(),
                6,
                "`{}`: tf32 takes no transpose",
                inst.text
            );
            (false, false)
        } else {
            (uniform(&inst.args[6]) != 0, uniform(&inst.args[7]) != 0)
        };
        // Element (x, κ) of an operand by its descriptor and major-ness.
        let element = |desc: u64, mn_major: bool, x: usize, kk: usize| -> f64 {
            let start = ((desc & 0x3FFF) << 4) as usize;
            let lbo = (((desc >> 16) & 0x3FFF) << 4) as usize;
            let sbo = (((desc >> 32) & 0x3FFF) << 4) as usize;
            assert_eq!((desc >> 49) & 7, 0, "`{}`: base offset", inst.text);
            assert_eq!(desc >> 62, 1, "`{}`: only the 128-byte swizzle", inst.text);
            let per_row = 128 / size;
            let off = if mn_major {
                (x % per_row) * size + (x / per_row) * lbo + (kk % 8) * 128 + (kk / 8) * sbo
            } else {
                (x % 8) * 128 + (x / 8) * sbo + kk * size
            };
            let addr = start + off;
            let swizzled =
                super::shared_offset((addr ^ (((addr >> 7) & 7) << 4)) as u64, &inst.text);
            assert!(
                swizzled + size <= shared.len(),
                "`{}`: shared read at {swizzled:#x} out of range",
                inst.text
            );
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(&shared[swizzled..swizzled + size]);
            decode(u64::from_le_bytes(b))
        };
        let a: Vec<Vec<f64>> = (0..64)
            .map(|i| (0..k).map(|kk| element(da, ta, i, kk)).collect())
            .collect();
        let b: Vec<Vec<f64>> = (0..n)
            .map(|j| (0..k).map(|kk| element(db, tb, j, kk)).collect())
            .collect();
        for (r, t) in group.iter_mut().enumerate() {
            let (w, g, q4) = (r / 32, (r % 32) / 4, r % 4);
            for (q, &reg) in d.iter().enumerate() {
                let row = 16 * w + g + 8 * ((q % 4) / 2);
                let col = 8 * (q / 4) + 2 * q4 + q % 2;
                let old = if scale_d {
                    f32::from_bits(t.regs[reg] as u32) as f64
                } else {
                    0.0
                };
                let sum: f64 = (0..k).map(|kk| a[row][kk] * b[col][kk]).sum();
                t.regs[reg] = ((old + sum) as f32).to_bits() as u64;
            }
        }
    }
}
