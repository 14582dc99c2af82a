//! The failures particular to communication, and how they travel between ranks.
//!
//! They are rocm-core's typed errors: [`Error::Timeout`], [`Error::PeerLost`],
//! [`Error::Mismatch`] (the ranks disagree on a call's arguments) and [`Error::Aborted`]
//! (the communicator was stopped, with the [`FailureKind`] that stopped it), so callers
//! tell them apart by variant ([`failure_kind`]).
//!
//! A failing rank *poisons* its communicator: it writes an [`AbortReason`] into the abort
//! word that every rank of a shared-memory communicator watches, and closes its sockets so
//! that TCP peers see the failure too. Every pending and later call of every rank then
//! returns an error instead of hanging (NCCL leaves the hang to a watchdog).

pub use rocm_core::error::FailureKind;
use rocm_core::Error;
use std::time::Duration;

/// The kind of a communication failure, if `e` is one.
pub fn failure_kind(e: &Error) -> Option<FailureKind> {
    e.failure_kind()
}

/// What is written into the abort word: the kind and the rank that first failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AbortReason {
    pub kind: FailureKind,
    pub rank: usize,
}

impl AbortReason {
    pub fn encode(self) -> u32 {
        ((self.kind as u32) << 24) | ((self.rank as u32 + 1) & 0x00ff_ffff)
    }

    pub fn decode(word: u32) -> Option<AbortReason> {
        if word == 0 {
            return None;
        }
        let kind = FailureKind::from_code(word >> 24).unwrap_or(FailureKind::Aborted);
        Some(AbortReason {
            kind,
            rank: ((word & 0x00ff_ffff) as usize).saturating_sub(1),
        })
    }
}

/// The operation name errors carry: `rocm-ccl <op>`.
fn call(op: &str) -> String {
    format!("rocm-ccl {op}")
}

/// The error a call returns when it finds its communicator poisoned by `reason`.
pub(crate) fn aborted(op: &str, me: usize, reason: AbortReason) -> Error {
    Error::Aborted {
        op: call(op),
        who: format!("rank {me}"),
        by: format!("rank {}", reason.rank),
        cause: reason.kind,
    }
}

/// The error of a call that waited longer than its timeout.
pub(crate) fn timed_out(op: &str, who: &str, timeout: Duration, waiting_for: &str) -> Error {
    Error::Timeout {
        op: call(op),
        who: who.to_string(),
        after: timeout,
        waiting_for: waiting_for.to_string(),
    }
}

/// The error of a call whose peer went away.
pub(crate) fn peer_lost(op: &str, who: &str, detail: impl std::fmt::Display) -> Error {
    Error::PeerLost {
        op: call(op),
        who: who.to_string(),
        detail: detail.to_string(),
    }
}

/// The error of ranks that disagree on the argument `what` of a call.
pub(crate) fn mismatch(what: &str, why: impl std::fmt::Display) -> Error {
    Error::Mismatch {
        what: what.to_string(),
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip() {
        for kind in FailureKind::ALL {
            for rank in [0, 1, 7, 1000] {
                let r = AbortReason { kind, rank };
                assert_eq!(AbortReason::decode(r.encode()), Some(r));
            }
        }
        assert_eq!(AbortReason::decode(0), None);
    }

    #[test]
    fn kinds_are_recognised() {
        let e = timed_out("all_reduce", "rank 1", Duration::from_millis(5), "rank 0");
        assert_eq!(failure_kind(&e), Some(FailureKind::Timeout));
        let text = e.to_string();
        assert!(
            text.contains("rocm-ccl all_reduce") && text.contains("rank 1") && text.contains("5ms"),
            "{text}"
        );
        let r = AbortReason {
            kind: FailureKind::PeerLost,
            rank: 2,
        };
        let e = aborted("x", 0, r);
        assert_eq!(failure_kind(&e), Some(FailureKind::PeerLost));
        assert!(e.to_string().contains("stopped by rank 2"), "{e}");
        assert_eq!(
            failure_kind(&peer_lost("x", "rank 0", "rank 1 closed its connection")),
            Some(FailureKind::PeerLost)
        );
        assert_eq!(
            failure_kind(&mismatch("count", "rank 0 sends 3, rank 1 sends 4")),
            Some(FailureKind::Mismatch)
        );
        assert_eq!(failure_kind(&Error::invalid("a", "ranks disagree")), None);
    }
}
