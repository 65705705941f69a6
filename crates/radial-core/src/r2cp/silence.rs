//! A working pipe's path falling silent, as the engine reacts to it
//! (beyond the R²CP paper, whose pipes learn of a path's loss from the
//! host, §4.3.5): pipes still opening send their SYN again, and when the
//! last working path falls silent, the pipes probing theirs are taken as
//! back.

use super::{Pipe, R2cpReceiver};
use crate::time::Instant;

impl R2cpReceiver {
    /// When a working pipe's path counts as fallen silent, if a pipe still
    /// opening sent its SYN before that path last answered.
    pub(super) fn silence_deadline(&self) -> Option<Instant> {
        let oldest_syn = self.pipes.iter().filter_map(Pipe::syn_sent_at).min()?;
        self.pipes
            .iter()
            .filter_map(Pipe::silent_at)
            .filter(|&(_, last)| last > oldest_syn)
            .map(|(at, _)| at)
            .min()
    }

    /// A working pipe's path fell silent: every pipe still opening whose
    /// SYN left before that path last answered sends it again now
    /// (`pipe::handshake`).
    pub(super) fn open_beside_silent(&mut self, now: Instant) {
        let Some(last) = self
            .pipes
            .iter()
            .filter_map(Pipe::silent_at)
            .filter(|&(at, _)| at <= now)
            .map(|(_, last)| last)
            .max()
        else {
            return;
        };
        for p in &mut self.pipes {
            if p.syn_sent_at().is_some_and(|t| t < last) {
                p.open_again(now);
            }
        }
    }

    /// When the only working pipe's path counts as fallen silent under
    /// what it holds (`Pipe::stream_stopped_at`) while other pipes probe
    /// theirs: when [`R2cpReceiver::take_silent_paths_as_back`] acts.
    pub(super) fn last_path_silent_at(&self) -> Option<Instant> {
        let mut live = self.pipes.iter().filter(|p| p.live());
        let last = live.next()?;
        if live.next().is_some() || !self.pipes.iter().any(Pipe::probing) {
            return None;
        }
        last.stream_stopped_at()
    }

    /// The only working pipe's path fell silent while other pipes probe
    /// theirs: it is timed out, all it held going back to be asked again,
    /// and every probing pipe is taken as heard (`Pipe::assume_heard`): it
    /// resumes the window it had before its outage, paced, and asks for
    /// that data at once, its requests timed by its RTO.
    ///
    /// A host whose only working link goes usually has another coming up
    /// at that moment (the turns of a handoff storm, a vertical handoff
    /// the host says nothing of). A pipe that waited for its next probe's
    /// answer found its link a probe interval and a round trip late, and
    /// asked for data a round trip later still: on a 0.5 Mbit/s WWAN of
    /// 220 ms round trip, up in turn with a 2 Mbit/s WLAN every 2 s, each
    /// WWAN turn carried 91 kB where hard-handoff RCP, told of each change,
    /// carries 104 (105 to 107 now). If the path is still down, the
    /// requests are lost, the timer expires and the pipe probes again as
    /// before: one window of small requests into a dead link per silence
    /// of the last working path. A probe still out, sent into the silence,
    /// is given up, not counted as a congestion loss when later requests
    /// are answered.
    pub(super) fn take_silent_paths_as_back(&mut self, now: Instant) {
        if self.last_path_silent_at().is_none_or(|t| t > now) {
            return;
        }
        let Some(last) = self.pipes.iter().position(Pipe::live) else {
            return;
        };
        let r = self.pipes[last].time_out(now);
        self.report(now, last, r);
        for i in 0..self.pipes.len() {
            if i != last && self.pipes[i].probing() {
                let r = self.pipes[i].assume_heard(now);
                self.report(now, i, r);
            }
        }
    }
}
