//! Fused attention, forward and backward, tiled (FlashAttention-2 style) so memory is
//! O(sequence): the Sq×Sk score matrix is never formed.
//!
//! `O = softmax(Q·Kᵀ·scale + mask)·V` per (batch, head), Q of shape [B, Hq, Sq, D], K and
//! V of shape [B, Hkv, Sk, D] with Hkv dividing Hq (grouped-query heads: q head h reads kv
//! head h / (Hq/Hkv)). Masks: padding (key j of batch b exists iff j < key_len[b]) and
//! causal aligned bottom-right (query i sees key j iff j ≤ i + Sk − Sq). A query that sees
//! no key gets O = 0 and logsumexp −∞.
//!
//! Forward walks key blocks with an online softmax (running max m, sum l; O rescaled by
//! e^{m_old − m_new}) and saves L = m + ln l per query. Backward recomputes P = e^{S − L}
//! block by block: with Dᵢ = Σ dOᵢ·Oᵢ, dS = P ∘ (dO·Vᵀ − D), dV = Pᵀ·dO, dK = scale·dSᵀ·Q,
//! dQ = scale·dS·K (a key-block pass for dK, dV and a query-block pass for dQ, so no two
//! tasks write one gradient). Every block product is a rocm-blas GEMM.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rayon::prelude::*;
use rocm_core::linalg::Transpose;
use rocm_core::{BufferSlice, BufferSliceMut, DeviceBuffer, Error, Result};

/// Query rows per block.
const BR: usize = 128;
/// Key columns per block.
const BC: usize = 128;

/// Attention settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttentionDesc {
    /// Multiplies Q·Kᵀ (usually 1/√D).
    pub scale: f32,
    pub causal: bool,
}

/// Validated shapes.
#[derive(Debug, Clone, Copy)]
struct Shape {
    b: usize,
    hq: usize,
    hkv: usize,
    sq: usize,
    sk: usize,
    d: usize,
}

impl Shape {
    fn new<T: DnnFloat>(
        q: &Tensor<'_, T>,
        k: &Tensor<'_, T>,
        v: &Tensor<'_, T>,
        key_len: Option<&[usize]>,
    ) -> Result<Self> {
        let (qd, kd) = (q.desc.dims(), k.desc.dims());
        if qd.len() != 4 {
            return Err(Error::invalid(
                "q",
                format!("has {} dimensions; attention takes [B, H, S, D]", qd.len()),
            ));
        }
        if kd.len() != 4 {
            return Err(Error::invalid(
                "k",
                format!("has {} dimensions; attention takes [B, H, S, D]", kd.len()),
            ));
        }
        if kd[0] != qd[0] {
            return Err(Error::invalid(
                "k",
                format!("batch dimension B is {}, q's is {}", kd[0], qd[0]),
            ));
        }
        if kd[3] != qd[3] {
            return Err(Error::invalid(
                "k",
                format!("head dimension D is {}, q's is {}", kd[3], qd[3]),
            ));
        }
        if kd[1] == 0 || qd[1] % kd[1] != 0 {
            return Err(Error::invalid(
                "k",
                format!("kv heads H = {} must divide q heads {}", kd[1], qd[1]),
            ));
        }
        v.desc.expect_dims("v", kd)?;
        let s = Shape {
            b: qd[0],
            hq: qd[1],
            hkv: kd[1],
            sq: qd[2],
            sk: kd[2],
            d: qd[3],
        };
        if let Some(l) = key_len {
            if l.len() != s.b {
                return Err(Error::invalid(
                    "key_lengths",
                    format!("{} entries for batch {}", l.len(), s.b),
                ));
            }
            if let Some(bad) = l.iter().find(|&&x| x > s.sk) {
                return Err(Error::invalid(
                    "key_lengths",
                    format!("{bad} exceeds the key length {}", s.sk),
                ));
            }
        }
        Ok(s)
    }

    fn kv_head(&self, h: usize) -> usize {
        h / (self.hq / self.hkv)
    }
    fn q_off(&self, b: usize, h: usize, i: usize) -> usize {
        ((b * self.hq + h) * self.sq + i) * self.d
    }
    fn k_off(&self, b: usize, h: usize, j: usize) -> usize {
        ((b * self.hkv + h) * self.sk + j) * self.d
    }
}

/// Which (query, key) pairs are visible.
#[derive(Clone, Copy)]
struct Mask<'a> {
    causal: bool,
    sq: usize,
    sk: usize,
    key_len: Option<&'a [usize]>,
}

