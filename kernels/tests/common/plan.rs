//! Running a plan outside the executor: each step's kernel arguments resolved against
//! view addresses, as raw parameter bits in signature order (what the PTX interpreter
//! takes), with the executor's range checks.

use rocm_kernels::plan::{Arg, Step};
use rocm_kernels::signature::Value;

/// A view of the problem: its address and length in bytes.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub address: u64,
    pub bytes: u64,
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
                "{}: argument {other} in a raw runner",
                step.signature.kernel
            ),
        })
        .collect()
}
