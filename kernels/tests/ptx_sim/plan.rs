//! Running a plan in the PTX interpreter: each step's program generated for the target,
//! its kernel's arguments resolved against view addresses (with the executor's range
//! check) as raw parameter bits in signature order.
// Not every test that includes the interpreter runs plans.
#![allow(dead_code)]

use super::{host, Memory};
use rocm_core::{ModuleImage, Target};
use rocm_kernels::plan::{Arg, Plan, Step};
use rocm_kernels::signature::Value;

/// A view of the problem in the interpreter's memory: its address and length in bytes.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub address: u64,
    pub bytes: u64,
}

/// Runs every step of `plan` (checked against `target`) on `views` (slot order) in `mem`.
pub fn run(plan: &Plan, target: &Target, views: &[View], mem: &mut Memory) {
    plan.check(target).unwrap();
    for step in &plan.steps {
        let ModuleImage::Ptx(text) = step.program.generate(target).unwrap().image else {
            panic!("{target}: {} is not PTX", step.program.generator());
        };
        let kernel = host::entry(&text, &step.signature.kernel);
        let c = step.config;
        kernel.run(c.grid, c.block[0], &params(step, views), mem);
    }
}

/// The parameters of `step` in order: buffers at `views[slot].address + offset`
/// (their touched bytes checked inside the view), values as their bits.
pub fn params(step: &Step, views: &[View]) -> Vec<u64> {
    step.args
        .iter()
        .map(|a| match a {
            Arg::Buffer {
                slot,
                offset_bytes,
                touched,
                ..
            } => {
                let v = views[*slot];
                assert!(
                    touched.start <= touched.end && touched.end <= v.bytes,
                    "{}: touches {touched:?} of a {}-byte view",
                    step.signature.kernel,
                    v.bytes
                );
                v.address + offset_bytes
            }
            Arg::Value(Value::U32(x)) => u64::from(*x),
            Arg::Value(Value::I32(x)) => *x as u32 as u64,
            Arg::Value(Value::U64(x)) => *x,
            Arg::Value(Value::I64(x)) => *x as u64,
            Arg::Value(Value::F32(x)) => u64::from(x.to_bits()),
            Arg::Value(Value::F64(x)) => x.to_bits(),
            other => panic!(
                "{}: argument {other} in the interpreter",
                step.signature.kernel
            ),
        })
        .collect()
}
