//! Fused attention against the naive O(s²) formula: random shapes with odd sequence
//! lengths, grouped-query heads, causal and padding masks, head dims 64 and 128; the
//! reference gradient against finite differences of the reference forward.

mod common;
use common::*;
use proptest::prelude::*;
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::reference::{self as r, AttnShape};
use rocm_dnn::*;

const U: f64 = f32::EPSILON as f64 / 2.0;

fn run(a: &AttnShape, key_len: Option<&[usize]>, seed: u64, mem: Mem) {
    let dnn = dnn();
    let qdims = [a.b, a.hq, a.sq, a.d];
    let kdims = [a.b, a.hkv, a.sk, a.d];
    let q = random::<f32>(&qdims, mem, seed);
    let k = random::<f32>(&kdims, mem, seed + 1);
    let v = random::<f32>(&kdims, Mem::Packed(false), seed + 2);
    let d_o = random::<f32>(&qdims, mem, seed + 3);
    let (ql, kl, vl, dol) = (q.logical(), k.logical(), v.logical(), d_o.logical());
    let desc = AttentionDesc {
        scale: a.scale as f32,
        causal: a.causal,
    };
    let mut o = zeros::<f32>(&qdims, Mem::Packed(false));
    let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), a.b * a.hq * a.sq).unwrap();
    dnn.attention_forward(
        &desc,
        q.t(),
        k.t(),
        v.t(),
        key_len,
        o.tm(),
        &mut lse.as_slice_mut(),
    )
    .unwrap();
    let want = r::attention(a, &ql, &kl, &vl, key_len);
    // Scores carry ≤ d·u·scale·Σ|q||k| ≤ d²·u·scale error; a score error δ changes p by
    // ≤ 2δ relative, so |Δo| ≤ (2d²·u·scale + 4(sk + d)·u)·max|v| with |v| ≤ 1.
    let tol = 2.0 * (a.d * a.d) as f64 * U * a.scale + 4.0 * (a.sk + a.d) as f64 * U;
    assert_close(&format!("o {a:?}"), &o.logical(), &want, |_| tol);
    let (wdq, wdk, wdv) = r::attention_backward(a, &ql, &kl, &vl, &dol, key_len);
    let (mut dq, mut dk, mut dv) = (
        zeros::<f32>(&qdims, mem),
        zeros::<f32>(&kdims, Mem::Packed(false)),
        zeros::<f32>(&kdims, mem),
    );
    dnn.attention_backward(
        &desc,
        q.t(),
        k.t(),
        v.t(),
        o.t(),
        d_o.t(),
        &lse.as_slice(),
        key_len,
        dq.tm(),
        dk.tm(),
        dv.tm(),
    )
    .unwrap();
    // Gradients sum ≤ sk (dq) or group·sq (dk, dv) terms each carrying the forward's
    // relative error: scale the forward bound by the term count and |d| magnitudes.
    let g = (a.hq / a.hkv) as f64;
    let terms = (a.sk as f64).max(g * a.sq as f64);
    let gtol = tol * terms * (1.0 + a.scale * a.d as f64) * 4.0;
    assert_close(&format!("dv {a:?}"), &dv.logical(), &wdv, |_| gtol);
    assert_close(&format!("dk {a:?}"), &dk.logical(), &wdk, |_| gtol);
    assert_close(&format!("dq {a:?}"), &dq.logical(), &wdq, |_| gtol);
}

