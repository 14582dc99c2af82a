//! A small PTX interpreter for the instruction subset our GEMM generator emits, so the
//! generated kernels can be executed (slowly, exactly) without a GPU.
//!
//! Threads of a block run one after another up to each `bar.sync` (this order is one the
//! hardware may also produce); a named barrier `bar.sync id, count` releases once
//! `count` threads wait at `id`, a plain one once every thread of the block does. The
//! warp-collective instructions run when every live lane of the warp has reached them:
//! `shfl.sync` (down, up, bfly, idx) and `vote.sync` (full mask) and the matrix instructions, f64
//! `mma.sync.m8n8k4` and the others in [`Kernel::mma`], with the PTX ISA's fragment
//! layout; the warpgroup MMA
//! (`wgmma.mma_async`, [`wgmma`]) runs when all 128 threads of the warpgroup have.
//! Asynchronous copies (`cp.async`) complete at once (one order the hardware may
//! produce; a missing wait cannot be caught, a wrong address or layout can). Global
//! memory is a set of separate allocations: an access outside every allocation panics,
//! which catches edge predicates that let a load or store escape the matrix. An
//! instruction the interpreter does not know panics rather than being skipped.

pub mod host;
pub mod plan;
mod wgmma;

use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Arg {
    Reg(usize),
    Imm(u64),
    Special(&'static str),
    /// The shared array's address ([`SHARED_BASE`]: one array per kernel).
    Shared,
    Mem(Box<Arg>, i64),
    List(Vec<usize>),
    Label(String),
    Param(usize),
}

/// Where the simulated shared array starts in the shared window. Not 0, as on the
/// hardware, so a kernel that adds the array's address to an offset twice reads out of
/// range; 1024-aligned, so the 128-byte swizzle (address bits 4–9) sees what it would
/// see with the array at 0.
pub const SHARED_BASE: usize = 0x400;

/// The offset into the simulated shared array of shared address `addr`.
fn shared_offset(addr: u64, text: &str) -> usize {
    (addr as usize)
        .checked_sub(SHARED_BASE)
        .unwrap_or_else(|| panic!("shared address {addr:#x} below the array: `{text}`"))
}

#[derive(Debug, Clone)]
struct Inst {
    guard: Option<(usize, bool)>,
    op: Vec<String>,
    args: Vec<Arg>,
    text: String,
}

/// A parsed kernel.
pub struct Kernel {
    insts: Vec<Inst>,
    labels: HashMap<String, usize>,
    param_count: usize,
    shared_bytes: usize,
    reg_count: usize,
}

/// Global memory: separate allocations at well-separated addresses.
#[derive(Default)]
pub struct Memory {
    regions: Vec<(u64, Vec<u8>)>,
}

impl Memory {
    /// Allocates and fills a region; returns its address.
    pub fn alloc(&mut self, bytes: Vec<u8>) -> u64 {
        let base = 0x1000_0000u64 * (self.regions.len() as u64 + 1);
        self.regions.push((base, bytes));
        base
    }

    pub fn bytes(&self, base: u64) -> &[u8] {
        &self.regions.iter().find(|r| r.0 == base).unwrap().1
    }

    fn locate(&mut self, addr: u64, len: usize, what: &str) -> &mut [u8] {
        for (base, data) in &mut self.regions {
            if addr >= *base && addr + len as u64 <= *base + data.len() as u64 {
                let o = (addr - *base) as usize;
                return &mut data[o..o + len];
            }
        }
        panic!("{what}: global access of {len} bytes at {addr:#x} is outside every allocation");
    }
}

fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for ch in s.chars() {
        match ch {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

impl Kernel {
    /// Parses the first `.entry` of `ptx`.
    pub fn parse(ptx: &str) -> Kernel {
        let mut params: HashMap<String, usize> = HashMap::new();
        let mut regs: HashMap<String, usize> = HashMap::new();
        let mut insts = Vec::new();
        let mut labels = HashMap::new();
        let mut shared_bytes = 0;
        let mut shared_name = String::new();
        for line in ptx.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            if let Some(rest) = line.strip_prefix(".param ") {
                let name = rest
                    .split_whitespace()
                    .last()
                    .unwrap()
                    .trim_end_matches(',');
                let n = params.len();
                params.insert(name.to_string(), n);
                continue;
            }
            if let Some(rest) = line.strip_prefix(".extern .shared ") {
                // Dynamic shared memory: sized by `Kernel::set_dynamic_shared`.
                let decl = rest.split_whitespace().last().unwrap();
                shared_name = decl.split_once('[').unwrap().0.to_string();
                continue;
            }
            if let Some(rest) = line.strip_prefix(".shared ") {
                let decl = rest
                    .split_whitespace()
                    .last()
                    .unwrap()
                    .trim_end_matches(';');
                let (name, size) = decl.split_once('[').unwrap();
                shared_name = name.to_string();
                shared_bytes = size.trim_end_matches(']').parse().unwrap();
                continue;
            }
            if line.starts_with('.')
                || line.starts_with('{')
                || line.starts_with('}')
                || line.starts_with(')')
            {
                continue;
            }
            if let Some(l) = line.strip_suffix(':') {
                labels.insert(l.to_string(), insts.len());
                continue;
            }
            let text = line.trim_end_matches(';').to_string();
            let mut body = text.as_str();
            let mut guard = None;
            if let Some(rest) = body.strip_prefix('@') {
                let (g, tail) = rest.split_once(' ').unwrap();
                let (neg, name) = match g.strip_prefix('!') {
                    Some(n) => (true, n),
                    None => (false, g),
                };
                let n = regs.len();
                let id = *regs.entry(name.to_string()).or_insert(n);
                guard = Some((id, neg));
                body = tail.trim();
            }
            let (opcode, rest) = body.split_once(' ').unwrap_or((body, ""));
            let op: Vec<String> = opcode.split('.').map(String::from).collect();
            let mut reg = |name: &str| -> usize {
                let n = regs.len();
                *regs.entry(name.to_string()).or_insert(n)
            };
            let mut parse_arg = |a: &str| -> Arg {
                if let Some(inner) = a.strip_prefix('{') {
                    let inner = inner.trim_end_matches('}');
                    return Arg::List(inner.split(',').map(|r| reg(r.trim())).collect());
                }
                if let Some(inner) = a.strip_prefix('[') {
                    let inner = inner.trim_end_matches(']');
                    if let Some(&p) = params.get(inner) {
                        return Arg::Param(p);
                    }
                    let (base, off) = match inner.find(['+', '-']) {
                        Some(i) => (
                            &inner[..i],
                            inner[i..].trim_start_matches('+').parse().unwrap(),
                        ),
                        None => (inner, 0),
                    };
                    let base = if base == shared_name {
                        Arg::Shared
                    } else {
                        Arg::Reg(reg(base))
                    };
                    return Arg::Mem(Box::new(base), off);
                }
                if a == shared_name {
                    return Arg::Shared;
                }
                for s in [
                    "%tid.x",
                    "%ntid.x",
                    "%ctaid.x",
                    "%ctaid.y",
                    "%ctaid.z",
                    "%nctaid.x",
                    "%nctaid.y",
                    "%nctaid.z",
                    "%tid.y",
                    "%tid.z",
                    "%ntid.y",
                    "%ntid.z",
                    "%laneid",
                ] {
                    if a == s {
                        return Arg::Special(s);
                    }
                }
                if a.starts_with('%') {
                    return Arg::Reg(reg(a));
                }
                if let Some(h) = a.strip_prefix("0f") {
                    return Arg::Imm(u32::from_str_radix(h, 16).unwrap() as u64);
                }
                if let Some(h) = a.strip_prefix("0d") {
                    return Arg::Imm(u64::from_str_radix(h, 16).unwrap());
                }
                if let Some(h) = a.strip_prefix("0x") {
                    return Arg::Imm(u64::from_str_radix(h, 16).unwrap());
                }
                if let Ok(v) = a.parse::<i64>() {
                    return Arg::Imm(v as u64);
                }
                if let Ok(v) = a.parse::<u64>() {
                    return Arg::Imm(v);
                }
                Arg::Label(a.to_string())
            };
            let args = split_args(rest).iter().map(|a| parse_arg(a)).collect();
            insts.push(Inst {
                guard,
                op,
                args,
                text,
            });
        }
        Kernel {
            insts,
            labels,
            param_count: params.len(),
            shared_bytes,
            reg_count: regs.len(),
        }
    }

    /// Runs the kernel on `grid` blocks of `block` threads with `params` (raw bits in
    /// declaration order: addresses, integers, float bit patterns).
    pub fn run(&self, grid: [u32; 3], block: u32, params: &[u64], mem: &mut Memory) {
        assert_eq!(params.len(), self.param_count, "parameter count");
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    self.run_block([x, y, z], grid, block, params, mem);
                }
            }
        }
    }

    fn run_block(
        &self,
        ctaid: [u32; 3],
        grid: [u32; 3],
        block: u32,
        params: &[u64],
        mem: &mut Memory,
    ) {
        let mut shared = vec![0xA5u8; self.shared_bytes];
        let mut threads: Vec<Thread> = (0..block)
            .map(|t| Thread {
                regs: vec![0; self.reg_count],
                pc: 0,
                done: false,
                tid: t,
                stop: None,
            })
            .collect();
        loop {
            for t in threads.iter_mut().filter(|t| !t.done && t.stop.is_none()) {
                t.stop = self.step_until_stop(t, [ctaid, grid], block, params, mem, &mut shared);
            }
            if threads.iter().all(|t| t.done) {
                return;
            }
            // Warp-collective matrix instructions: every lane of the warp must be there.
            let mut progressed = false;
            for warp in threads.chunks_mut(32) {
                if warp.iter().any(|t| t.stop == Some(Stop::Mma)) {
                    let pc = warp[0].pc;
                    assert!(
                        warp.len() == 32
                            && warp.iter().all(|t| t.stop == Some(Stop::Mma) && t.pc == pc),
                        "mma.sync reached by part of a warp"
                    );
                    self.mma(&self.insts[pc], warp);
                    for t in warp.iter_mut() {
                        t.pc += 1;
                        t.stop = None;
                    }
                    progressed = true;
                }
            }
            // Warpgroup-collective matrix instructions: all 128 threads.
            for group in threads.chunks_mut(128) {
                if group.iter().any(|t| t.stop == Some(Stop::Wgmma)) {
                    let pc = group[0].pc;
                    assert!(
                        group.len() == 128
                            && group
                                .iter()
                                .all(|t| t.stop == Some(Stop::Wgmma) && t.pc == pc),
                        "wgmma.mma_async reached by part of a warpgroup"
                    );
                    self.wgmma(&self.insts[pc], group, &shared);
                    for t in group.iter_mut() {
                        t.pc += 1;
                        t.stop = None;
                    }
                    progressed = true;
                }
            }
            // Shuffles (full mask): all 32 lanes of the warp at the same instruction.
            for warp in threads.chunks_mut(32) {
                if warp.iter().any(|t| t.stop == Some(Stop::Shuffle)) {
                    let pc = warp[0].pc;
                    assert!(
                        warp.len() == 32
                            && warp
                                .iter()
                                .all(|t| t.stop == Some(Stop::Shuffle) && t.pc == pc),
                        "shfl.sync reached by part of a warp"
                    );
                    self.shuffle(&self.insts[pc], warp);
                    for t in warp.iter_mut() {
                        t.pc += 1;
                        t.stop = None;
                    }
                    progressed = true;
                }
            }
            // Named barriers: released once their count of threads waits.
            let mut waiting: HashMap<u64, (u64, Option<u64>)> = HashMap::new();
            for t in &threads {
                if let Some(Stop::Barrier(id, count)) = t.stop {
                    let e = waiting.entry(id).or_insert((0, count));
                    assert_eq!(e.1, count, "barrier {id} with different counts");
                    e.0 += 1;
                }
            }
            for (id, (arrived, count)) in waiting {
                if Some(arrived) == count {
                    for t in threads.iter_mut() {
                        if t.stop == Some(Stop::Barrier(id, count)) {
                            t.stop = None;
                        }
                    }
                    progressed = true;
                }
            }
            if progressed {
                continue;
            }
            let done = threads.iter().filter(|t| t.done).count();
            assert_eq!(
                done, 0,
                "some threads exited while others wait at a barrier"
            );
            assert!(
                threads
                    .iter()
                    .all(|t| matches!(t.stop, Some(Stop::Barrier(_, None)))),
                "threads diverged at a barrier"
            );
            for t in threads.iter_mut() {
                t.stop = None;
            }
        }
    }

    /// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a}, {b}, {c0, c1}`:
    /// lane l (g = l >> 2, t = l % 4) holds A[g][t], B[t][g], C[g][2t + i].
    fn mma(&self, inst: &Inst, warp: &mut [Thread]) {
        let name = inst.op.join(".");
        if name == "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" {
            return self.mma_tf32(inst, warp);
        }
        if name == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" {
            return self.mma_half(inst, warp, f16_to_f64);
        }
        if name == "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" {
            return self.mma_half(inst, warp, |h| f32::from_bits((h as u32) << 16) as f64);
        }
        for k in [4, 8, 16] {
            if name == format!("mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64") {
                return self.mma_f64_m16n8(inst, warp, k);
            }
        }
        assert_eq!(
            name, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
            "unknown matrix instruction `{}`",
            inst.text
        );
        let [d, ar, br, cr] = mma_operands(inst);
        let f = |t: &Thread, r: usize| f64::from_bits(t.regs[r]);
        let mut a = [[0.0; 4]; 8];
        let mut b = [[0.0; 8]; 4];
        let mut c = [[0.0; 8]; 8];
        for (l, t) in warp.iter().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            a[g][q] = f(t, ar[0]);
            b[q][g] = f(t, br[0]);
            c[g][2 * q] = f(t, cr[0]);
            c[g][2 * q + 1] = f(t, cr[1]);
        }
        for (l, t) in warp.iter_mut().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for (i, &dst) in d.iter().enumerate().take(2) {
                let col = 2 * q + i;
                let mut acc = c[g][col];
                for (kk, row) in b.iter().enumerate() {
                    acc = a[g][kk].mul_add(row[col], acc);
                }
                t.regs[dst] = acc.to_bits();
            }
        }
    }

    /// `mma.sync.aligned.m16n8k{K}.row.col.f64.f64.f64.f64` (K = 4, 8, 16): lane l
    /// (g = l >> 2, t = l % 4) holds, for each k-quad q < K/4, A[g][t + 4q] and
    /// A[g + 8][t + 4q] (registers 2q, 2q + 1), B[t + 4q][g] (register q), and
    /// C[g][2t + i], C[g + 8][2t + i]; each sum in k order with one rounding per fma.
    fn mma_f64_m16n8(&self, inst: &Inst, warp: &mut [Thread], k: usize) {
        let [d, ar, br, cr] = mma_operands(inst);
        assert_eq!(
            (ar.len(), br.len(), d.len()),
            (k / 2, k / 4, 4),
            "`{}`",
            inst.text
        );
        let f = |t: &Thread, r: usize| f64::from_bits(t.regs[r]);
        let mut a = vec![[0.0; 16]; 16];
        let mut b = vec![[0.0; 8]; 16];
        let mut c = [[0.0; 8]; 16];
        for (l, t) in warp.iter().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for quad in 0..k / 4 {
                a[g][q + 4 * quad] = f(t, ar[2 * quad]);
                a[g + 8][q + 4 * quad] = f(t, ar[2 * quad + 1]);
                b[q + 4 * quad][g] = f(t, br[quad]);
            }
            for h in 0..2 {
                for i in 0..2 {
                    c[g + 8 * h][2 * q + i] = f(t, cr[2 * h + i]);
                }
            }
        }
        for (l, t) in warp.iter_mut().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for h in 0..2 {
                for i in 0..2 {
                    let (row, col) = (g + 8 * h, 2 * q + i);
                    let mut acc = c[row][col];
                    for kk in 0..k {
                        acc = a[row][kk].mul_add(b[kk][col], acc);
                    }
                    t.regs[d[2 * h + i]] = acc.to_bits();
                }
            }
        }
    }

    /// Runs until `bar.sync`, `ret` (None, the thread is done) or a matrix instruction.
    fn step_until_stop(
        &self,
        t: &mut Thread,
        ids: [[u32; 3]; 2],
        block: u32,
        params: &[u64],
        mem: &mut Memory,
        shared: &mut [u8],
    ) -> Option<Stop> {
        loop {
            let inst = &self.insts[t.pc];
            t.pc += 1;
            if let Some((p, neg)) = inst.guard {
                if (t.regs[p] != 0) == neg {
                    continue;
                }
            }
            let op0 = inst.op[0].as_str();
            match op0 {
                "bar" => {
                    let id = match &inst.args[0] {
                        Arg::Reg(r) => t.regs[*r],
                        Arg::Imm(v) => *v,
                        a => panic!("barrier id {a:?} in `{}`", inst.text),
                    };
                    let count = inst.args.get(1).map(|a| match a {
                        Arg::Imm(v) => *v,
                        a => panic!("barrier count {a:?} in `{}`", inst.text),
                    });
                    return Some(Stop::Barrier(id, count));
                }
                "shfl" | "vote" => {
                    t.pc -= 1;
                    return Some(Stop::Shuffle);
                }
                "mma" => {
                    t.pc -= 1;
                    return Some(Stop::Mma);
                }
                "wgmma" if op0 == "wgmma" && inst.op[1] == "mma_async" => {
                    t.pc -= 1;
                    return Some(Stop::Wgmma);
                }
                // Fences and groups order asynchronous work, which here is already done;
                // kernels run one after another, so dependent launches wait for nothing.
                "wgmma" | "fence" | "griddepcontrol" => {}
                "cp" => self.cp_async(inst, t, mem, shared),
                "ret" => {
                    t.done = true;
                    return None;
                }
                "bra" => {
                    let Arg::Label(l) = &inst.args[0] else {
                        panic!("{}", inst.text)
                    };
                    t.pc = self.labels[l];
                }
                _ => self.exec(inst, t, ids, block, params, mem, shared),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exec(
        &self,
        inst: &Inst,
        t: &mut Thread,
        [ctaid, grid]: [[u32; 3]; 2],
        block: u32,
        params: &[u64],
        mem: &mut Memory,
        shared: &mut [u8],
    ) {
        let ty = inst.op.last().unwrap().as_str();
        let width = |ty: &str| -> u32 {
            match ty {
                "pred" => 1,
                "b8" | "u8" | "s8" => 8,
                "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
                "b32" | "u32" | "s32" | "f32" => 32,
                _ => 64,
            }
        };
        let mask = |v: u64, ty: &str| -> u64 {
            match width(ty) {
                64 => v,
                1 => (v != 0) as u64,
                w => v & ((1u64 << w) - 1),
            }
        };
        let val = |a: &Arg, t: &Thread| -> u64 {
            match a {
                Arg::Reg(r) => t.regs[*r],
                Arg::Imm(v) => *v,
                Arg::Shared => SHARED_BASE as u64,
                Arg::Special(s) => match *s {
                    "%tid.x" => t.tid as u64,
                    "%ntid.x" => block as u64,
                    "%ctaid.x" => ctaid[0] as u64,
                    "%ctaid.y" => ctaid[1] as u64,
                    "%ctaid.z" => ctaid[2] as u64,
                    "%nctaid.x" => grid[0] as u64,
                    "%nctaid.y" => grid[1] as u64,
                    "%nctaid.z" => grid[2] as u64,
                    // Blocks are one-dimensional.
                    "%tid.y" | "%tid.z" => 0,
                    "%ntid.y" | "%ntid.z" => 1,
                    "%laneid" => (t.tid % 32) as u64,
                    _ => unreachable!(),
                },
                Arg::Param(p) => params[*p],
                _ => panic!("operand {a:?} has no value in `{}`", inst.text),
            }
        };
        let dst = |a: &Arg| -> usize {
            match a {
                Arg::Reg(r) => *r,
                _ => panic!("destination {a:?} in `{}`", inst.text),
            }
        };
        let f32v = |v: u64| f32::from_bits(v as u32);
        let f64v = f64::from_bits;
        let args = &inst.args;
        let op: Vec<&str> = inst.op.iter().map(|s| s.as_str()).collect();
        let signed = |v: u64, ty: &str| -> i64 {
            match width(ty) {
                32 => v as u32 as i32 as i64,
                _ => v as i64,
            }
        };
        let result: u64 = match op[0] {
            "ld" | "st" => {
                let space = op[1];
                let count = if op.contains(&"v4") {
                    4
                } else if op.contains(&"v2") {
                    2
                } else {
                    1
                };
                let bytes = (width(ty) / 8) as usize;
                let (regs_arg, mem_arg) = if op[0] == "ld" {
                    (&args[0], &args[1])
                } else {
                    (&args[1], &args[0])
                };
                if let Arg::Param(p) = mem_arg {
                    let r = dst(regs_arg);
                    t.regs[r] = mask(params[*p], ty);
                    return;
                }
                let regs: Vec<usize> = match regs_arg {
                    Arg::List(l) => l.clone(),
                    Arg::Reg(r) => vec![*r],
                    a => panic!("{a:?} in `{}`", inst.text),
                };
                assert_eq!(regs.len(), count, "`{}`", inst.text);
                let Arg::Mem(base, off) = mem_arg else {
                    panic!("`{}`", inst.text)
                };
                let addr = val(base, t).wrapping_add(*off as u64);
                let total = bytes * count;
                assert_eq!(
                    addr % total as u64,
                    0,
                    "misaligned access in `{}`",
                    inst.text
                );
                let region: &mut [u8] = if space == "shared" {
                    let a = shared_offset(addr, &inst.text);
                    assert!(
                        a + total <= shared.len(),
                        "shared access out of range: `{}`",
                        inst.text
                    );
                    &mut shared[a..a + total]
                } else {
                    mem.locate(addr, total, &inst.text)
                };
                for (i, &r) in regs.iter().enumerate() {
                    let chunk = &mut region[i * bytes..(i + 1) * bytes];
                    if op[0] == "ld" {
                        let mut b = [0u8; 8];
                        b[..bytes].copy_from_slice(chunk);
                        t.regs[r] = u64::from_le_bytes(b);
                    } else {
                        chunk.copy_from_slice(&t.regs[r].to_le_bytes()[..bytes]);
                    }
                }
                return;
            }
            "mov" => match (&args[0], &args[1]) {
                // mov.bN {lo, hi}, r: the two N/2-bit halves of r.
                (Arg::List(l), a) if l.len() == 2 => {
                    let v = val(a, t);
                    let h = width(ty) / 2;
                    t.regs[l[0]] = v & ((1u64 << h) - 1);
                    t.regs[l[1]] = v >> h;
                    return;
                }
                // mov.bN r, {lo, hi}: two N/2-bit halves, lo in the low bits.
                (_, Arg::List(l)) if l.len() == 2 => {
                    let h = width(ty) / 2;
                    let m = (1u64 << h) - 1;
                    (t.regs[l[0]] & m) | ((t.regs[l[1]] & m) << h)
                }
                (_, a) => val(a, t),
            },
            "cvta" => val(&args[1], t),
            "cvt" if op[1..] == ["rna", "tf32", "f32"] => {
                // Round to a 10-bit mantissa, ties away from zero (finite inputs).
                let x = val(&args[1], t) as u32;
                assert!(
                    f32::from_bits(x).is_finite(),
                    "`{}` of a non-finite value",
                    inst.text
                );
                (x.wrapping_add(0x1000) & 0xFFFF_E000) as u64
            }
            "cvt" if op[op.len() - 2..] == ["f64", "f32"] => {
                // cvt.f64.f32: exact.
                (f32v(val(&args[1], t)) as f64).to_bits()
            }
            "cvt" if op[op.len() - 2..] == ["f32", "f64"] => {
                // cvt.rn.f32.f64: round to nearest even, as Rust's `as`.
                (f64v(val(&args[1], t)) as f32).to_bits() as u64
            }
            "sqrt" if ty == "f64" => f64v(val(&args[1], t)).sqrt().to_bits(),
            "sqrt" if ty == "f32" => f32v(val(&args[1], t)).sqrt().to_bits() as u64,
            "rcp" if ty == "f32" => (1.0 / f32v(val(&args[1], t))).to_bits() as u64,
            "rcp" if ty == "f64" => (1.0 / f64v(val(&args[1], t))).to_bits(),
            // rsqrt.approx.f32 at the relative error PTX documents as its worst
            // (2^-22.9), high or low by the input's last bit, so what refines it is
            // tested against that error.
            "rsqrt" if ty == "f32" => {
                let x = f32v(val(&args[1], t)) as f64;
                let exact = 1.0 / x.sqrt();
                let err = 2f64.powf(-22.9);
                let sign = if val(&args[1], t) & 1 == 0 { 1.0 } else { -1.0 };
                ((exact * (1.0 + sign * err)) as f32).to_bits() as u64
            }
            // The approximations computed exactly (rounded once from f64): tests of
            // the interpreter compare with the language's correctly rounded reference.
            "ex2" if ty == "f32" => {
                ((f32v(val(&args[1], t)) as f64).exp2() as f32).to_bits() as u64
            }
            "lg2" if ty == "f32" => {
                ((f32v(val(&args[1], t)) as f64).log2() as f32).to_bits() as u64
            }
            "abs" if ty == "f32" => (val(&args[1], t) as u32 & 0x7FFF_FFFF) as u64,
            "abs" if ty == "f64" => val(&args[1], t) & (u64::MAX >> 1),
            "min" | "max" if ty == "f32" || ty == "f64" => {
                // NaN gives the other operand; -0 is below +0.
                let (a, b) = (val(&args[1], t), val(&args[2], t));
                let f = |v: u64| if ty == "f32" { f32v(v) as f64 } else { f64v(v) };
                let (x, y) = (f(a), f(b));
                if x.is_nan() {
                    b
                } else if y.is_nan() {
                    a
                } else {
                    let less = x < y || (x == y && x.is_sign_negative() && !y.is_sign_negative());
                    if less == (op[0] == "min") {
                        a
                    } else {
                        b
                    }
                }
            }
            // cvt.rn.{f16,bf16}.f32 rounds to nearest even, as the `half` crate;
            // cvt.f32.{f16,bf16} is exact.
            "cvt" if op[op.len() - 2..] == ["f16", "f32"] => {
                rocm_core::f16::from_f32(f32v(val(&args[1], t))).to_bits() as u64
            }
            "cvt" if op[op.len() - 2..] == ["bf16", "f32"] => {
                rocm_core::bf16::from_f32(f32v(val(&args[1], t))).to_bits() as u64
            }
            "cvt" if op[op.len() - 2..] == ["f32", "f16"] => {
                rocm_core::f16::from_bits(val(&args[1], t) as u16)
                    .to_f32()
                    .to_bits() as u64
            }
            "cvt" if op[op.len() - 2..] == ["f32", "bf16"] => {
                rocm_core::bf16::from_bits(val(&args[1], t) as u16)
                    .to_f32()
                    .to_bits() as u64
            }
            // cvt.rn.{f32,f64}.{u32,s32,u64,s64}: integer to float, to nearest even (as
            // Rust's `as`).
            "cvt"
                if op[1] == "rn"
                    && matches!(op[op.len() - 2], "f32" | "f64")
                    && matches!(op[op.len() - 1], "u32" | "s32" | "u64" | "s64") =>
            {
                let (to, from) = (op[op.len() - 2], op[op.len() - 1]);
                let v = mask(val(&args[1], t), from);
                match (to, from.starts_with('s')) {
                    ("f32", true) => (signed(v, from) as f32).to_bits() as u64,
                    ("f32", false) => (v as f32).to_bits() as u64,
                    (_, true) => (signed(v, from) as f64).to_bits(),
                    _ => (v as f64).to_bits(),
                }
            }
            // shr.{s32,s64}: arithmetic shift (amounts past the width fill with the sign).
            "shr" if matches!(ty, "s32" | "s64") => {
                let a = signed(mask(val(&args[1], t), ty), ty);
                let bits = if ty == "s32" { 31 } else { 63 };
                mask((a >> val(&args[2], t).min(bits)) as u64, ty)
            }
            "cvt" => {
                // cvt.<to>.<from>: integer widening/narrowing only.
                let (to, from) = (op[op.len() - 2], op[op.len() - 1]);
                assert!(
                    !to.starts_with('f') && !from.starts_with('f'),
                    "`{}`",
                    inst.text
                );
                let v = val(&args[1], t);
                if from.starts_with('s') {
                    signed(mask(v, from), from) as u64
                } else {
                    mask(v, from)
                }
            }
            "setp" => {
                let (a, b) = (val(&args[1], t), val(&args[2], t));
                let cmp = op[1];
                let r = match ty {
                    "f32" | "f64" => {
                        let (x, y) = if ty == "f32" {
                            (f32v(a) as f64, f32v(b) as f64)
                        } else {
                            (f64v(a), f64v(b))
                        };
                        match cmp {
                            "eq" => x == y,
                            "ne" => x != y && !x.is_nan() && !y.is_nan(),
                            "lt" => x < y,
                            "le" => x <= y,
                            "gt" => x > y,
                            "ge" => x >= y,
                            _ => panic!("`{}`", inst.text),
                        }
                    }
                    _ => {
                        let (a, b) = (mask(a, ty), mask(b, ty));
                        let ord = if ty.starts_with('s') {
                            signed(a, ty).cmp(&signed(b, ty))
                        } else {
                            a.cmp(&b)
                        };
                        match cmp {
                            "eq" => ord.is_eq(),
                            "ne" => ord.is_ne(),
                            "lt" => ord.is_lt(),
                            "le" => ord.is_le(),
                            "gt" => ord.is_gt(),
                            "ge" => ord.is_ge(),
                            _ => panic!("`{}`", inst.text),
                        }
                    }
                };
                r as u64
            }
            "and" | "or" if ty == "pred" => {
                let (a, b) = (val(&args[1], t) != 0, val(&args[2], t) != 0);
                (if op[0] == "and" { a && b } else { a || b }) as u64
            }
            "not" if ty == "pred" => (val(&args[1], t) == 0) as u64,
            "not" => !val(&args[1], t),
            "and" => val(&args[1], t) & val(&args[2], t),
            "or" => val(&args[1], t) | val(&args[2], t),
            "xor" => val(&args[1], t) ^ val(&args[2], t),
            "min" | "max" if !ty.starts_with('f') => {
                let (a, b) = (mask(val(&args[1], t), ty), mask(val(&args[2], t), ty));
                let less = if ty.starts_with('s') {
                    signed(a, ty) < signed(b, ty)
                } else {
                    a < b
                };
                if less == (op[0] == "min") {
                    a
                } else {
                    b
                }
            }
            "selp" => {
                if val(&args[3], t) != 0 {
                    val(&args[1], t)
                } else {
                    val(&args[2], t)
                }
            }
            "neg" if ty == "f32" => (-f32v(val(&args[1], t))).to_bits() as u64,
            "neg" if ty == "f64" => (-f64v(val(&args[1], t))).to_bits(),
            "add" | "sub" | "mul" | "fma" | "mad" | "div" | "rem" | "shl" | "shr" => {
                let a = val(&args[1], t);
                let b = val(&args[2], t);
                match ty {
                    "f32" => {
                        let (x, y) = (f32v(a), f32v(b));
                        let r = match op[0] {
                            "add" => x + y,
                            "sub" => x - y,
                            "mul" => x * y,
                            "div" => x / y,
                            "fma" => x.mul_add(y, f32v(val(&args[3], t))),
                            _ => panic!("`{}`", inst.text),
                        };
                        r.to_bits() as u64
                    }
                    "f64" => {
                        let (x, y) = (f64v(a), f64v(b));
                        let r = match op[0] {
                            "add" => x + y,
                            "sub" => x - y,
                            "mul" => x * y,
                            "div" => x / y,
                            "fma" => x.mul_add(y, f64v(val(&args[3], t))),
                            _ => panic!("`{}`", inst.text),
                        };
                        r.to_bits()
                    }
                    _ => {
                        if op[0] == "mul" && op[1] == "wide" {
                            match ty {
                                "u32" => (a as u32 as u64) * (b as u32 as u64),
                                // Sign-extended operands, the 64-bit product's bits.
                                "s32" => {
                                    ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) as u64
                                }
                                _ => panic!("`{}`", inst.text),
                            }
                        } else {
                            let (a, b) = (mask(a, ty), mask(b, ty));
                            assert!(
                                !ty.starts_with('s')
                                    || matches!(op[0], "add" | "sub" | "mul" | "mad"),
                                "`{}`",
                                inst.text
                            );
                            let r = match op[0] {
                                "add" => a.wrapping_add(b),
                                "sub" => a.wrapping_sub(b),
                                "mul" => a.wrapping_mul(b),
                                "mad" => a.wrapping_mul(b).wrapping_add(val(&args[3], t)),
                                "div" => a / b,
                                "rem" => a % b,
                                "shl" => a << b,
                                "shr" => a >> b,
                                _ => unreachable!(),
                            };
                            mask(r, ty)
                        }
                    }
                }
            }
            _ => panic!("the simulator does not know `{}`", inst.text),
        };
        let dst_ty = match op[0] {
            "setp" => "pred",
            "cvt" => op[op.len() - 2],
            "mul" if op[1] == "wide" => "u64",
            _ => ty,
        };
        let d = dst(&args[0]);
        t.regs[d] = mask(result, dst_ty);
    }
}

impl Kernel {
    /// `shfl.sync.{down,up,bfly,idx}.b32 d, a, b, c, 0xffffffff` over the full warp
    /// (c = 31, or 0 for `up`): lane l takes lane l + b, l − b, l ^ b or b & 31's `a`
    /// where that lane exists, else its own (`b` an immediate, or a register for `idx`).
    fn shuffle(&self, inst: &Inst, warp: &mut [Thread]) {
        if inst.op[0] == "vote" {
            return self.vote(inst, warp);
        }
        let mode = inst.op.get(2).map(String::as_str);
        assert!(
            inst.op.len() == 4 && inst.op[..2] == ["shfl", "sync"] && inst.op[3] == "b32",
            "unknown shuffle `{}`",
            inst.text
        );
        let (Arg::Reg(d), Arg::Reg(a), Arg::Imm(c), Arg::Imm(0xffff_ffff)) =
            (&inst.args[0], &inst.args[1], &inst.args[3], &inst.args[4])
        else {
            panic!("shuffle operands in `{}`", inst.text)
        };
        assert_eq!(
            *c,
            if mode == Some("up") { 0 } else { 31 },
            "`{}`",
            inst.text
        );
        let b: Vec<usize> = warp
            .iter()
            .map(|t| match &inst.args[2] {
                Arg::Imm(v) => *v as usize,
                Arg::Reg(r) if mode == Some("idx") => t.regs[*r] as usize,
                other => panic!("shuffle operand {other:?} in `{}`", inst.text),
            })
            .collect();
        let src: Vec<u64> = warp.iter().map(|t| t.regs[*a] & 0xFFFF_FFFF).collect();
        for (l, t) in warp.iter_mut().enumerate() {
            let from = match mode {
                Some("down") => Some(l + b[l]),
                Some("up") => l.checked_sub(b[l]),
                Some("bfly") => Some(l ^ b[l]),
                Some("idx") => Some(b[l] & 31),
                _ => panic!("unknown shuffle `{}`", inst.text),
            };
            t.regs[*d] = src[from.filter(|&f| f < 32).unwrap_or(l)];
        }
    }

    /// `vote.sync.{ballot.b32,any.pred,all.pred} d, p, 0xffffffff` over the full warp.
    fn vote(&self, inst: &Inst, warp: &mut [Thread]) {
        let (Arg::Reg(d), Arg::Reg(p), Arg::Imm(0xffff_ffff)) =
            (&inst.args[0], &inst.args[1], &inst.args[2])
        else {
            panic!("vote operands in `{}`", inst.text)
        };
        let bits: Vec<bool> = warp.iter().map(|t| t.regs[*p] != 0).collect();
        let r = match inst.op.join(".").as_str() {
            "vote.sync.ballot.b32" => bits
                .iter()
                .enumerate()
                .fold(0u64, |b, (l, &on)| b | (on as u64) << l),
            "vote.sync.any.pred" => bits.iter().any(|&b| b) as u64,
            "vote.sync.all.pred" => bits.iter().all(|&b| b) as u64,
            _ => panic!("unknown vote `{}`", inst.text),
        };
        for t in warp.iter_mut() {
            t.regs[*d] = r;
        }
    }

    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {d0..d3}, {a0..a3}, {b0, b1},
    /// {c0..c3}`: lane l (g = l >> 2, t = l % 4) holds A[g][t], A[g+8][t], A[g][t+4],
    /// A[g+8][t+4]; B[t][g], B[t+4][g]; C[g][2t+i], C[g+8][2t+i]. Products of tf32 values
    /// are exact in f64; the sum is rounded once to f32.
    fn mma_tf32(&self, inst: &Inst, warp: &mut [Thread]) {
        let [d, ar, br, cr] = mma_operands(inst);
        let f = |t: &Thread, r: usize| f32::from_bits(t.regs[r] as u32) as f64;
        let mut a = [[0.0; 8]; 16];
        let mut b = [[0.0; 8]; 8];
        let mut c = [[0.0; 8]; 16];
        for (l, t) in warp.iter().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            a[g][q] = f(t, ar[0]);
            a[g + 8][q] = f(t, ar[1]);
            a[g][q + 4] = f(t, ar[2]);
            a[g + 8][q + 4] = f(t, ar[3]);
            b[q][g] = f(t, br[0]);
            b[q + 4][g] = f(t, br[1]);
            c[g][2 * q] = f(t, cr[0]);
            c[g][2 * q + 1] = f(t, cr[1]);
            c[g + 8][2 * q] = f(t, cr[2]);
            c[g + 8][2 * q + 1] = f(t, cr[3]);
        }
        for (l, t) in warp.iter_mut().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for (i, &dst) in d.iter().enumerate() {
                let (row, col) = (g + 8 * (i / 2), 2 * q + i % 2);
                let sum: f64 = c[row][col] + (0..8).map(|kk| a[row][kk] * b[kk][col]).sum::<f64>();
                t.regs[dst] = (sum as f32).to_bits() as u64;
            }
        }
    }
}

