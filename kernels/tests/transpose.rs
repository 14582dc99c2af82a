//! The batched transpose (`rocm_kernels::transpose`, written in the kernel language)
//! through its plan steps: on every emulated AMD target through the executor, and its
//! PTX in the PTX interpreter, for 2-, 4- and 8-byte elements on shapes off the 32-tile
//! (1 × 1, 33 × 70, 64 × 31, random), leading dimensions above the rows, batches with
//! odd strides. A transpose moves bits, so the check is exact: every destination
//! element is its source element and every byte outside the destination matrices keeps
//! its value. PTX also passes ptxas without warnings or spills.

mod common;
#[allow(dead_code)]
mod ptx_sim;

use common::host::TARGETS;
use proptest::prelude::*;
use ptx_sim::plan::View;
use rocm_core::{Device, ModuleImage, Target};
use rocm_kernels::exec::{self, DeviceView};
use rocm_kernels::generator::Generator;
use rocm_kernels::plan::{Arg, Plan};
use rocm_kernels::ptxas::Ptxas;
use rocm_kernels::signature::Access;
use rocm_kernels::transpose::{self, Problem, Transpose, TransposeParams};

/// (rows, cols, rows of padding in src, rows of padding in dst, batch).
const SHAPES: [(usize, usize, usize, usize, usize); 4] = [
    (1, 1, 0, 0, 1),
    (33, 70, 3, 1, 2),
    (64, 31, 0, 5, 2),
    (32, 32, 0, 0, 3),
];

/// A case: the problem and its source and destination buffers before the transpose.
struct Case {
    p: Problem,
    src: Vec<u8>,
    before: Vec<u8>,
}

impl Case {
    fn new(
        es: usize,
        (rows, cols, pad_src, pad_dst, batch): (usize, usize, usize, usize, usize),
    ) -> Case {
        let (ld_src, ld_dst) = (rows + pad_src, cols + pad_dst);
        let (ss, sd) = (ld_src * cols + 7, ld_dst * rows + 3);
        let p = Problem {
            element_bytes: es as u32,
            rows,
            cols,
            ld_src,
            ld_dst,
            stride_src: ss,
            stride_dst: sd,
            batch,
        };
        Case {
            p,
            src: (0..ss * batch * es).map(|i| (i * 7 + 1) as u8).collect(),
            before: (0..sd * batch * es).map(|i| (i * 13 + 5) as u8).collect(),
        }
    }

    fn want(&self) -> Vec<u8> {
        let p = &self.p;
        let es = p.element_bytes as usize;
        let mut want = self.before.clone();
        for q in 0..p.batch {
            for j in 0..p.cols {
                for i in 0..p.rows {
                    let from = (q * p.stride_src + i + j * p.ld_src) * es;
                    let to = (q * p.stride_dst + j + i * p.ld_dst) * es;
                    want[to..to + es].copy_from_slice(&self.src[from..from + es]);
                }
            }
        }
        want
    }

    /// The plan with the destination in slot 0 and the source in slot 1.
    fn plan(&self, target: &Target) -> Plan {
        let view = |slot, access| {
            move |at: u64, bytes: u64| Arg::Buffer {
                slot,
                offset_bytes: at,
                touched: at..at + bytes,
                access,
            }
        };
        let steps = transpose::steps(
            &self.p,
            target,
            view(1, Access::Read),
            view(0, Access::Write),
        )
        .unwrap();
        let plan = Plan {
            steps,
            workspace_bytes: 0,
        };
        plan.check(target).unwrap();
        plan
    }

    fn on_device(&self, dev: &Device) {
        let plan = self.plan(dev.target());
        let src = dev.upload(&self.src).unwrap();
        let mut dst = dev.upload(&self.before).unwrap();
        {
            let s = src.as_slice();
            let mut d = dst.as_slice_mut();
            let views = [DeviceView::write(&mut d), DeviceView::read(&s)];
            exec::execute(&plan, dev.default_stream(), &views, None)
                .unwrap_or_else(|e| panic!("{}: {:?}: {e}", dev.id(), self.p));
        }
        assert!(
            dst.to_vec().unwrap() == self.want(),
            "{}: {:?}",
            dev.id(),
            self.p
        );
        // The same plan prepared once and run on fresh buffers gives the same bytes.
        let prepared = exec::Prepared::new(&plan, dev)
            .unwrap()
            .expect("a plan of buffer arguments only prepares");
        let mut again = dev.upload(&self.before).unwrap();
        {
            let s = src.as_slice();
            let mut d = again.as_slice_mut();
            prepared
                .run(
                    dev.default_stream(),
                    &[DeviceView::write(&mut d), DeviceView::read(&s)],
                )
                .unwrap_or_else(|e| panic!("{}: {:?}: {e}", dev.id(), self.p));
        }
        assert!(
            again.to_vec().unwrap() == self.want(),
            "{}: prepared",
            dev.id()
        );
    }

    fn in_ptx_sim(&self, target: &Target) {
        let plan = self.plan(target);
        let mut mem = ptx_sim::Memory::default();
        let src = mem.alloc(self.src.clone());
        let dst = mem.alloc(self.before.clone());
        let views = [
            View {
                address: dst,
                bytes: self.before.len() as u64,
            },
            View {
                address: src,
                bytes: self.src.len() as u64,
            },
        ];
        ptx_sim::plan::run(&plan, target, &views, &mut mem);
        assert!(
            mem.bytes(dst) == self.want().as_slice(),
            "{target}: {:?}",
            self.p
        );
    }
}