fn shape() -> impl Strategy<Value = (AttnShape, Option<Vec<usize>>)> {
    (
        1usize..=2,
        1usize..=2,
        1usize..=3,
        1usize..=150,
        1usize..=150,
        prop::sample::select(vec![1usize, 3, 8, 17]),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(b, hkv, grp, sq, sk, d, causal, pad, s)| {
            let a = AttnShape {
                b,
                hq: hkv * grp,
                hkv,
                sq,
                sk,
                d,
                scale: 1.0 / (d as f64).sqrt(),
                causal,
            };
            let kl = pad.then(|| {
                (0..b)
                    .map(|i| ((s >> (8 * i)) as usize) % (sk + 1))
                    .collect()
            });
            (a, kl)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn attention_matches_naive((a, kl) in shape(), seed in 0u64..1000) {
        run(&a, kl.as_deref(), seed, if seed % 2 == 0 { Mem::Packed(false) } else { Mem::Gapped });
    }
}

#[test]
fn head_dims_64_and_128_odd_lengths_several_blocks() {
    for (d, sq, sk, causal, hq, hkv) in [
        (64, 131, 257, false, 4, 2),
        (128, 257, 131, true, 2, 1),
        (64, 129, 129, true, 2, 2),
        (128, 7, 300, false, 3, 1),
    ] {
        let a = AttnShape {
            b: 1,
            hq,
            hkv,
            sq,
            sk,
            d,
            scale: 1.0 / (d as f64).sqrt(),
            causal,
        };
        run(&a, None, d as u64 + sq as u64, Mem::Packed(false));
    }
    let a = AttnShape {
        b: 2,
        hq: 2,
        hkv: 1,
        sq: 133,
        sk: 141,
        d: 64,
        scale: 0.125,
        causal: false,
    };
    run(&a, Some(&[141, 70]), 5, Mem::Packed(false));
    // Head dim 128, causal and padded together, grouped-query, odd lengths.
    let a = AttnShape {
        b: 2,
        hq: 4,
        hkv: 2,
        sq: 131,
        sk: 139,
        d: 128,
        scale: 1.0 / 128f64.sqrt(),
        causal: true,
    };
    run(&a, Some(&[139, 97]), 6, Mem::Gapped);
}

#[test]
fn reference_gradient_matches_finite_differences() {
    let a = AttnShape {
        b: 1,
        hq: 2,
        hkv: 1,
        sq: 3,
        sk: 4,
        d: 3,
        scale: 0.7,
        causal: true,
    };
    let (qn, kn) = (a.b * a.hq * a.sq * a.d, a.b * a.hkv * a.sk * a.d);
    let (q, k, v, d_o) = (rvec(qn, 1), rvec(kn, 2), rvec(kn, 3), rvec(qn, 4));
    for kl in [None, Some(&[3usize][..])] {
        let (dq, dk, dv) = r::attention_backward(&a, &q, &k, &v, &d_o, kl);
        let fq = numeric_grad(&|x| r::attention(&a, x, &k, &v, kl), &q, &d_o);
        let fk = numeric_grad(&|x| r::attention(&a, &q, x, &v, kl), &k, &d_o);
        let fv = numeric_grad(&|x| r::attention(&a, &q, &k, x, kl), &v, &d_o);
        assert_close("dq fd", &dq, &fq, |i| 1e-7 * (1.0 + fq[i].abs()));
        assert_close("dk fd", &dk, &fk, |i| 1e-7 * (1.0 + fk[i].abs()));
        assert_close("dv fd", &dv, &fv, |i| 1e-7 * (1.0 + fv[i].abs()));
    }
}

/// dq, dk and dv of the kernels against central differences of the kernel forward
/// along random directions: L(t) = Σ dO·O(q + t·e_q, k + t·e_k, v + t·e_v) with one
/// direction non-zero at a time, h = 1e-2, causal with grouped-query heads.
///
/// Tolerance: the truncation error of the difference quotient, measured on the f64
/// reference at the same h (|FD_ref(h) − ⟨g_ref, e⟩|, asserted below 1e-4·(1 + |g·e|)),
/// plus f32 rounding of L (≈ u·Σ|dO||O|·√terms ≈ 1e-5 here) amplified by 1/h, plus the
/// gradients' own f32 error (≈ 1e-5 relative): 2e-3·(1 + |⟨g, e⟩|) covers them with a
/// margin of 10, while a wrong scale, sign, mask or head mapping errs by O(|⟨g, e⟩|).
#[test]
fn kernel_gradients_match_finite_differences_of_kernel_forward() {
    let dnn = dnn();
    let a = AttnShape {
        b: 1,
        hq: 4,
        hkv: 2,
        sq: 37,
        sk: 41,
        d: 8,
        scale: 0.35,
        causal: true,
    };
    let (qdims, kdims) = ([a.b, a.hq, a.sq, a.d], [a.b, a.hkv, a.sk, a.d]);
    let (nq, nk) = (
        qdims.iter().product::<usize>(),
        kdims.iter().product::<usize>(),
    );
    let r32 = |v: Vec<f64>| -> Vec<f64> { v.iter().map(|&x| x as f32 as f64).collect() };
    let (q, k, v, d_o) = (
        r32(rvec(nq, 1)),
        r32(rvec(nk, 2)),
        r32(rvec(nk, 3)),
        r32(rvec(nq, 4)),
    );
    let desc = AttentionDesc {
        scale: a.scale as f32,
        causal: a.causal,
    };
    let (qd, kd) = (
        TensorDesc::new(DType::F32, Layout::Nchw, &qdims).unwrap(),
        TensorDesc::new(DType::F32, Layout::Nchw, &kdims).unwrap(),
    );
    let forward = |q: &[f64], k: &[f64], v: &[f64]| -> (Vec<f64>, DeviceBuffer<f32>) {
        let (qb, kb, vb) = (f32buf(q), f32buf(k), f32buf(v));
        let mut o = DeviceBuffer::<f32>::zeros(&Device::cpu(), nq).unwrap();
        let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), a.hq * a.sq).unwrap();
        dnn.attention_forward(
            &desc,
            Tensor::new(&qd, qb.as_slice()),
            Tensor::new(&kd, kb.as_slice()),
            Tensor::new(&kd, vb.as_slice()),
            None,
            TensorMut::new(&qd, o.as_slice_mut()),
            &mut lse.as_slice_mut(),
        )
        .unwrap();
        (f64of(&o), lse)
    };
    let loss = |o: &[f64]| -> f64 { o.iter().zip(&d_o).map(|(a, b)| a * b).sum() };
    let (o, lse) = forward(&q, &k, &v);
    let (qb, kb, vb, ob, dob) = (f32buf(&q), f32buf(&k), f32buf(&v), f32buf(&o), f32buf(&d_o));
    let (mut dq, mut dk, mut dv) = (
        DeviceBuffer::<f32>::zeros(&Device::cpu(), nq).unwrap(),
        DeviceBuffer::<f32>::zeros(&Device::cpu(), nk).unwrap(),
        DeviceBuffer::<f32>::zeros(&Device::cpu(), nk).unwrap(),
    );
    dnn.attention_backward(
        &desc,
        Tensor::new(&qd, qb.as_slice()),
        Tensor::new(&kd, kb.as_slice()),
        Tensor::new(&kd, vb.as_slice()),
        Tensor::new(&qd, ob.as_slice()),
        Tensor::new(&qd, dob.as_slice()),
        &lse.as_slice(),
        None,
        TensorMut::new(&qd, dq.as_slice_mut()),
        TensorMut::new(&kd, dk.as_slice_mut()),
        TensorMut::new(&kd, dv.as_slice_mut()),
    )
    .unwrap();
    let (gq, gk, gv) = (f64of(&dq), f64of(&dk), f64of(&dv));
    let (rq, rk, rv) = r::attention_backward(&a, &q, &k, &v, &d_o, None);
    let h = 1e-2;
    let shift = |x: &[f64], e: &[f64], t: f64| -> Vec<f64> {
        x.iter().zip(e).map(|(a, b)| a + t * b).collect()
    };
    for (which, g, gr, n) in [
        ("q", &gq, &rq, nq),
        ("k", &gk, &rk, nk),
        ("v", &gv, &rv, nk),
    ] {
        let e = rvec(n, 10 + n as u64);
        let at = |t: f64| match which {
            "q" => (shift(&q, &e, t), k.clone(), v.clone()),
            "k" => (q.clone(), shift(&k, &e, t), v.clone()),
            _ => (q.clone(), k.clone(), shift(&v, &e, t)),
        };
        let (p, m) = (at(h), at(-h));
        let fd =
            (loss(&forward(&p.0, &p.1, &p.2).0) - loss(&forward(&m.0, &m.1, &m.2).0)) / (2.0 * h);
        let fd_ref = (loss(&r::attention(&a, &p.0, &p.1, &p.2, None))
            - loss(&r::attention(&a, &m.0, &m.1, &m.2, None)))
            / (2.0 * h);
        let an: f64 = g.iter().zip(&e).map(|(a, b)| a * b).sum();
        let an_ref: f64 = gr.iter().zip(&e).map(|(a, b)| a * b).sum();
        assert!(
            (fd_ref - an_ref).abs() < 1e-4 * (1.0 + an_ref.abs()),
            "d{which}: truncation {}",
            fd_ref - an_ref
        );
        assert!(
            (fd - an).abs() < 2e-3 * (1.0 + an.abs()),
            "d{which}: fd {fd} vs analytic {an}"
        );
    }
}

#[test]
fn attention_errors() {
    let dnn = dnn();
    let q = random::<f32>(&[1, 3, 4, 8], Mem::Packed(false), 1);
    let k = random::<f32>(&[1, 2, 4, 8], Mem::Packed(false), 2);
    let mut o = zeros::<f32>(&[1, 3, 4, 8], Mem::Packed(false));
    let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), 12).unwrap();
    let desc = AttentionDesc {
        scale: 1.0,
        causal: false,
    };
    let e = dnn
        .attention_forward(
            &desc,
            q.t(),
            k.t(),
            k.t(),
            None,
            o.tm(),
            &mut lse.as_slice_mut(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("kv heads"), "{e}");
    let k = random::<f32>(&[1, 1, 4, 8], Mem::Packed(false), 2);
    let e = dnn
        .attention_forward(
            &desc,
            q.t(),
            k.t(),
            k.t(),
            Some(&[5]),
            o.tm(),
            &mut lse.as_slice_mut(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("key_lengths"), "{e}");
    let _ = DType::F32;
}
