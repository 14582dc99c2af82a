//! Pointwise activations, forward and backward (MIOpen's `miopenActivation*`).
//!
//! Each is a scalar function f with derivative f'; backward computes dx = dy·f'(x) from
//! the forward input x.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rocm_core::Result;

/// An activation function with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    /// The identity (no activation).
    Identity,
    /// max(0, x).
    Relu,
    /// x for x > 0, else αx.
    LeakyRelu(f32),
    /// x for x > 0, else α(eˣ − 1).
    Elu(f32),
    /// x·Φ(x) with the exact normal CDF Φ(x) = ½(1 + erf(x/√2)).
    GeluErf,
    /// ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
    GeluTanh,
    /// x·σ(x).
    Silu,
    /// σ(x) = 1/(1 + e⁻ˣ).
    Sigmoid,
    Tanh,
    /// ln(1 + eˣ).
    Softplus,
    /// min(max(0, x), ceiling).
    ClippedRelu(f32),
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_C: f64 = 0.044_715;

/// erf with |error| < 1.2e-7 (Numerical Recipes' erfc Chebyshev fit), enough for f32.
pub fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        1.0 - r
    } else {
        r - 1.0
    }
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn softplus(x: f64) -> f64 {
    // ln(1 + eˣ) = max(x, 0) + ln(1 + e^-|x|), no overflow.
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

impl Activation {
    /// f(x), evaluated in f64.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Identity => x,
            Activation::Relu => x.max(0.0),
            Activation::LeakyRelu(a) => {
                if x > 0.0 {
                    x
                } else {
                    a as f64 * x
                }
            }
            Activation::Elu(a) => {
                if x > 0.0 {
                    x
                } else {
                    a as f64 * x.exp_m1()
                }
            }
            Activation::GeluErf => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
            Activation::GeluTanh => {
                0.5 * x * (1.0 + (SQRT_2_OVER_PI * (x + GELU_C * x * x * x)).tanh())
            }
            Activation::Silu => x * sigmoid(x),
            Activation::Sigmoid => sigmoid(x),
            Activation::Tanh => x.tanh(),
            Activation::Softplus => softplus(x),
            Activation::ClippedRelu(c) => x.max(0.0).min(c as f64),
        }
    }

    /// f'(x), evaluated in f64 (at a kink, the right derivative except at the top of
    /// clipped relu).
    pub fn derivative(self, x: f64) -> f64 {
        match self {
            Activation::Identity => 1.0,
            Activation::Relu => f64::from(u8::from(x > 0.0)),
            Activation::LeakyRelu(a) => {
                if x > 0.0 {
                    1.0
                } else {
                    a as f64
                }
            }
            Activation::Elu(a) => {
                if x > 0.0 {
                    1.0
                } else {
                    a as f64 * x.exp()
                }
            }
            Activation::GeluErf => {
                let cdf = 0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2));
                let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
                cdf + x * pdf
            }
            Activation::GeluTanh => {
                let u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
                let t = u.tanh();
                0.5 * (1.0 + t)
                    + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_C * x * x)
            }
            Activation::Silu => {
                let s = sigmoid(x);
                s * (1.0 + x * (1.0 - s))
            }
            Activation::Sigmoid => {
                let s = sigmoid(x);
                s * (1.0 - s)
            }
            Activation::Tanh => 1.0 - x.tanh().powi(2),
            Activation::Softplus => sigmoid(x),
            Activation::ClippedRelu(c) => f64::from(u8::from(x > 0.0 && x < c as f64)),
        }
    }

    /// f(x) in f32 (through f64: exact to f32 rounding, and cheap next to the GEMMs it
    /// follows).
    #[inline]
    pub fn apply_f32(self, x: f32) -> f32 {
        match self {
            Activation::Identity => x,
            Activation::Relu => x.max(0.0),
            _ => self.apply(x as f64) as f32,
        }
    }

    /// Every activation with typical parameters (tests and benches iterate over it).
    pub const ALL: [Activation; 11] = [
        Activation::Identity,
        Activation::Relu,
        Activation::LeakyRelu(0.01),
        Activation::Elu(1.0),
        Activation::GeluErf,
        Activation::GeluTanh,
        Activation::Silu,
        Activation::Sigmoid,
        Activation::Tanh,
        Activation::Softplus,
        Activation::ClippedRelu(6.0),
    ];
}

impl Dnn {
    /// y = α·f(x) + β·y.
    pub fn activation_forward<T: DnnFloat>(
        &self,
        act: Activation,
        alpha: f32,
        x: Tensor<'_, T>,
        beta: f32,
        mut y: TensorMut<'_, T>,
    ) -> Result<()> {
        self.engine("activation_forward")?;
        y.desc.expect_dims("y", x.desc.dims())?;
        let mut v = x.widen("x")?;
        v.iter_mut().for_each(|e| *e = act.apply_f32(*e));
        y.store("y", &v, alpha, beta)
    }

    /// dx = α·dy·f'(x) + β·dx.
    pub fn activation_backward<T: DnnFloat>(
        &self,
        act: Activation,
        alpha: f32,
        x: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        beta: f32,
        mut dx: TensorMut<'_, T>,
    ) -> Result<()> {
        self.engine("activation_backward")?;
        dy.desc.expect_dims("dy", x.desc.dims())?;
        dx.desc.expect_dims("dx", x.desc.dims())?;
        let xv = x.widen("x")?;
        let mut g = dy.widen("dy")?;
        g.iter_mut()
            .zip(&xv)
            .for_each(|(g, &x)| *g = (*g as f64 * act.derivative(x as f64)) as f32);
        dx.store("dx", &g, alpha, beta)
    }
}
