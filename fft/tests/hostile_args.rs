//! Hostile plan arguments: lengths 0, 1, huge and with overflowing products, batch 0
//! and huge, strides and distances that overlap or overflow, in-place transforms with
//! mismatched layouts, a non-finite scale and buffers of the wrong precision. Each
//! case must be a clean `Error` (or, where stated, a valid plan); the table of
//! outcomes is printed in the issue-29 form (tried / clean error / accepted / panic).

use rocm_core::{Complex32, Complex64, Device, DeviceBuffer};
use rocm_fft::{Layout, Placement, PlanBuilder, Precision, TransformType};

const C2C: TransformType = TransformType::ComplexForward;
const R2C: TransformType = TransformType::RealForward;

/// `(name, builder, must_build)`: `must_build` cases are valid edge sizes.
fn cases() -> Vec<(&'static str, PlanBuilder, bool)> {
    let huge = 1usize << 40;
    let layout = |strides: Vec<usize>, distance: usize| Layout {
        strides,
        distance,
        offset: 0,
    };
    vec![
        ("no lengths", PlanBuilder::new(C2C, &[]), false),
        ("length 0", PlanBuilder::new(C2C, &[0]), false),
        ("lengths 8 x 0", PlanBuilder::new(C2C, &[8, 0]), false),
        ("4 dimensions", PlanBuilder::new(C2C, &[2, 2, 2, 2]), false),
        ("length 1", PlanBuilder::new(C2C, &[1]), true),
        ("r2c length 1", PlanBuilder::new(R2C, &[1]), true),
        ("length 2^64-1", PlanBuilder::new(C2C, &[usize::MAX]), false),
        (
            "lengths 2^40 x 2^40 (product overflows)",
            PlanBuilder::new(C2C, &[huge, huge]),
            false,
        ),
        (
            "lengths 2^22 x 2^22 x 2^22 (product overflows)",
            PlanBuilder::new(C2C, &[1 << 22, 1 << 22, 1 << 22]),
            false,
        ),
        ("batch 0", PlanBuilder::new(C2C, &[64]).batch(0), false),
        (
            "batch 2^64-1",
            PlanBuilder::new(C2C, &[64]).batch(usize::MAX),
            false,
        ),
        (
            "batch 2^40 x length 2^30 (product overflows)",
            PlanBuilder::new(C2C, &[1 << 30]).batch(huge),
            false,
        ),
        (
            "scale NaN",
            PlanBuilder::new(C2C, &[64]).scale(f64::NAN),
            false,
        ),
        (
            "scale +inf",
            PlanBuilder::new(C2C, &[64]).scale(f64::INFINITY),
            false,
        ),
        (
            "input strides of rank 2 for a 1-D plan",
            PlanBuilder::new(C2C, &[64]).input_layout(layout(vec![1, 64], 64)),
            false,
        ),
        (
            "output stride 0 (elements overlap)",
            PlanBuilder::new(C2C, &[64]).output_layout(layout(vec![0], 64)),
            false,
        ),
        (
            "output distance 0 with batch 2 (batches overlap)",
            PlanBuilder::new(C2C, &[64])
                .batch(2)
                .output_layout(layout(vec![1], 0)),
            false,
        ),
        (
            "output distance smaller than the transform",
            PlanBuilder::new(C2C, &[64])
                .batch(2)
                .output_layout(layout(vec![1], 32)),
            false,
        ),
        (
            "input stride 2^63 (largest index overflows)",
            PlanBuilder::new(C2C, &[64]).input_layout(layout(vec![1 << 63], 64)),
            false,
        ),
        (
            "in-place c2c with different input and output layouts",
            PlanBuilder::new(C2C, &[64])
                .placement(Placement::InPlace)
                .input_layout(layout(vec![1], 64))
                .output_layout(layout(vec![2], 128)),
            false,
        ),
        (
            "in-place r2c without row padding",
            PlanBuilder::new(R2C, &[64, 4])
                .placement(Placement::InPlace)
                .input_layout(layout(vec![1, 64], 256))
                .output_layout(layout(vec![1, 33], 132)),
            false,
        ),
    ]
}

#[test]
fn hostile_plan_arguments_are_clean_errors() {
    let dev = Device::cpu();
    let (mut clean, mut accepted, mut panics, mut wrong) = (0, 0, 0, Vec::new());
    let table = cases();
    println!("{:<58} outcome", "case");
    for (name, builder, must_build) in &table {
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.build(&dev)));
        let outcome = match (&got, must_build) {
            (Err(_), _) => {
                panics += 1;
                wrong.push(format!("{name}: panicked"));
                "panic".to_string()
            }
            (Ok(Err(e)), false) => {
                clean += 1;
                // A clean error names what was wrong.
                let msg = e.to_string();
                if msg.trim().is_empty() {
                    wrong.push(format!("{name}: empty error message"));
                }
                format!("clean error: {msg}")
            }
            (Ok(Ok(_)), true) => {
                accepted += 1;
                "accepted (valid edge size)".to_string()
            }
            (Ok(Ok(_)), false) => {
                wrong.push(format!("{name}: built a plan"));
                "WRONG: built".to_string()
            }
            (Ok(Err(e)), true) => {
                wrong.push(format!("{name}: refused a valid plan: {e}"));
                format!("WRONG: refused: {e}")
            }
        };
        println!("{name:<58} {outcome}");
    }
    println!(
        "fft plan arguments: tried {} / clean error {clean} / accepted {accepted} / panic {panics} / abort 0 / hang 0 / wrong {}",
        table.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Executing with buffers of the wrong precision, the wrong placement or too few
/// elements is an error, not a reinterpretation of the bytes.
#[test]
fn execution_with_mismatched_buffers_is_an_error() {
    let dev = Device::cpu();
    let stream = dev.default_stream();
    let plan = PlanBuilder::new(C2C, &[64])
        .precision(Precision::F32)
        .build(&dev)
        .expect("valid plan");
    let x64 = DeviceBuffer::<Complex64>::zeros(&dev, 64).unwrap();
    let mut y64 = DeviceBuffer::<Complex64>::zeros(&dev, 64).unwrap();
    let x32 = DeviceBuffer::<Complex32>::zeros(&dev, 64).unwrap();
    let short = DeviceBuffer::<Complex32>::zeros(&dev, 63).unwrap();
    let mut y32 = DeviceBuffer::<Complex32>::zeros(&dev, 64).unwrap();
    let f64_in = plan.execute(stream, &x64.as_slice(), &mut y64.as_slice_mut(), None);
    assert!(f64_in.is_err(), "f64 buffers on an f32 plan ran");
    let short_in = plan.execute(stream, &short.as_slice(), &mut y32.as_slice_mut(), None);
    assert!(
        short_in.is_err(),
        "a 63-element input of a 64-point plan ran"
    );
    let in_place = plan.execute_in_place(stream, &mut y32.as_slice_mut(), None);
    assert!(in_place.is_err(), "an out-of-place plan ran in place");
    // The valid call on the same plan works, so the refusals above are about the buffers.
    plan.execute(stream, &x32.as_slice(), &mut y32.as_slice_mut(), None)
        .expect("matching buffers run");
}
