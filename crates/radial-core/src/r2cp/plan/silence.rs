//! A working path falling silent, as the engine reacts to it (beyond the
//! R²CP paper, whose pipes learn of a path's loss from the host, §4.3.5):
//! pipes still opening send their SYN again (rule `eager_syn`), and when
//! the last working path falls silent, the pipes probing theirs are taken
//! as back (rule `take_back`).
//!
//! A host whose only working link goes usually has another coming up at
//! that moment (the turns of a handoff storm, a vertical handoff the host
//! says nothing of): a pipe that waited for its next probe's answer would
//! find its link a probe interval and a round trip late, and ask for data a
//! round trip later still. Taken as back, it resumes the window it had and
//! asks at once; if its path is still down, the requests are lost, its
//! timer expires and it probes again.

use crate::time::Instant;

/// What the silence rules see of one pipe.
#[derive(Clone, Copy, Debug, Default)]
pub struct SilenceView {
    /// It works.
    pub live: bool,
    /// It probes a path that fell silent.
    pub probing: bool,
    /// When the SYN now out left, if it is opening.
    pub syn_sent_at: Option<Instant>,
    /// When its path counts as silent if nothing arrives, with when it
    /// last answered (a working pipe with requests out).
    pub silent_at: Option<(Instant, Instant)>,
    /// When its path counts as fallen silent under what it holds.
    pub stream_stopped_at: Option<Instant>,
}

/// When a working pipe's path counts as fallen silent, if a pipe still
/// opening sent its SYN before that path last answered (rule `eager_syn`).
pub fn syn_deadline(pipes: &[SilenceView]) -> Option<Instant> {
    let oldest_syn = pipes.iter().filter_map(|p| p.syn_sent_at).min()?;
    pipes
        .iter()
        .filter_map(|p| p.silent_at)
        .filter(|&(_, last)| last > oldest_syn)
        .map(|(at, _)| at)
        .min()
}

/// The pipes that send their SYN again at `now` because a working path
/// fell silent: those whose SYN left before that path last answered.
pub fn syns_again(now: Instant, pipes: &[SilenceView]) -> Vec<usize> {
    let Some(last) = pipes
        .iter()
        .filter_map(|p| p.silent_at)
        .filter(|&(at, _)| at <= now)
        .map(|(_, last)| last)
        .max()
    else {
        return Vec::new();
    };
    pipes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.syn_sent_at.is_some_and(|t| t < last))
        .map(|(i, _)| i)
        .collect()
}

/// When the only working pipe's path counts as fallen silent under what
/// it holds while other pipes probe theirs (rule `take_back`).
pub fn last_path_silent_at(pipes: &[SilenceView]) -> Option<Instant> {
    let mut live = pipes.iter().filter(|p| p.live);
    let last = live.next()?;
    if live.next().is_some() || !pipes.iter().any(|p| p.probing) {
        return None;
    }
    last.stream_stopped_at
}
