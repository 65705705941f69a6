//! What the mobility schemes take from an acknowledgment before loss
//! recovery sees it, and the suspension of sending they share (Freeze-TCP's
//! zero window, TCP-Probing's probe cycle).

use super::TcpSender;
use crate::tcp::TcpVariant;
use crate::time::Instant;
use crate::wire::tcp::{Flags, TcpHeader};

impl TcpSender {
    /// The mobility schemes' share of an acknowledgment, before loss
    /// recovery sees it. Returns true when the acknowledgment was wholly
    /// theirs (a handoff notice, a probe's answer, an acknowledgment while
    /// the sender is frozen or probing).
    pub(super) fn mobility_ack(&mut self, now: Instant, header: &TcpHeader, ack: u64) -> bool {
        if header.flags.contains(Flags::PROBE) {
            self.on_probe_ack(now, header.seq.0, ack);
            return true;
        }
        if let Some(kbps) = header.bandwidth_kbps {
            if self.on_handoff_notice(now, kbps, ack) {
                return true;
            }
        }
        if self.config.variant == TcpVariant::Freeze && self.on_window(now, header.window, ack) {
            return true;
        }
        if self.probing.cycle.is_some() {
            self.absorb_ack(now, ack);
            return true;
        }
        false
    }

    /// Takes the cumulative part of an acknowledgment while sending is
    /// suspended (frozen or probing): the acknowledged bytes leave the
    /// buffer, an RTT sample is taken, nothing is sent and duplicates are
    /// only counted (as window inflation for after the suspension).
    pub(super) fn absorb_ack(&mut self, now: Instant, ack: u64) {
        if ack > self.last_ack {
            self.new_ack(now, ack);
        } else if ack == self.last_ack && self.max_seq > ack {
            self.dupwnd += 1;
        }
        self.rto_deadline = None;
    }

    /// True while data may not be sent: the receiver's window is zero
    /// (Freeze-TCP) or a probe cycle runs (TCP-Probing).
    pub(super) fn suspended(&self) -> bool {
        self.persist.is_some() || self.probing.cycle.is_some()
    }
}