#[test]
fn transposes_on_every_emulated_target() {
    for t in TARGETS {
        let dev = common::emu(t);
        for es in [2, 4, 8] {
            for shape in SHAPES {
                Case::new(es, shape).on_device(&dev);
            }
        }
    }
}

#[test]
fn transposes_in_the_ptx_interpreter() {
    for t in ["sm_80", "sm_90a"] {
        let target: Target = t.parse().unwrap();
        for es in [2, 4, 8] {
            for shape in SHAPES {
                Case::new(es, shape).in_ptx_sim(&target);
            }
        }
    }
}

#[test]
fn passes_ptxas_without_spills() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!(
            "skipped: ptxas not found ({})",
            rocm_kernels::ptxas::HOW_TO_GET
        );
        return;
    };
    for element_bytes in [2u32, 4, 8] {
        let p = TransposeParams { element_bytes };
        for t in ["sm_80", "sm_90", "sm_90a"] {
            let target: Target = t.parse().unwrap();
            let ModuleImage::Ptx(text) = Transpose::generate(&p, &target).unwrap().image else {
                panic!("{t}: not PTX")
            };
            let report = ptxas.compile(&text, &target).unwrap();
            assert!(report.warnings.is_empty(), "{t}: {:?}", report.warnings);
            let r = report.kernel(transpose::KERNEL).unwrap();
            assert_eq!(
                r.spill_stores + r.spill_loads,
                0,
                "{t} {element_bytes} spills"
            );
            eprintln!("{t} {element_bytes}-byte: {} registers", r.registers);
        }
    }
}

/// A prepared plan checks each run's views as `execute` does: too short, read-only where
/// the kernel writes, on another device, or too few are errors (the same kind from both),
/// and a stream of another device is refused.
#[test]
fn prepared_plans_check_views_as_execute_does() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let case = Case::new(4, (5, 3, 1, 2, 2));
    let plan = case.plan(dev.target());
    let prepared = exec::Prepared::new(&plan, &dev).unwrap().unwrap();
    let stream = dev.default_stream();
    let src = dev.upload(&case.src).unwrap();
    let short = dev.upload(&case.before[..case.before.len() / 2]).unwrap();
    let mut dst = dev.upload(&case.before).unwrap();
    let cpu = Device::cpu();
    let on_cpu = cpu.upload(&case.before).unwrap();
    let s = src.as_slice();
    let short = short.as_slice();
    let on_cpu = on_cpu.as_slice();
    let both = |views: &[DeviceView<'_>]| {
        let a = exec::execute(&plan, stream, views, None).unwrap_err();
        let b = prepared.run(stream, views).unwrap_err();
        assert_eq!(
            std::mem::discriminant(&a),
            std::mem::discriminant(&b),
            "execute: {a}; prepared: {b}"
        );
        b
    };
    let e = both(&[DeviceView::read(&short), DeviceView::read(&s)]);
    assert!(e.to_string().contains("outside"), "{e}");
    let e = both(&[DeviceView::read(&dst.as_slice()), DeviceView::read(&s)]);
    assert!(e.to_string().contains("read-only"), "{e}");
    let e = both(&[DeviceView::read(&on_cpu), DeviceView::read(&s)]);
    assert!(matches!(e, rocm_core::Error::DeviceMismatch { .. }), "{e}");
    let mut d = dst.as_slice_mut();
    let e = both(&[DeviceView::write(&mut d)]);
    assert!(e.to_string().contains("no view"), "{e}");
    let e = prepared
        .run(
            cpu.default_stream(),
            &[DeviceView::write(&mut d), DeviceView::read(&s)],
        )
        .unwrap_err();
    assert!(matches!(e, rocm_core::Error::DeviceMismatch { .. }), "{e}");
    prepared
        .run(stream, &[DeviceView::write(&mut d), DeviceView::read(&s)])
        .unwrap();
    assert!(dst.to_vec().unwrap() == case.want());
}

#[test]
fn bad_problems_are_errors() {
    let target: Target = "gfx90a".parse().unwrap();
    let arg = |_, _| Arg::Workspace {
        offset: 0,
        bytes: 0,
    };
    let mut p = Case::new(4, (3, 2, 0, 0, 1)).p;
    p.ld_src = 2;
    let e = transpose::steps(&p, &target, arg, arg).unwrap_err();
    assert!(e.to_string().contains("leading dimensions"), "{e}");
    p.ld_src = 3;
    p.element_bytes = 3;
    assert!(transpose::steps(&p, &target, arg, arg).is_err());
    p.element_bytes = 4;
    p.stride_src = usize::MAX / 2;
    p.batch = 4;
    let e = transpose::steps(&p, &target, arg, arg).unwrap_err();
    assert!(e.to_string().contains("2^64"), "{e}");
    p.rows = 0;
    assert!(transpose::steps(&p, &target, arg, arg).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn random_shapes_agree_on_emu_and_the_ptx_interpreter(
        rows in 1usize..80,
        cols in 1usize..80,
        pad_src in 0usize..4,
        pad_dst in 0usize..4,
        batch in 1usize..3,
        es in prop::sample::select(vec![2usize, 4, 8]),
        target in 0usize..4,
    ) {
        let case = Case::new(es, (rows, cols, pad_src, pad_dst, batch));
        case.on_device(&common::emu(TARGETS[target]));
        case.in_ptx_sim(&"sm_90".parse().unwrap());
    }
}
