//! Device-to-device copy written in the kernel language: the kernel behind
//! `rocm-bench bandwidth`'s device-to-device figure and the copy columns of the BLAS
//! benches, on every target with a kernel ISA.
//!
//! The bulk moves as 16-byte vectors: each work-item of a 256-wide workgroup copies four
//! vectors strided by the workgroup size inside the workgroup's 16 KiB tile, so every
//! wave-wide load and store is a fully coalesced transaction and each work-item keeps
//! four loads in flight before its first store. What the vectors leave (the last bytes,
//! or the whole copy where the two buffers are not both 16-byte aligned) moves in the
//! widest unit of 8, 4, 2 or 1 bytes that both addresses and the length allow, one unit
//! per work-item.
//!
//! [`plan`] makes that choice for a problem; [`copy`] is the host, which runs the plan
//! through the executor.

use crate::exec::{self, DeviceView};
use crate::generator::{Generator, LaunchRule, Program};
use crate::lang::{self, Access, Builder, Cache, KernelDef, Scalar, Type};
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::signature::{Signature, Value};
use rocm_core::{
    BufferSlice, BufferSliceMut, DType, Element, Error, KernelIsa, LaunchConfig, Result, Stream,
    Target,
};
use serde::{Deserialize, Serialize};

/// Work-items per workgroup.
pub const BLOCK: u32 = 256;
/// 16-byte vectors each work-item of the vector kernel moves.
pub const VECTORS_PER_THREAD: u32 = 4;
/// The vector kernel's unit.
pub const VECTOR_BYTES: u32 = 16;
/// The units of the kernels, widest first (the vector kernel, then the unit kernels).
pub const UNITS: [u32; 5] = [16, 8, 4, 2, 1];

/// One copy kernel: `unit_bytes` 16 is the vector kernel (four units per work-item),
/// 8, 4, 2 or 1 a unit kernel (one unit per work-item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyParams {
    pub unit_bytes: u32,
}

impl CopyParams {
    /// Units each work-item moves.
    pub fn units_per_item(&self) -> u32 {
        if self.unit_bytes == VECTOR_BYTES {
            VECTORS_PER_THREAD
        } else {
            1
        }
    }
}

/// The kernel's name: `rocm_copy_b<bits of a unit>` (`rocm_copy_b128`, ..., `rocm_copy_b8`).
pub fn kernel_name(p: &CopyParams) -> String {
    format!("rocm_copy_b{}", 8 * p.unit_bytes)
}

/// The copy generator.
pub struct DeviceCopy;

impl Generator for DeviceCopy {
    type Params = CopyParams;
    const NAME: &'static str = "copy";
    const VERSION: u32 = 2;

    fn generate(p: &CopyParams, target: &Target) -> Result<Program> {
        lang::program(&[kernel(p, target)?], launch_rule(p))
    }

    fn signatures(p: &CopyParams, target: &Target) -> Result<Vec<Signature>> {
        Ok(vec![kernel(p, target)?.signature])
    }
}

fn launch_rule(p: &CopyParams) -> LaunchRule {
    LaunchRule::Cover {
        block: BLOCK,
        units_per_item: p.units_per_item(),
    }
}

/// The kernel of `p` for `target`: `dst[i] = src[i]` for the `n` units `i` of
/// `unit_bytes` bytes (`dst`, `src`: byte buffers, aligned to the unit).
pub fn kernel(p: &CopyParams, target: &Target) -> Result<KernelDef> {
    if !UNITS.contains(&p.unit_bytes) {
        return Err(Error::invalid(
            "unit_bytes",
            format!("{} is not one of {UNITS:?}", p.unit_bytes),
        ));
    }
    let mut k = Builder::new(kernel_name(p), target)?;
    k.max_workgroup_size(BLOCK);
    let dst = k.ptr_dtype("dst", DType::U8, Scalar::U32, Access::Write);
    let src = k.ptr_dtype("src", DType::U8, Scalar::U32, Access::Read);
    let n = k.param("n", Scalar::U64);
    // A unit's value: four or two words, one word, or a narrow word.
    let (ty, bytes) = match p.unit_bytes {
        16 => (Type::vec(Scalar::U32, 4), 16),
        8 => (Type::vec(Scalar::U32, 2), 8),
        b => (Type::U32, b),
    };
    let per_item = p.units_per_item();
    let wg = k.workgroup_id();
    let wg = k.convert(wg, Scalar::U64);
    let tid = k.thread_id();
    let tid = k.convert(tid, Scalar::U64);
    let first = k.fma(wg, u64::from(BLOCK * per_item), tid);
    // Every load of the work-item first, into variables, then every store: the loads
    // are in flight together.
    let mut staged = Vec::new();
    for u in 0..per_item {
        let unit = k.add(first, u64::from(u * BLOCK));
        let inside = k.lt(unit, n);
        let off = k.mul(unit, u64::from(bytes));
        let zero = k.constant(ty, 0u32);
        let value = k.var(zero);
        k.if_(inside, |k| {
            let v = k.load_with(src, off, ty, bytes, bytes, Cache::ReadOnly);
            k.set(value, v);
        });
        staged.push((inside, off, value));
    }
    for (inside, off, value) in staged {
        k.if_(inside, |k| {
            let v = k.get(value);
            k.store_with(dst, off, v, bytes, bytes, Cache::Default);
        });
    }
    k.finish()
}