impl Mask<'_> {
    fn keys(&self, b: usize) -> usize {
        self.key_len.map_or(self.sk, |l| l[b])
    }
    /// One past the last key query i may see.
    fn key_end(&self, b: usize, i: usize) -> usize {
        let k = self.keys(b);
        if self.causal {
            let lim = i as i64 + self.sk as i64 - self.sq as i64 + 1;
            (lim.clamp(0, k as i64)) as usize
        } else {
            k
        }
    }
}

fn stage<T: DnnFloat>(dnn: &Dnn, t: &Tensor<'_, T>, what: &str) -> Result<DeviceBuffer<f32>> {
    DeviceBuffer::from_slice(dnn.device(), &t.widen(what)?)
}

fn h(b: &DeviceBuffer<f32>) -> Result<&[f32]> {
    b.as_host()
        .ok_or_else(|| Error::unsupported("dnn attention workspace", b.device()))
}

fn hm(b: &mut DeviceBuffer<f32>) -> Result<&mut [f32]> {
    let dev = b.device().clone();
    b.as_host_mut()
        .ok_or_else(|| Error::unsupported("dnn attention workspace", dev))
}

/// S (br×bc, column-major) = scale·Q[i0..]·K[j0..]ᵀ, then P = e^{S − L} with masked
/// entries 0 (L per row; L = −∞ rows give 0).
#[allow(clippy::too_many_arguments)]
fn probs(
    dnn: &Dnn,
    s: &Shape,
    mask: &Mask<'_>,
    (b, hh, i0, br): (usize, usize, usize, usize),
    j0: usize,
    bc: usize,
    q: &DeviceBuffer<f32>,
    k: &DeviceBuffer<f32>,
    scale: f32,
    lse: &[f32],
    p: &mut DeviceBuffer<f32>,
) -> Result<()> {
    let kh = s.kv_head(hh);
    dnn.blas().gemm(
        Transpose::T,
        Transpose::N,
        br,
        bc,
        s.d,
        scale,
        &q.slice(s.q_off(b, hh, i0)..)?,
        s.d,
        &k.slice(s.k_off(b, kh, j0)..)?,
        s.d,
        0.0,
        &mut p.slice_mut(..br * bc)?,
        br,
    )?;
    let ph = hm(p)?;
    // Column by column (contiguous, vectorised across rows); see `crate::simd::exp`.
    let live: Vec<usize> = (0..br)
        .map(|i| match lse[i] > f32::NEG_INFINITY {
            true => mask.key_end(b, i0 + i).saturating_sub(j0),
            false => 0,
        })
        .collect();
    for (j, col) in ph[..br * bc].chunks_exact_mut(br).enumerate() {
        for ((e, &l), &n) in col.iter_mut().zip(lse).zip(&live) {
            let v = crate::simd::exp(*e - l);
            *e = if j < n { v } else { 0.0 };
        }
    }
    Ok(())
}

/// Query blocks 0..n in the order first, last, second, second-to-last, ...: under a
/// causal mask block i costs about i + 1 key blocks, so rayon's contiguous halving hands
/// every thread pairs of equal total cost instead of all light or all heavy blocks.
fn balanced_order(n: usize) -> Vec<usize> {
    let (mut lo, mut hi) = (0, n);
    let mut out = Vec::with_capacity(n);
    while lo < hi {
        out.push(lo);
        lo += 1;
        if lo < hi {
            hi -= 1;
            out.push(hi);
        }
    }
    out
}

/// Running state of one query block's online softmax, and its per-block scratch.
struct Online {
    /// Running row maxima (−∞ before a row has seen a key).
    m: Vec<f32>,
    /// Running row sums of e^{s − m}.
    l: Vec<f32>,
    /// Keys of the current block each row sees (a prefix of the block's columns).
    live: Vec<u32>,
    /// The block's new maxima, its row sums, and e^{m_old − m_new} per row.
    mx: Vec<f32>,
    sum: Vec<f32>,
    alpha: Vec<f32>,
}

impl Online {
    fn new(rows: usize) -> Online {
        Online {
            m: vec![f32::NEG_INFINITY; rows],
            l: vec![0.0; rows],
            live: vec![0; rows],
            mx: vec![0.0; rows],
            sum: vec![0.0; rows],
            alpha: vec![0.0; rows],
        }
    }
}

