//! The head of line, which in-order delivery waits for, taken from a pipe
//! that holds it up (rules `reinject`, `back_up_head`, `take_head`,
//! `silent_holder`; beyond the R²CP paper: MPTCP's opportunistic
//! retransmission, Raiciu et al., NSDI 2012, §4.2).
//!
//! A pipe that may ask is the asker. If no pipe holds the head of line (its
//! request was lost, or its pipe went), the quickest working pipe takes it
//! at once (`take_head`). If a slower pipe holds it, the asker asks for it
//! too (`reinject`) when
//!
//! - the asker is blocked by the receive buffer and would bring it before
//!   the holder's answer is due (the holder's round trip after its request
//!   left), or
//! - the holder's request is overdue: past the holder's patience (its RTO,
//!   at most the engine's `HOL_PATIENCE`), or past the moment its path
//!   counts as silent under it (`silent_holder`), and the asker's round
//!   trip is shorter than what the holder shows, and no other working pipe
//!   is quicker still, and the holder does not bring it at its pace before
//!   the asker could.
//!
//! A holder whose path fell silent is timed out at once (`silent_holder`); an overdue head of line is asked of a second
//! working pipe too (`back_up_head`). When the asker leaves it, the engine
//! wakes when the holder's patience runs out, or a round trip of the asker
//! on.

use super::view::{Holder, PipeView};
use crate::r2cp::Rules;
use crate::time::{Duration, Instant};

/// What the asker does about the head of line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadStep {
    /// Nothing now; wake the engine at `wake` to look again.
    Leave {
        /// When to look again.
        wake: Option<Instant>,
    },
    /// Take the head of line, which no pipe holds.
    Take,
    /// Ask for the head of line the holder holds.
    Reinject {
        /// Time the holder out: its path fell silent.
        time_out_holder: bool,
        /// Ask this other working pipe for it too.
        back_up: Option<usize>,
    },
}

/// What `asker` does about a head of line no pipe holds: takes it unless a
/// quicker working pipe could (rule `take_head`).
pub fn unheld(rules: Rules, asker: &PipeView, others: &[PipeView]) -> HeadStep {
    let quicker_elsewhere = others
        .iter()
        .any(|q| q.index != asker.index && q.live && q.rtt < asker.rtt);
    if rules.take_head && !quicker_elsewhere {
        HeadStep::Take
    } else {
        HeadStep::Leave { wake: None }
    }
}

/// What `asker`, `blocked` by the receive buffer or not, does about the
/// head of line `holder` holds, at `now`; `others` are every pipe's views.
pub fn held(
    rules: Rules,
    now: Instant,
    asker: &PipeView,
    holder: &Holder,
    others: &[PipeView],
    blocked: bool,
) -> HeadStep {
    let leave = HeadStep::Leave { wake: None };
    if !rules.reinject || holder.pipe.index == asker.index {
        return leave;
    }
    let (ours, theirs) = (asker.rtt, holder.pipe.rtt);
    let due = holder.sent_at + theirs;
    let patience = holder.sent_at + holder.pipe.patience;
    let missed = holder.silent_at.filter(|_| rules.silent_holder);
    let late = missed.map_or(patience, |t| t.min(patience));
    // What the holder shows: its round trip, the time this request has
    // waited, and the time the pace of its answers says it will take.
    let shown = theirs.max(now.saturating_since(holder.sent_at)).max(
        holder
            .expected
            .map_or(Duration::ZERO, |t| t.saturating_since(holder.sent_at)),
    );
    let overdue = now >= late && ours < shown;
    // An overdue holder that still answers, in order, at a pace that brings
    // this request before the asker could is waited for: a queue delays
    // its answers, it does not lose them.
    let holder_brings_it = overdue && holder.expected.is_some_and(|t| t < now + ours);
    // An overdue head of line goes to the quickest pipe that may ask now,
    // not to any pipe quicker than the holder.
    let quicker_elsewhere = others.iter().any(|q| {
        q.index != asker.index
            && q.index != holder.pipe.index
            && q.live
            && !q.frozen
            && q.rtt < ours
    });
    let quicker = if overdue {
        !holder_brings_it && !quicker_elsewhere
    } else {
        blocked && now + ours < due
    };
    if !quicker {
        let wake = if late > now { late } else { now + ours };
        return HeadStep::Leave { wake: Some(wake) };
    }
    let silent = rules.silent_holder && (missed.is_some_and(|t| now >= t) || holder.fell_silent);
    let back_up = if overdue && rules.back_up_head {
        others
            .iter()
            .filter(|q| q.index != asker.index && q.index != holder.pipe.index && q.live)
            .min_by_key(|q| q.rtt)
            .map(|q| q.index)
    } else {
        None
    };
    HeadStep::Reinject {
        time_out_holder: overdue && silent,
        back_up,
    }
}