/// An IEEE half's value (every finite pattern).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (((h >> 10) & 0x1F) as i32, (h & 0x3FF) as f64);
    assert!(e != 31, "f16 {h:#x} is not finite");
    sign * if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    }
}

impl Kernel {
    /// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}...`: lane l (g = l >> 2,
    /// t = l % 4) holds, low half first, A[g][2t..2t+2], A[g+8][2t..], A[g][2t+8..],
    /// A[g+8][2t+8..]; B[2t..2t+2][g], B[2t+8..2t+10][g]; C[g][2t+i], C[g+8][2t+i].
    /// Products of 16-bit values are exact in f64; the sum is rounded once to f32.
    fn mma_half(&self, inst: &Inst, warp: &mut [Thread], decode: impl Fn(u16) -> f64) {
        let [d, ar, br, cr] = mma_operands(inst);
        let halves = |t: &Thread, r: usize| -> (f64, f64) {
            let v = t.regs[r];
            (decode(v as u16), decode((v >> 16) as u16))
        };
        let f = |t: &Thread, r: usize| f32::from_bits(t.regs[r] as u32) as f64;
        let mut a = [[0.0; 16]; 16];
        let mut b = [[0.0; 8]; 16];
        let mut c = [[0.0; 8]; 16];
        for (l, t) in warp.iter().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for (i, (row, col)) in [
                (g, 2 * q),
                (g + 8, 2 * q),
                (g, 2 * q + 8),
                (g + 8, 2 * q + 8),
            ]
            .into_iter()
            .enumerate()
            {
                let (lo, hi) = halves(t, ar[i]);
                a[row][col] = lo;
                a[row][col + 1] = hi;
            }
            for (i, row) in [2 * q, 2 * q + 8].into_iter().enumerate() {
                let (lo, hi) = halves(t, br[i]);
                b[row][g] = lo;
                b[row + 1][g] = hi;
            }
            c[g][2 * q] = f(t, cr[0]);
            c[g][2 * q + 1] = f(t, cr[1]);
            c[g + 8][2 * q] = f(t, cr[2]);
            c[g + 8][2 * q + 1] = f(t, cr[3]);
        }
        for (l, t) in warp.iter_mut().enumerate() {
            let (g, q) = (l >> 2, l % 4);
            for (i, &dst) in d.iter().enumerate() {
                let (row, col) = (g + 8 * (i / 2), 2 * q + i % 2);
                let sum: f64 = c[row][col] + (0..16).map(|kk| a[row][kk] * b[kk][col]).sum::<f64>();
                t.regs[dst] = (sum as f32).to_bits() as u64;
            }
        }
    }
}

/// Why a thread stopped before the others caught up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `bar.sync id[, count]`: the barrier and, for a named one, its thread count.
    Barrier(u64, Option<u64>),
    Shuffle,
    Mma,
    Wgmma,
}

struct Thread {
    regs: Vec<u64>,
    pc: usize,
    done: bool,
    tid: u32,
    stop: Option<Stop>,
}

/// The four register lists of an `mma` instruction: D, A, B, C.
fn mma_operands(inst: &Inst) -> [Vec<usize>; 4] {
    std::array::from_fn(|i| match &inst.args[i] {
        Arg::List(l) => l.clone(),
        other => panic!("{other:?} in `{}`", inst.text),
    })
}
