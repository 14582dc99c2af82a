//! A PTX kernel through Device / module / launch on every CUDA device present.
//!
//! Skips itself, saying why, when no CUDA device is present.

use rand::{Rng, SeedableRng};
use rocm_core::{BackendKind, Device, DeviceInfo, Error, KernelArgs, LaunchConfig, ModuleImage};

fn cuda_devices() -> Vec<DeviceInfo> {
    let found: Vec<_> = Device::enumerate()
        .into_iter()
        .filter(|d| d.id.starts_with("cuda:"))
        .collect();
    if found.is_empty() {
        eprintln!("skipped: no CUDA device present (no driver or no GPU)");
    }
    found
}

/// y[i] = a * x[i] + y[i] for i < n, with parameters of mixed sizes to exercise packing.
fn axpy_ptx(target: &str) -> String {
    format!(
        r#".version 8.0
.target {target}
.address_size 64
.visible .entry axpy_mixed(
    .param .u8 p_flag,
    .param .u32 p_n,
    .param .f32 p_a,
    .param .u64 p_x,
    .param .u64 p_y
)
{{
    .reg .pred %p<3>;
    .reg .b16 %h<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;
    ld.param.u8 %h1, [p_flag];
    ld.param.u32 %r1, [p_n];
    ld.param.f32 %f1, [p_a];
    ld.param.u64 %rd1, [p_x];
    ld.param.u64 %rd2, [p_y];
    setp.ne.u16 %p2, %h1, 7;
    @%p2 bra DONE;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r5, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [%rd5];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd5], %f4;
DONE:
    ret;
}}
"#
    )
}

#[test]
fn ptx_axpy_matches_the_host() {
    for info in cuda_devices() {
        let dev = Device::open(&info.id).unwrap();
        assert_eq!(dev.kind(), BackendKind::Cuda);
        let module = dev
            .load_module(&ModuleImage::Ptx(axpy_ptx(&dev.target().to_string())))
            .unwrap();
        let kernel = module.kernel("axpy_mixed").unwrap();
        assert!(matches!(
            module.kernel("no_such_kernel"),
            Err(Error::Module(_))
        ));
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for n in [1usize, 31, 32, 33, 1000, 65537, 1 << 20] {
            let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let a: f32 = rng.random_range(-2.0..2.0);
            let xd = dev.upload(&x).unwrap();
            let mut yd = dev.upload(&y).unwrap();
            let mut args = KernelArgs::new();
            args.push(7u8)
                .push(n as u32)
                .push(a)
                .push(&xd)
                .push(&yd.as_slice_mut());
            let cfg = LaunchConfig::linear((n as u32).div_ceil(256), 256);
            // SAFETY: the kernel touches x[0..n] and y[0..n], both n elements long.
            unsafe { kernel.launch(dev.default_stream(), &cfg, &args).unwrap() };
            let got = yd.to_vec().unwrap();
            for i in 0..n {
                // One fused multiply-add: exact to half an ulp of the result.
                let want = a.mul_add(x[i], y[i]);
                assert_eq!(got[i], want, "n={n} i={i}");
            }
        }
        // A host pointer passed to a device kernel is refused before launch.
        let host = Device::cpu().upload(&[0f32; 4]).unwrap();
        let mut args = KernelArgs::new();
        args.push(7u8)
            .push(4u32)
            .push(1.0f32)
            .push(&host)
            .push(&host);
        // SAFETY: rejected before anything runs.
        let err =
            unsafe { kernel.launch(dev.default_stream(), &LaunchConfig::linear(1, 32), &args) };
        assert!(matches!(err, Err(Error::DeviceMismatch { .. })), "{err:?}");
    }
}

#[test]
fn ptx_copy_kernel_copies_random_ranges() {
    for info in cuda_devices() {
        let dev = Device::open(&info.id).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let n = (1 << 22) + 13;
        let data: Vec<u8> = (0..n).map(|_| rng.random()).collect();
        let src = dev.upload(&data).unwrap();
        for _ in 0..40 {
            let len = rng.random_range(0..n / 2);
            let s = rng.random_range(0..n - len);
            let d = rng.random_range(0..n - len);
            let mut dst = dev.upload(&vec![0xA5u8; n]).unwrap();
            let stream = dev.default_stream();
            rocm_kernels::copy::copy(
                stream,
                &mut dst.slice_mut(d..d + len).unwrap(),
                &src.slice(s..s + len).unwrap(),
            )
            .unwrap();
            let got = dst.to_vec().unwrap();
            assert!(
                got[..d].iter().all(|&b| b == 0xA5),
                "wrote before the range"
            );
            assert_eq!(&got[d..d + len], &data[s..s + len], "len={len} s={s} d={d}");
            assert!(
                got[d + len..].iter().all(|&b| b == 0xA5),
                "wrote after the range"
            );
        }
    }
}

#[test]
fn device_properties_are_reported() {
    for info in cuda_devices() {
        assert!(info.compute_units > 0 && info.total_memory > 0, "{info:?}");
        assert_eq!(info.target.family(), rocm_core::Family::Nvidia);
        eprintln!(
            "{}: {} {} {} SMs {:.1} GiB",
            info.id,
            info.name,
            info.target,
            info.compute_units,
            info.total_memory as f64 / (1u64 << 30) as f64
        );
    }
}