/// A copy problem: `bytes` bytes from the view in slot 1 to the view in slot 0;
/// `dst_address` and `src_address` are the views' device addresses, used only for
/// alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub bytes: u64,
    pub dst_address: u64,
    pub src_address: u64,
}

/// Slot of the destination view.
pub const DST: usize = 0;
/// Slot of the source view.
pub const SRC: usize = 1;

/// The plan copying `p` on `target`: the vector kernel over the whole 16-byte vectors
/// when both views are 16-byte aligned, then a unit kernel over the rest in the widest
/// unit dividing both addresses and the remaining length. Empty copies plan no step.
pub fn plan(p: &Problem, target: &Target) -> Result<Plan> {
    if target.caps().kernel_isa == KernelIsa::Host {
        return Err(Error::unsupported("the device copy kernel", target));
    }
    let mut steps = Vec::new();
    let aligned = (p.dst_address | p.src_address) % u64::from(VECTOR_BYTES) == 0;
    let vectors = if aligned {
        p.bytes / u64::from(VECTOR_BYTES)
    } else {
        0
    };
    let done = vectors * u64::from(VECTOR_BYTES);
    if vectors > 0 {
        steps.push(step(target, VECTOR_BYTES, 0, vectors)?);
    }
    let rest = p.bytes - done;
    if rest > 0 {
        let together = p.dst_address | p.src_address | done | rest;
        let unit = UNITS[1..]
            .iter()
            .copied()
            .find(|&u| together % u64::from(u) == 0)
            .unwrap_or(1);
        steps.push(step(target, unit, done, rest / u64::from(unit))?);
    }
    Ok(Plan {
        steps,
        workspace_bytes: 0,
    })
}

/// The step moving `units` units of `unit_bytes` from byte `start` of both views.
fn step(target: &Target, unit_bytes: u32, start: u64, units: u64) -> Result<Step> {
    let params = CopyParams { unit_bytes };
    let per_block = u64::from(BLOCK * params.units_per_item());
    let grid = u32::try_from(units.div_ceil(per_block))
        .ok()
        .filter(|&g| g <= i32::MAX as u32)
        .ok_or_else(|| {
            Error::invalid(
                "copy length",
                format!("{units} units of {unit_bytes} bytes need more than 2^31 workgroups"),
            )
        })?;
    let end = start + units * u64::from(unit_bytes);
    let view = |slot, access| Arg::Buffer {
        slot,
        offset_bytes: start,
        touched: start..end,
        access,
    };
    let signature = kernel(&params, target)?.signature;
    Step::bind(
        ProgramRef::of::<DeviceCopy>(params),
        signature,
        LaunchConfig::linear(grid, BLOCK),
        vec![
            ("dst", view(DST, Access::Write)),
            ("src", view(SRC, Access::Read)),
            ("n", Arg::Value(Value::U64(units))),
        ],
    )
}