/// One key block of the online softmax. `p` is the br×bc block of scaled scores
/// (column-major, ld br = rows of `st`), row i seeing its first `st.live[i]` columns;
/// `acc` the br×D accumulator (column-major, ld br). Afterwards p holds e^{s − m_new}
/// (0 where masked), m and l the new running max and sum (l ← l·e^{m_old − m_new} + Σ p),
/// and acc is rescaled by e^{m_old − m_new} (0 for rows that had seen no key), ready for
/// acc += P·V.
///
/// Walks p column by column so every pass reads contiguous memory and vectorises across
/// rows; each row still meets its keys in order j = 0, 1, ..., so the max and the sum
/// do not depend on the walk.
#[inline(always)]
fn softmax_step_body(p: &mut [f32], acc: &mut [f32], st: &mut Online) {
    use crate::simd::exp;
    let br = st.m.len();
    st.mx.copy_from_slice(&st.m);
    for (j, col) in p.chunks_exact(br).enumerate() {
        let j = j as u32;
        for ((x, &e), &n) in st.mx.iter_mut().zip(col).zip(&st.live) {
            if j < n {
                *x = x.max(e);
            }
        }
    }
    st.sum.fill(0.0);
    for (j, col) in p.chunks_exact_mut(br).enumerate() {
        let j = j as u32;
        for (((e, sum), &x), &n) in col.iter_mut().zip(&mut st.sum).zip(&st.mx).zip(&st.live) {
            // Computed for masked entries too (then discarded) so the loop has no branch.
            let v = exp(*e - x);
            *e = if j < n { v } else { 0.0 };
            *sum += *e;
        }
    }
    for i in 0..br {
        let a = if st.m[i] == f32::NEG_INFINITY {
            0.0
        } else {
            exp(st.m[i] - st.mx[i])
        };
        st.alpha[i] = a;
        st.l[i] = st.l[i] * a + st.sum[i];
        st.m[i] = st.mx[i];
    }
    for col in acc.chunks_exact_mut(br) {
        for (y, &a) in col.iter_mut().zip(&st.alpha) {
            *y *= a;
        }
    }
}

/// [`softmax_step_body`] in 8 lanes where the CPU has AVX2 + FMA (`fma`).
fn online_softmax_step(p: &mut [f32], acc: &mut [f32], st: &mut Online, fma: bool) {
    #[cfg(target_arch = "x86_64")]
    if fma {
        // SAFETY: the caller passes `fma` = simd::has_fma(), which found AVX2 and FMA.
        return unsafe { avx2::softmax_step(p, acc, st) };
    }
    let _ = fma;
    softmax_step_body(p, acc, st)
}

/// The vector kernels compiled for AVX2 + FMA; callable only where `simd::has_fma` holds.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Online;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn softmax_step(p: &mut [f32], acc: &mut [f32], st: &mut Online) {
        super::softmax_step_body(p, acc, st)
    }
}

