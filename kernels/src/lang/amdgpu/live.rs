//! Live ranges over the structured program, for the linear-scan register allocation.
//!
//! Statements are numbered in program order (pre-order; an `If` or `Loop` takes one
//! number for its head and one for its end, after its blocks). A value or variable lives
//! from its definition to its last use, and one used inside a loop but defined before
//! it lives to the loop's end (the next iteration reads it again). `then` and
//! `otherwise` are numbered one after the other, which is also the order the lowering
//! emits them in, so a register freed in `then` may be reused in `otherwise`: lanes of
//! one branch never read what the other branch's lanes computed.
//!
//! Values nothing needs (no store, branch, variable or atomic depends on them, directly
//! or through other values) are dead: the lowering emits nothing for them, and their
//! reads do not keep their inputs live.

use crate::lang::ir::{Block, KernelDef, Op, Stmt};

/// Where each value and variable is last used.
#[derive(Debug, Clone)]
pub(crate) struct Liveness {
    /// By value id: the statement number after which its registers are free.
    pub value_end: Vec<u32>,
    /// By variable id.
    pub var_end: Vec<u32>,
    /// By value id: whether anything reads it.
    pub value_used: Vec<bool>,
    /// By variable id: the statement numbers that assign it.
    pub var_assigns: Vec<Vec<u32>>,
    /// By value id: whether anything with an effect depends on it (see [`needed`]).
    pub value_needed: Vec<bool>,
}

/// Whether an operation may be left out when its value is dead: everything but an
/// atomic, which writes memory.
pub(crate) fn pure(op: &Op) -> bool {
    !matches!(op, Op::Atomic { .. })
}

/// The `Let`s of `b` in program order, and the values statements other than pure
/// `Let`s read (the roots of [`needed`]).
fn lets<'a>(b: &'a Block, out: &mut Vec<(u32, &'a Op)>, roots: &mut Vec<u32>) {
    for s in &b.0 {
        match s {
            Stmt::Let(v, op) => {
                out.push((v.id, op));
                if !pure(op) {
                    roots.extend(op.inputs().iter().map(|i| i.id));
                    roots.push(v.id);
                }
            }
            Stmt::Var(_, v) | Stmt::Assign(_, v) => roots.push(v.id),
            Stmt::Store(m, v) => roots.extend([m.offset.id, v.id]),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                roots.push(cond.id);
                lets(then, out, roots);
                lets(otherwise, out, roots);
            }
            Stmt::Loop { body, latch } => {
                lets(body, out, roots);
                lets(latch, out, roots);
            }
            Stmt::Break(c) | Stmt::Continue(c) => roots.push(c.id),
            Stmt::Barrier | Stmt::Fence(_) => {}
        }
    }
}

/// By value id: whether a store, branch, variable or atomic depends on the value. A
/// `Let` reads only values defined before it, so one pass backwards over the `Let`s in
/// program order finds every needed value.
pub(crate) fn needed(def: &KernelDef) -> Vec<bool> {
    let mut all = Vec::new();
    let mut roots = Vec::new();
    lets(&def.body, &mut all, &mut roots);
    let mut needed = vec![false; def.values.len()];
    for r in roots {
        needed[r as usize] = true;
    }
    for (v, op) in all.iter().rev() {
        if needed[*v as usize] {
            for i in op.inputs() {
                needed[i.id as usize] = true;
            }
        }
    }
    needed
}

struct Walk {
    pos: u32,
    needed: Vec<bool>,
    value_def: Vec<u32>,
    var_def: Vec<u32>,
    /// (value or var, is_var, use position)
    uses: Vec<(u32, bool, u32)>,
    /// (head, end) of every loop.
    loops: Vec<(u32, u32)>,
    /// (var, position) of every assignment.
    assigns: Vec<(u32, u32)>,
}

impl Walk {
    fn use_value(&mut self, id: u32) {
        self.uses.push((id, false, self.pos));
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.pos += 1;
            match s {
                Stmt::Let(v, op) => {
                    self.value_def[v.id as usize] = self.pos;
                    if !self.needed[v.id as usize] && pure(op) {
                        continue;
                    }
                    for i in op.inputs() {
                        self.use_value(i.id);
                    }
                    if let Op::Var(var) = op {
                        self.uses.push((var.id, true, self.pos));
                    }
                }
                Stmt::Var(var, v) => {
                    self.var_def[var.id as usize] = self.pos;
                    self.use_value(v.id);
                }
                Stmt::Assign(var, v) => {
                    self.uses.push((var.id, true, self.pos));
                    self.assigns.push((var.id, self.pos));
                    self.use_value(v.id);
                }
                Stmt::Store(m, v) => {
                    self.use_value(m.offset.id);
                    self.use_value(v.id);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.use_value(cond.id);
                    self.block(then);
                    self.block(otherwise);
                    self.pos += 1;
                }
                Stmt::Loop { body, latch } => {
                    let head = self.pos;
                    self.block(body);
                    self.block(latch);
                    self.pos += 1;
                    self.loops.push((head, self.pos));
                }
                Stmt::Break(c) | Stmt::Continue(c) => self.use_value(c.id),
                Stmt::Barrier | Stmt::Fence(_) => {}
            }
        }
    }
}

/// The live ranges of `def`'s values and variables.
pub(crate) fn liveness(def: &KernelDef) -> Liveness {
    let mut w = Walk {
        pos: 0,
        needed: needed(def),
        value_def: vec![0; def.values.len()],
        var_def: vec![0; def.vars.len()],
        uses: Vec::new(),
        loops: Vec::new(),
        assigns: Vec::new(),
    };
    w.block(&def.body);
    let mut value_end = w.value_def.clone();
    let mut var_end = w.var_def.clone();
    let mut value_used = vec![false; def.values.len()];
    let mut var_assigns = vec![Vec::new(); def.vars.len()];
    for &(id, at) in &w.assigns {
        var_assigns[id as usize].push(at);
    }
    for &(id, is_var, at) in &w.uses {
        let defined = if is_var {
            w.var_def[id as usize]
        } else {
            w.value_def[id as usize]
        };
        // The last end of a loop that holds the use but not the definition.
        let end = w
            .loops
            .iter()
            .filter(|&&(head, end)| head < at && at <= end && defined < head)
            .map(|&(_, end)| end)
            .max()
            .unwrap_or(at);
        let slot = if is_var {
            &mut var_end[id as usize]
        } else {
            value_used[id as usize] = true;
            &mut value_end[id as usize]
        };
        *slot = (*slot).max(end);
    }
    Liveness {
        value_end,
        var_end,
        value_used,
        var_assigns,
        value_needed: w.needed,
    }
}