/// Queues `dst = src` on `stream` with the copy kernels (devices with a kernel ISA).
pub fn copy<T: Element>(
    stream: &Stream,
    dst: &mut BufferSliceMut<'_, T>,
    src: &BufferSlice<'_, T>,
) -> Result<()> {
    if dst.len() != src.len() {
        return Err(Error::invalid(
            "src",
            format!("has {} elements, dst has {}", src.len(), dst.len()),
        ));
    }
    let bytes = (std::mem::size_of::<T>() as u64)
        .checked_mul(src.len() as u64)
        .ok_or_else(|| Error::invalid("src", "its byte length overflows u64"))?;
    let problem = Problem {
        bytes,
        dst_address: dst.address(),
        src_address: src.address(),
    };
    let plan = plan(&problem, stream.device().target())?;
    exec::execute(
        &plan,
        stream,
        &[DeviceView::write(dst), DeviceView::read(src)],
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocm_core::Device;

    fn units_of(plan: &Plan) -> Vec<(String, String)> {
        plan.steps
            .iter()
            .map(|s| (s.signature.kernel.clone(), s.args[2].to_string()))
            .collect()
    }

    fn problem(bytes: u64, dst_address: u64, src_address: u64) -> Problem {
        Problem {
            bytes,
            dst_address,
            src_address,
        }
    }

    /// Vectors where both views are 16-byte aligned, then the widest unit the rest
    /// allows; nothing for an empty copy.
    #[test]
    fn plan_takes_the_widest_units_the_alignment_allows() {
        let t: Target = "gfx90a".parse().unwrap();
        let cases: [(Problem, &[(&str, &str)]); 7] = [
            (problem(0, 0, 0), &[]),
            (problem(32, 0, 0), &[("rocm_copy_b128", "2")]),
            (
                problem(16 * 1024 + 12, 0, 4096),
                &[("rocm_copy_b128", "1024"), ("rocm_copy_b32", "3")],
            ),
            (
                problem(17, 0, 0),
                &[("rocm_copy_b128", "1"), ("rocm_copy_b8", "1")],
            ),
            (problem(64, 8, 0), &[("rocm_copy_b64", "8")]),
            (problem(64, 4, 8), &[("rocm_copy_b32", "16")]),
            (problem(6, 2, 0), &[("rocm_copy_b16", "3")]),
        ];
        for (p, want) in cases {
            let plan = plan(&p, &t).unwrap();
            plan.check(&t).unwrap();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, n)| (k.to_string(), n.to_string()))
                .collect();
            assert_eq!(units_of(&plan), want, "{p:?}");
        }
    }

    /// The steps touch exactly the copied bytes of both views.
    #[test]
    fn steps_touch_only_the_copied_bytes() {
        let plan = plan(&problem(16 * 5 + 3, 0, 0), &"sm_90".parse().unwrap()).unwrap();
        let ranges: Vec<String> = plan.steps.iter().map(|s| s.args[0].to_string()).collect();
        assert_eq!(
            ranges,
            ["buffer0+0 [0..80) write", "buffer0+80 [80..83) write"]
        );
    }

    #[test]
    fn host_targets_and_bad_units_are_errors() {
        assert!(plan(&problem(4, 0, 0), &Target::cpu()).is_err());
        let e = kernel(&CopyParams { unit_bytes: 3 }, &"sm_90".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("unit_bytes"), "{e}");
    }

    #[test]
    fn cpu_device_has_no_copy_kernel() {
        let dev = Device::cpu();
        let src = dev.upload(&[1u8, 2, 3]).unwrap();
        let mut dst = dev.alloc::<u8>(3).unwrap();
        let e = copy(
            dev.default_stream(),
            &mut dst.as_slice_mut(),
            &src.as_slice(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    }

    #[test]
    fn mismatched_lengths_are_errors() {
        let dev = Device::open("emu:gfx90a").unwrap();
        let src = dev.upload(&[1u8, 2, 3]).unwrap();
        let mut dst = dev.alloc::<u8>(2).unwrap();
        let e = copy(
            dev.default_stream(),
            &mut dst.as_slice_mut(),
            &src.as_slice(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("3 elements"), "{e}");
    }

    /// No spills, and few enough registers that six 256-wide blocks stay resident per SM.
    #[test]
    fn passes_ptxas_for_every_nvidia_target() {
        let Some(ptxas) = crate::ptxas::Ptxas::find() else {
            eprintln!("skipped: ptxas not found ({})", crate::ptxas::HOW_TO_GET);
            return;
        };
        for t in ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"] {
            let target: Target = t.parse().unwrap();
            for unit_bytes in UNITS {
                let p = CopyParams { unit_bytes };
                let rocm_core::ModuleImage::Ptx(text) =
                    DeviceCopy::generate(&p, &target).unwrap().image
                else {
                    panic!("{t}: not PTX")
                };
                let report = ptxas.compile(&text, &target).unwrap();
                assert!(report.warnings.is_empty(), "{t}: {:?}", report.warnings);
                let name = kernel_name(&p);
                let r = report.kernel(&name).unwrap();
                assert_eq!(r.spill_stores + r.spill_loads, 0, "{t} {name} spills");
                assert!(
                    r.registers <= 40,
                    "{t} {name} uses {} registers",
                    r.registers
                );
                eprintln!("{t} {name}: {} registers", r.registers);
            }
        }
    }
}
