//! Common subexpressions: a value computed by the same pure operation on the same
//! inputs as an earlier value that is in scope (defined before it in an enclosing or the
//! same block) is that value. Index arithmetic repeated per buffer (x's and y's offsets
//! of one unit) then costs one set of registers. Operations that read memory,
//! variables or other lanes (loads, atomics, `Var`, wave operations) are never merged:
//! their results depend on more than their inputs.

use crate::lang::ir::{Block, KernelDef, Op, Stmt, Type, Value};
use std::collections::HashMap;

/// By value id: the earlier value it equals, if any.
pub(crate) fn same_values(def: &KernelDef) -> Vec<Option<u32>> {
    let mut w = Walk {
        rep: vec![None; def.values.len()],
        seen: HashMap::new(),
        scope: Vec::new(),
    };
    w.block(&def.body);
    w.rep
}

struct Walk {
    rep: Vec<Option<u32>>,
    /// (operation with inputs replaced by their representatives, type) → value id.
    seen: HashMap<(String, Type), u32>,
    /// Keys added in the blocks being walked, to forget on leaving them.
    scope: Vec<(String, Type)>,
}

impl Walk {
    fn canonical(&self, v: Value) -> Value {
        match self.rep[v.id as usize] {
            Some(id) => Value { id, ty: v.ty },
            None => v,
        }
    }

    /// The operation's key with its inputs' representatives (None: never merged).
    fn key(&self, op: &Op) -> Option<String> {
        let c = |v: &Value| self.canonical(*v);
        let op = match op {
            Op::Const(_) | Op::Param(_) | Op::Special(_) => op.clone(),
            Op::Unary(u, a) => Op::Unary(*u, c(a)),
            Op::Binary(b, x, y) => Op::Binary(*b, c(x), c(y)),
            Op::Fma(a, b, d) => Op::Fma(c(a), c(b), c(d)),
            Op::Cmp(k, a, b) => Op::Cmp(*k, c(a), c(b)),
            Op::Select(p, a, b) => Op::Select(c(p), c(a), c(b)),
            Op::Convert(a, r) => Op::Convert(c(a), *r),
            Op::Bitcast(a) => Op::Bitcast(c(a)),
            Op::Pack(parts) => Op::Pack(parts.iter().map(c).collect()),
            Op::Extract(a, i) => Op::Extract(c(a), *i),
            Op::Var(_)
            | Op::Load(_)
            | Op::Atomic { .. }
            | Op::Shuffle(..)
            | Op::WaveReduce(..)
            | Op::Ballot(_)
            | Op::Any(_)
            | Op::All(_) => return None,
        };
        Some(format!("{op:?}"))
    }

    fn block(&mut self, b: &Block) {
        let mark = self.scope.len();
        for s in &b.0 {
            match s {
                Stmt::Let(v, op) => {
                    let Some(k) = self.key(op) else { continue };
                    let k = (k, v.ty);
                    match self.seen.get(&k) {
                        Some(&w) => self.rep[v.id as usize] = Some(w),
                        None => {
                            self.seen.insert(k.clone(), v.id);
                            self.scope.push(k);
                        }
                    }
                }
                Stmt::If {
                    then, otherwise, ..
                } => {
                    self.block(then);
                    self.block(otherwise);
                }
                Stmt::Loop { body, latch } => {
                    self.block(body);
                    self.block(latch);
                }
                _ => {}
            }
        }
        for k in self.scope.drain(mark..) {
            self.seen.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Access, Builder, Scalar};

    #[test]
    fn repeated_pure_values_merge_within_scope_only() {
        let t = "gfx90a".parse().unwrap();
        let mut k = Builder::new("cse", &t).unwrap();
        let x = k.ptr("x", Scalar::U32, Access::ReadWrite);
        let n = k.param("n", Scalar::U32);
        let i = k.global_id();
        let a = k.mul(i, 4u32);
        let b = k.mul(i, 4u32);
        let inside = k.lt(i, n);
        let mut inner = None;
        k.if_(inside, |k| {
            let c = k.add(a, 1u32);
            inner = Some(c);
            let at = k.at(x, i);
            k.store(x, at, c);
        });
        let d = k.add(a, 1u32);
        let at = k.at(x, i);
        let l1 = k.load(x, at);
        let l2 = k.load(x, at);
        let s = k.add(l1, l2);
        let e = k.add(s, d);
        k.store(x, at, e);
        let def = k.finish().unwrap();
        let rep = same_values(&def);
        assert_eq!(rep[b.id as usize], Some(a.id));
        // Defined inside the `if`: not in scope after it.
        assert_eq!(rep[d.id as usize], None);
        let _ = inner;
        // Loads are never merged.
        assert_eq!(rep[l2.id as usize], None);
    }
}
