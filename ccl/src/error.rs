//! The failures particular to communication, and how they travel between ranks.
//!
//! They are reported as [`rocm_core::Error::Backend`] with `api` = `rocm-ccl <op>` and one
//! of the codes of [`FailureKind`], so that callers can tell a timeout from an abort
//! ([`failure_kind`]). Disagreeing arguments across ranks are
//! [`rocm_core::Error::InvalidArgument`] on the rank that saw them.
//!
//! A failing rank *poisons* its communicator: it writes an [`AbortReason`] into the abort
//! word that every rank of a shared-memory communicator watches, and closes its sockets so
//! that TCP peers see the failure too. Every pending and later call of every rank then
//! returns an error instead of hanging (NCCL leaves the hang to a watchdog).

use rocm_core::Error;
use std::time::Duration;

/// Why a communicator stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// `abort()` was called.
    Aborted = 1,
    /// A blocking call ran past its timeout.
    Timeout = 2,
    /// The ranks disagreed on a call's arguments.
    Mismatch = 3,
    /// A peer died or closed its connection.
    PeerLost = 4,
}

impl FailureKind {
    const ALL: [FailureKind; 4] = [
        FailureKind::Aborted,
        FailureKind::Timeout,
        FailureKind::Mismatch,
        FailureKind::PeerLost,
    ];

    /// The error code reported in [`Error::Backend`].
    pub const fn code(self) -> i64 {
        100 + self as i64
    }

    fn describe(self) -> &'static str {
        match self {
            FailureKind::Aborted => "abort() was called",
            FailureKind::Timeout => "a call timed out",
            FailureKind::Mismatch => "the ranks disagreed on a call's arguments",
            FailureKind::PeerLost => "a peer rank died or closed its connection",
        }
    }
}

/// The kind of a communication failure, if `e` is one.
pub fn failure_kind(e: &Error) -> Option<FailureKind> {
    match e {
        Error::Backend { api, code, .. } if api.starts_with("rocm-ccl") => {
            FailureKind::ALL.into_iter().find(|k| k.code() == *code)
        }
        Error::InvalidArgument { why, .. } if why.contains("ranks disagree") => {
            Some(FailureKind::Mismatch)
        }
        _ => None,
    }
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
        let kind = FailureKind::ALL
            .into_iter()
            .find(|k| *k as u32 == word >> 24)
            .unwrap_or(FailureKind::Aborted);
        Some(AbortReason {
            kind,
            rank: ((word & 0x00ff_ffff) as usize).saturating_sub(1),
        })
    }
}

/// The error a call returns when it finds its communicator poisoned by `reason`.
pub(crate) fn aborted(op: &str, me: usize, reason: AbortReason) -> Error {
    Error::backend(
        format!("rocm-ccl {op}"),
        reason.kind.code(),
        format!(
            "rank {me}: the communicator was stopped by rank {}: {}",
            reason.rank,
            reason.kind.describe()
        ),
    )
}

/// The error of a call that waited longer than its timeout.
pub(crate) fn timed_out(op: &str, me: usize, timeout: Duration, waiting_for: &str) -> Error {
    Error::backend(
        format!("rocm-ccl {op}"),
        FailureKind::Timeout.code(),
        format!("rank {me}: timed out after {timeout:?} waiting for {waiting_for}"),
    )
}

/// The error of a call whose peer went away.
pub(crate) fn peer_lost(op: &str, me: usize, detail: impl std::fmt::Display) -> Error {
    Error::backend(
        format!("rocm-ccl {op}"),
        FailureKind::PeerLost.code(),
        format!("rank {me}: {detail}"),
    )
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
        let e = timed_out("all_reduce", 1, Duration::from_millis(5), "rank 0");
        assert_eq!(failure_kind(&e), Some(FailureKind::Timeout));
        let r = AbortReason {
            kind: FailureKind::PeerLost,
            rank: 2,
        };
        assert_eq!(
            failure_kind(&aborted("x", 0, r)),
            Some(FailureKind::PeerLost)
        );
        assert_eq!(failure_kind(&Error::invalid("a", "b")), None);
    }
}
