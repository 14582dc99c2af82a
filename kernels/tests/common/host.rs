//! Host-side helpers of the generated-kernel tests on the emulated AMD devices: every
//! target, the four BLAS element types as component vectors, device buffers of them.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Device, KernelArgs};

pub const TARGETS: [IsaTarget; 7] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
    IsaTarget::Gfx1101,
    IsaTarget::Gfx1102,
    IsaTarget::Gfx1151,
];

pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// xorshift64*.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Matrix storage as components (re, im interleaved for complex), rounded to the real
/// type and kept as f64.
#[derive(Clone, Copy)]
pub struct Ty {
    pub dtype: DType,
    pub comps: usize,
    pub f32: bool,
}

impl Ty {
    pub fn of(dtype: DType) -> Ty {
        Ty {
            dtype,
            comps: if matches!(dtype, DType::C32 | DType::C64) {
                2
            } else {
                1
            },
            f32: matches!(dtype, DType::F32 | DType::C32),
        }
    }
    pub fn round(self, x: f64) -> f64 {
        if self.f32 {
            x as f32 as f64
        } else {
            x
        }
    }
    pub fn fma(self, a: f64, b: f64, c: f64) -> f64 {
        if self.f32 {
            (a as f32).mul_add(b as f32, c as f32) as f64
        } else {
            a.mul_add(b, c)
        }
    }
    pub fn mul(self, a: f64, b: f64) -> f64 {
        self.round(a * b)
    }
    /// `a·b` for element values as the kernels compute it: real one product; complex
    /// `re = fma(−ai, bi, ar·br)`, `im = fma(ai, br, ar·bi)`.
    pub fn cmul(self, a: &[f64], b: &[f64]) -> Vec<f64> {
        if self.comps == 1 {
            return vec![self.mul(a[0], b[0])];
        }
        let re = self.fma(-a[1], b[1], self.mul(a[0], b[0]));
        let im = self.fma(a[1], b[0], self.mul(a[0], b[1]));
        vec![re, im]
    }
    /// `acc + a·b` as the kernels' `cfma_into`: real one fma; complex four, the real-part
    /// products first.
    pub fn cfma(self, acc: &[f64], a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut r = acc.to_vec();
        r[0] = self.fma(a[0], b[0], r[0]);
        if self.comps == 2 {
            r[1] = self.fma(a[0], b[1], r[1]);
            r[0] = self.fma(-a[1], b[1], r[0]);
            r[1] = self.fma(a[1], b[0], r[1]);
        }
        r
    }
    pub fn u(self) -> f64 {
        if self.f32 {
            f32::EPSILON as f64 / 2.0
        } else {
            f64::EPSILON / 2.0
        }
    }
}

pub enum Buf {
    F32(rocm_core::DeviceBuffer<f32>),
    F64(rocm_core::DeviceBuffer<f64>),
}

impl Buf {
    pub fn up(dev: &Device, t: Ty, v: &[f64]) -> Buf {
        if t.f32 {
            let w: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            Buf::F32(dev.upload(&w).unwrap())
        } else {
            Buf::F64(dev.upload(v).unwrap())
        }
    }
    pub fn down(&self) -> Vec<f64> {
        match self {
            Buf::F32(b) => b.to_vec().unwrap().into_iter().map(f64::from).collect(),
            Buf::F64(b) => b.to_vec().unwrap(),
        }
    }
    pub fn push(&self, args: &mut KernelArgs) {
        match self {
            Buf::F32(b) => args.push(b),
            Buf::F64(b) => args.push(b),
        };
    }
}

pub fn scalar(args: &mut KernelArgs, t: Ty, v: &[f64]) {
    for &x in v {
        if t.f32 {
            args.push(x as f32);
        } else {
            args.push(x);
        }
    }
}

pub fn random(rng: &mut Rng, t: Ty, len: usize) -> Vec<f64> {
    (0..len * t.comps).map(|_| t.round(rng.unit())).collect()
}