impl Dnn {
    /// o = softmax(q·kᵀ·scale + mask)·v; `lse` (B·Hq·Sq, f32) receives each query's
    /// logsumexp for the backward pass.
    #[allow(clippy::too_many_arguments)]
    pub fn attention_forward<T: DnnFloat>(
        &self,
        desc: &AttentionDesc,
        q: Tensor<'_, T>,
        k: Tensor<'_, T>,
        v: Tensor<'_, T>,
        key_lengths: Option<&[usize]>,
        mut o: TensorMut<'_, T>,
        lse: &mut BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        self.engine("attention_forward")?;
        let s = Shape::new(&q, &k, &v, key_lengths)?;
        o.desc.expect_dims("o", q.desc.dims())?;
        let rows = s.b * s.hq * s.sq;
        if lse.len() != rows {
            return Err(Error::invalid(
                "lse",
                format!("holds {} elements; B·Hq·Sq = {rows}", lse.len()),
            ));
        }
        let mask = Mask {
            causal: desc.causal,
            sq: s.sq,
            sk: s.sk,
            key_len: key_lengths,
        };
        let (qb, kb, vb) = (
            stage(self, &q, "q")?,
            stage(self, &k, "k")?,
            stage(self, &v, "v")?,
        );
        let mut out = rocm_core::host_alloc::try_vec("attention output", rows * s.d, 0f32)?;
        let mut lv = rocm_core::host_alloc::try_vec("attention lse", rows, f32::NEG_INFINITY)?;
        let dev = self.device();
        let fma = crate::simd::has_fma();
        if s.d > 0 && s.sq > 0 {
            // Tasks: (b, h, query block), query blocks in balanced order (see
            // `balanced_order`) and one task per rayon job so idle threads can steal.
            let nqb = s.sq.div_ceil(BR);
            let order = balanced_order(nqb);
            let tasks: Vec<(usize, usize, usize)> = (0..s.b)
                .flat_map(|b| {
                    let order = &order;
                    (0..s.hq).flat_map(move |hh| order.iter().map(move |&qb| (b, hh, qb)))
                })
                .collect();
            let results: Vec<(usize, Vec<f32>, Vec<f32>)> = tasks
                .into_par_iter()
                .with_max_len(1)
                .map(|(b, hh, qbk)| -> Result<(usize, Vec<f32>, Vec<f32>)> {
                    let i0 = qbk * BR;
                    let br = BR.min(s.sq - i0);
                    let mut p = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                    let mut acc = DeviceBuffer::<f32>::zeros(dev, BR * s.d)?;
                    let mut st = Online::new(br);
                    let ends: Vec<usize> = (0..br).map(|i| mask.key_end(b, i0 + i)).collect();
                    let kend = ends.iter().copied().max().unwrap_or(0);
                    let kh = s.kv_head(hh);
                    for j0 in (0..kend).step_by(BC) {
                        let bc = BC.min(s.sk - j0);
                        self.blas().gemm(
                            Transpose::T,
                            Transpose::N,
                            br,
                            bc,
                            s.d,
                            desc.scale,
                            &qb.slice(s.q_off(b, hh, i0)..)?,
                            s.d,
                            &kb.slice(s.k_off(b, kh, j0)..)?,
                            s.d,
                            0.0,
                            &mut p.slice_mut(..br * bc)?,
                            br,
                        )?;
                        for (n, &end) in st.live.iter_mut().zip(&ends) {
                            *n = end.saturating_sub(j0).min(bc) as u32;
                        }
                        let ph = hm(&mut p)?;
                        let ah = hm(&mut acc)?;
                        online_softmax_step(&mut ph[..br * bc], &mut ah[..br * s.d], &mut st, fma);
                        self.blas().gemm(
                            Transpose::N,
                            Transpose::T,
                            br,
                            s.d,
                            bc,
                            1.0,
                            &p.slice(..br * bc)?,
                            br,
                            &vb.slice(s.k_off(b, kh, j0)..)?,
                            s.d,
                            1.0,
                            &mut acc.slice_mut(..br * s.d)?,
                            br,
                        )?;
                    }
                    let ah = h(&acc)?;
                    let mut ob = vec![0f32; br * s.d];
                    let mut lb = vec![f32::NEG_INFINITY; br];
                    for (i, (&m, &l)) in st.m.iter().zip(&st.l).enumerate() {
                        if l > 0.0 {
                            for dd in 0..s.d {
                                ob[i * s.d + dd] = ah[i + dd * br] / l;
                            }
                            lb[i] = m + l.ln();
                        }
                    }
                    Ok((s.q_off(b, hh, i0), ob, lb))
                })
                .collect::<Result<_>>()?;
            for (off, ob, lb) in results {
                out[off..off + ob.len()].copy_from_slice(&ob);
                lv[off / s.d..off / s.d + lb.len()].copy_from_slice(&lb);
            }
        }
        let dev = lse.device().clone();
        lse.as_host_mut()
            .ok_or_else(|| Error::unsupported("dnn attention lse", dev))?
            .copy_from_slice(&lv);
        o.store("o", &out, 1.0, 0.0)
    }

