//! A kernel decoded once for execution: instructions indexed by position, their byte
//! pcs, and branch targets resolved to instruction indices.
//!
//! Rules:
//! - The code is decoded from the entry in order. Bytes that do not decode (padding
//!   after `s_endpgm`, or an instruction outside the model) end the program with an
//!   [`Program::undecodable`] note: reaching that pc is a fault naming the decode error,
//!   while a kernel that never gets there runs normally.
//! - A branch whose target is not the first byte of a decoded instruction (the middle
//!   of one, before the entry or past the end) resolves to [`Target::Invalid`]; taking it
//!   is a fault naming the target address.
//! - Running off the end of the program without `s_endpgm` is a fault.

use crate::isa::amdgpu::{decode, Instr, IsaTarget, Operand};

/// Where a branch goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The instruction at this index.
    Index(usize),
    /// A byte offset from the entry that starts no instruction.
    Invalid(i64),
}

/// A decoded kernel.
#[derive(Debug, Clone)]
pub struct Program {
    pub instrs: Vec<Instr>,
    /// Byte offset of each instruction from the entry.
    pub pcs: Vec<u64>,
    /// Per instruction: its branch target, if it is a branch.
    pub targets: Vec<Option<Target>>,
    /// Byte offset and message where decoding stopped, if it did before the end.
    pub undecodable: Option<(u64, String)>,
    /// Bytes of code.
    pub code_bytes: u64,
}

impl Program {
    /// Decodes `words` (the code from the kernel's entry) for `target`.
    pub fn decode(words: &[u32], target: IsaTarget) -> Program {
        let mut instrs = Vec::new();
        let mut pcs = Vec::new();
        let mut undecodable = None;
        let mut at = 0usize;
        while at < words.len() {
            match decode(&words[at..], target) {
                Ok((i, n)) => {
                    instrs.push(i);
                    pcs.push(at as u64 * 4);
                    at += n;
                }
                Err(e) => {
                    undecodable = Some((at as u64 * 4, e.to_string()));
                    break;
                }
            }
        }
        let index_of = |byte: i64| -> Target {
            if byte < 0 {
                return Target::Invalid(byte);
            }
            match pcs.binary_search(&(byte as u64)) {
                Ok(i) => Target::Index(i),
                Err(_) => Target::Invalid(byte),
            }
        };
        let targets = instrs
            .iter()
            .enumerate()
            .map(|(k, i)| {
                if !i.op.is_branch() {
                    return None;
                }
                let next = pcs[k] as i64 + 4;
                let delta = match i.operands.first() {
                    Some(Operand::Imm(d)) => i64::from(*d),
                    _ => 0,
                };
                Some(index_of(next + delta * 4))
            })
            .collect();
        Program {
            instrs,
            pcs,
            targets,
            undecodable,
            code_bytes: words.len() as u64 * 4,
        }
    }

    /// The instruction starting at byte `offset` from the entry, if one does.
    pub fn index_of(&self, offset: u64) -> Option<usize> {
        self.pcs.binary_search(&offset).ok()
    }

    /// The byte pc of instruction `index` (or where decoding stopped past the last one).
    pub fn pc(&self, index: usize) -> u64 {
        match self.pcs.get(index) {
            Some(&p) => p,
            None => self
                .undecodable
                .as_ref()
                .map(|u| u.0)
                .unwrap_or(self.code_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::amdgpu::{encode_all, s, Op, Operand};

    #[test]
    fn branch_targets_resolve_to_instruction_starts() {
        let t = IsaTarget::Gfx90a;
        let code = [
            Instr::new(Op::SMovB32, [s(0), Operand::Literal(0x1234_5678)]), // 8 bytes
            Instr::new(Op::SBranch, [Operand::Imm(-3)]),                    // back to byte 0
            Instr::new(Op::SBranch, [Operand::Imm(-3)]),                    // into the literal
            Instr::new(Op::SBranch, [Operand::Imm(5)]),                     // past the end
            Instr::new(Op::SBranch, [Operand::Imm(0)]),                     // the next instruction
            Instr::new(Op::SEndpgm, []),
        ];
        let mut words = encode_all(&code, t).unwrap();
        words.push(0xffff_ffff);
        let p = Program::decode(&words, t);
        assert_eq!(p.instrs.len(), 6);
        assert_eq!(p.pcs, vec![0, 8, 12, 16, 20, 24]);
        assert_eq!(p.targets[1], Some(Target::Index(0)));
        assert_eq!(p.targets[2], Some(Target::Invalid(4)));
        assert_eq!(p.targets[3], Some(Target::Invalid(40)));
        assert_eq!(p.targets[4], Some(Target::Index(5)));
        assert_eq!(p.targets[0], None);
        assert_eq!(p.undecodable.as_ref().map(|u| u.0), Some(28));
        assert_eq!(p.pc(6), 28);
    }
}