    /// Gradients dq, dk, dv of the forward pass from o, do and the saved logsumexp.
    #[allow(clippy::too_many_arguments)]
    pub fn attention_backward<T: DnnFloat>(
        &self,
        desc: &AttentionDesc,
        q: Tensor<'_, T>,
        k: Tensor<'_, T>,
        v: Tensor<'_, T>,
        o: Tensor<'_, T>,
        d_o: Tensor<'_, T>,
        lse: &BufferSlice<'_, f32>,
        key_lengths: Option<&[usize]>,
        mut dq: TensorMut<'_, T>,
        mut dk: TensorMut<'_, T>,
        mut dv: TensorMut<'_, T>,
    ) -> Result<()> {
        self.engine("attention_backward")?;
        let s = Shape::new(&q, &k, &v, key_lengths)?;
        o.desc.expect_dims("o", q.desc.dims())?;
        d_o.desc.expect_dims("do", q.desc.dims())?;
        dq.desc.expect_dims("dq", q.desc.dims())?;
        dk.desc.expect_dims("dk", k.desc.dims())?;
        dv.desc.expect_dims("dv", k.desc.dims())?;
        let rows = s.b * s.hq * s.sq;
        let lh = lse
            .as_host()
            .ok_or_else(|| Error::unsupported("dnn attention lse", lse.device()))?;
        if lh.len() != rows {
            return Err(Error::invalid(
                "lse",
                format!("holds {} elements; B·Hq·Sq = {rows}", lh.len()),
            ));
        }
        let mask = Mask {
            causal: desc.causal,
            sq: s.sq,
            sk: s.sk,
            key_len: key_lengths,
        };
        let (qb, kb, vb, dob) = (
            stage(self, &q, "q")?,
            stage(self, &k, "k")?,
            stage(self, &v, "v")?,
            stage(self, &d_o, "do")?,
        );
        let ov = o.widen("o")?;
        let doh = h(&dob)?;
        // Dᵢ = Σ_d dO·O.
        let dvec: Vec<f32> = (0..rows)
            .map(|r| (0..s.d).map(|x| doh[r * s.d + x] * ov[r * s.d + x]).sum())
            .collect();
        let dev = self.device();
        let nqb = s.sq.div_ceil(BR);
        let nkb = s.sk.div_ceil(BC);
        let scale = desc.scale;

        // dS (in place in p) = P ∘ (dO·Vᵀ − D)·scale for block (b, h, i0, br) × (j0, bc).
        let ds_block = |b: usize,
                        hh: usize,
                        i0: usize,
                        br: usize,
                        j0: usize,
                        bc: usize,
                        p: &mut DeviceBuffer<f32>,
                        dp: &mut DeviceBuffer<f32>|
         -> Result<()> {
            let kh = s.kv_head(hh);
            let row0 = (b * s.hq + hh) * s.sq + i0;
            probs(
                self,
                &s,
                &mask,
                (b, hh, i0, br),
                j0,
                bc,
                &qb,
                &kb,
                scale,
                &lh[row0..row0 + br],
                p,
            )?;
            self.blas().gemm(
                Transpose::T,
                Transpose::N,
                br,
                bc,
                s.d,
                1.0,
                &dob.slice(s.q_off(b, hh, i0)..)?,
                s.d,
                &vb.slice(s.k_off(b, kh, j0)..)?,
                s.d,
                0.0,
                &mut dp.slice_mut(..br * bc)?,
                br,
            )?;
            let dph = h(dp)?.to_vec();
            let ph = hm(p)?;
            for j in 0..bc {
                for i in 0..br {
                    let e = &mut ph[i + j * br];
                    *e *= (dph[i + j * br] - dvec[row0 + i]) * scale;
                }
            }
            Ok(())
        };
        let visible = |b: usize, i0: usize, br: usize, j0: usize| {
            (0..br).any(|i| mask.key_end(b, i0 + i) > j0)
        };

        // Pass 1: dK, dV per (b, kv head, key block).
        let tasks: Vec<(usize, usize, usize)> = (0..s.b)
            .flat_map(|b| (0..s.hkv).flat_map(move |kh| (0..nkb).map(move |kb| (b, kh, kb))))
            .collect();
        let kv: Vec<(usize, Vec<f32>, Vec<f32>)> = tasks
            .into_par_iter()
            .map(|(b, kh, kbk)| -> Result<(usize, Vec<f32>, Vec<f32>)> {
                let j0 = kbk * BC;
                let bc = BC.min(s.sk - j0);
                let mut p = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                let mut dp = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                let mut pk = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                let mut dkb = DeviceBuffer::<f32>::zeros(dev, BC * s.d.max(1))?;
                let mut dvb = DeviceBuffer::<f32>::zeros(dev, BC * s.d.max(1))?;
                let group = s.hq / s.hkv;
                for hh in kh * group..(kh + 1) * group {
                    for qbk in 0..nqb {
                        let i0 = qbk * BR;
                        let br = BR.min(s.sq - i0);
                        if !visible(b, i0, br, j0) || s.d == 0 {
                            continue;
                        }
                        let row0 = (b * s.hq + hh) * s.sq + i0;
                        probs(
                            self,
                            &s,
                            &mask,
                            (b, hh, i0, br),
                            j0,
                            bc,
                            &qb,
                            &kb,
                            scale,
                            &lh[row0..row0 + br],
                            &mut pk,
                        )?;
                        // dV += Pᵀ·dO.
                        self.blas().gemm(
                            Transpose::T,
                            Transpose::T,
                            bc,
                            s.d,
                            br,
                            1.0,
                            &pk.slice(..br * bc)?,
                            br,
                            &dob.slice(s.q_off(b, hh, i0)..)?,
                            s.d,
                            1.0,
                            &mut dvb.slice_mut(..bc * s.d)?,
                            bc,
                        )?;
                        ds_block(b, hh, i0, br, j0, bc, &mut p, &mut dp)?;
                        // dK += dSᵀ·Q.
                        self.blas().gemm(
                            Transpose::T,
                            Transpose::T,
                            bc,
                            s.d,
                            br,
                            1.0,
                            &p.slice(..br * bc)?,
                            br,
                            &qb.slice(s.q_off(b, hh, i0)..)?,
                            s.d,
                            1.0,
                            &mut dkb.slice_mut(..bc * s.d)?,
                            bc,
                        )?;
                    }
                }
                let (kh_, vh_) = (h(&dkb)?, h(&dvb)?);
                let mut kout = vec![0f32; bc * s.d];
                let mut vout = vec![0f32; bc * s.d];
                for j in 0..bc {
                    for dd in 0..s.d {
                        kout[j * s.d + dd] = kh_[j + dd * bc];
                        vout[j * s.d + dd] = vh_[j + dd * bc];
                    }
                }
                Ok((s.k_off(b, kh, j0), kout, vout))
            })
            .collect::<Result<_>>()?;
        let mut dkv =
            rocm_core::host_alloc::try_vec("attention dk/dv", s.b * s.hkv * s.sk * s.d, 0f32)?;
        let mut dvv = dkv.clone();
        for (off, a, c) in kv {
            dkv[off..off + a.len()].copy_from_slice(&a);
            dvv[off..off + c.len()].copy_from_slice(&c);
        }

        // Pass 2: dQ per (b, q head, query block).
        let tasks: Vec<(usize, usize, usize)> = (0..s.b)
            .flat_map(|b| (0..s.hq).flat_map(move |hh| (0..nqb).map(move |qb| (b, hh, qb))))
            .collect();
        let qs: Vec<(usize, Vec<f32>)> = tasks
            .into_par_iter()
            .map(|(b, hh, qbk)| -> Result<(usize, Vec<f32>)> {
                let i0 = qbk * BR;
                let br = BR.min(s.sq - i0);
                let mut p = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                let mut dp = DeviceBuffer::<f32>::zeros(dev, BR * BC)?;
                let mut dqb = DeviceBuffer::<f32>::zeros(dev, BR * s.d.max(1))?;
                let kh = s.kv_head(hh);
                if s.d > 0 {
                    for kbk in 0..nkb {
                        let j0 = kbk * BC;
                        let bc = BC.min(s.sk - j0);
                        if !visible(b, i0, br, j0) {
                            continue;
                        }
                        ds_block(b, hh, i0, br, j0, bc, &mut p, &mut dp)?;
                        // dQ += dS·K.
                        self.blas().gemm(
                            Transpose::N,
                            Transpose::T,
                            br,
                            s.d,
                            bc,
                            1.0,
                            &p.slice(..br * bc)?,
                            br,
                            &kb.slice(s.k_off(b, kh, j0)..)?,
                            s.d,
                            1.0,
                            &mut dqb.slice_mut(..br * s.d)?,
                            br,
                        )?;
                    }
                }
                let qh = h(&dqb)?;
                let mut out = vec![0f32; br * s.d];
                for i in 0..br {
                    for dd in 0..s.d {
                        out[i * s.d + dd] = qh[i + dd * br];
                    }
                }
                Ok((s.q_off(b, hh, i0), out))
            })
            .collect::<Result<_>>()?;
        let mut dqv = rocm_core::host_alloc::try_vec("attention dq", rows * s.d, 0f32)?;
        for (off, a) in qs {
            dqv[off..off + a.len()].copy_from_slice(&a);
        }
        dq.store("dq", &dqv, 1.0, 0.0)?;
        dk.store("dk", &dkv, 1.0, 0.0)?;
        dv.store("dv", &dvv, 1.0, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::balanced_order;

    #[test]
    fn balanced_order_is_a_permutation_pairing_light_with_heavy() {
        assert_eq!(balanced_order(0), Vec::<usize>::new());
        assert_eq!(balanced_order(5), vec![0, 4, 1, 3, 2]);
        for n in 0..40 {
            let o = balanced_order(n);
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            // Consecutive pairs cost (i + 1) + (n - i) = n + 1 key blocks under a causal mask.
            for pair in o.chunks_exact(2) {
                assert_eq!(pair[0] + pair[1], n - 1);
            }
        }
    }
}
