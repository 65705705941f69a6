//! TCP HandOff (Wu, Chan & Ananda, "TCP HandOff: A Practical TCP
//! Enhancement for Heterogeneous Mobile Environments", §IV).
//!
//! The sender offers the capability in its SYN (capability option, last bit
//! of the mask, Figure 2) and acts on notices only if the receiver's SYN+ACK
//! echoes it. When the mobile host completes a handoff it sends two
//! duplicate ACKs with the bandwidth option (the new link's bandwidth,
//! kbit/s). On the first the sender:
//! - stops waiting out a backed-off timer and transmits at once from the
//!   cumulative acknowledgment (§II's "silly waiting": what was in flight
//!   died at the old base station);
//! - `tcp-ho`: sets ssthresh = BW × SRTT_old and slow-starts from one
//!   segment, then enters HO-ADJUST: each new RTT sample sets ssthresh =
//!   BW × (smoothed new samples), for four samples or until congestion
//!   (Figure 4);
//! - `tcp-ho-aggressive`: the same, with cwnd = ssthresh = BW × SRTT_old at
//!   once (§V-B, "similar to Freeze-TCP");
//! - `tcp-ho-immediate`: transmits at once and ignores the bandwidth
//!   (§V-B): the window is what a timeout would leave.
//!
//! Deviation: the paper does not say what the window is when the notice
//! comes before any timeout (an outage shorter than the RTO). We take the
//! window in flight as lost, as the timeout that would have followed does:
//! one segment, with the immediate variant's ssthresh halved as by that
//! timeout.

use super::TcpSender;
use crate::cc::LossCause;
use crate::tcp::{HandoffMode, TcpVariant};
use crate::time::{Duration, Instant};
use crate::units::BitRate;
use crate::wire::tcp::CAPABILITY_HANDOFF;

/// New RTT samples HO-ADJUST takes before the sender returns to normal
/// (§IV-B: "four RTT samples can give a quite accurate estimation").
pub(super) const ADJUST_SAMPLES: u32 = 4;

/// TCP-HO's sender state.
#[derive(Debug)]
pub(super) struct Handoff {
    mode: Option<HandoffMode>,
    /// The receiver agreed to send notices (its SYN+ACK carried the
    /// capability), or both ends are configured for it without a handshake.
    negotiated: bool,
    /// HO-ADJUST in progress.
    pub(super) adjust: Option<Adjust>,
    /// The cumulative acknowledgment of the last notice acted on: the second
    /// copy of a notice is the same handoff. Cleared when new data is
    /// acknowledged.
    pub(super) notice_ack: Option<u64>,
    /// Notices acted on.
    pub(super) notices: u64,
}

/// HO-ADJUST: the new link's bandwidth and the new path's RTT samples so
/// far.
#[derive(Clone, Copy, Debug)]
pub(super) struct Adjust {
    bandwidth: BitRate,
    samples: u32,
    average: Option<Duration>,
}

impl Handoff {
    pub(super) fn new(variant: TcpVariant, handshake: bool) -> Self {
        let mode = variant.handoff_mode();
        Handoff {
            mode,
            negotiated: mode.is_some() && !handshake,
            adjust: None,
            notice_ack: None,
            notices: 0,
        }
    }

    /// The receiver's SYN+ACK arrived with this capability mask.
    pub(super) fn on_synack(&mut self, capability: Option<u16>) {
        self.negotiated =
            self.mode.is_some() && capability.is_some_and(|m| m & CAPABILITY_HANDOFF != 0);
    }
}

impl TcpSender {
    /// Notices of a handoff this sender acted on.
    pub fn handoff_notices(&self) -> u64 {
        self.handoff.notices
    }

    /// True while HO-ADJUST re-estimates ssthresh from new RTT samples.
    pub fn in_handoff_adjust(&self) -> bool {
        self.handoff.adjust.is_some()
    }

    /// An acknowledgment carrying the bandwidth option arrived. Returns true
    /// when it was a notice this sender takes (it is then not a duplicate
    /// ACK for loss recovery).
    pub(super) fn on_handoff_notice(&mut self, now: Instant, kbps: u32, ack: u64) -> bool {
        let Some(mode) = self.handoff.mode.filter(|_| self.handoff.negotiated) else {
            return false;
        };
        if !self.established || self.handoff.notice_ack == Some(ack) {
            return true;
        }
        if ack > self.last_ack {
            self.new_ack(now, ack);
        }
        self.handoff.notice_ack = Some(ack);
        self.handoff.notices += 1;
        let bandwidth = BitRate::from_kbps(u64::from(kbps));
        let srtt_old = self.rtt.srtt().or(self.rtt.latest());
        self.rtt.reset_backoff();
        self.timed = None;
        let outstanding = self.max_seq > self.highest_ack;
        if outstanding {
            if !self.after_timeout && mode == HandoffMode::Immediate {
                self.loss_response(now, LossCause::Timeout);
            }
            self.go_back_n();
        }
        let mss = self.mss();
        if mode != HandoffMode::Immediate {
            self.handoff.adjust = None;
            if let Some(rtt) = srtt_old {
                let bdp = bandwidth.bytes_in(rtt).max(2 * mss);
                self.cc.set_ssthresh(bdp);
                let cwnd = match mode {
                    HandoffMode::Aggressive => bdp,
                    _ => self.config.cc.loss_window * mss,
                };
                self.cc.set_cwnd(cwnd);
            }
            self.handoff.adjust = Some(Adjust {
                bandwidth,
                samples: 0,
                average: None,
            });
        }
        if outstanding {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.send_much(now, self.config.max_burst);
        true
    }

    /// HO-ADJUST's share of a new RTT sample: ssthresh follows the new
    /// link's bandwidth times the smoothed new samples (RFC 6298's 1/8 gain,
    /// the first sample taken whole).
    pub(super) fn on_new_rtt_sample(&mut self, sample: Duration) {
        let Some(a) = self.handoff.adjust.as_mut() else {
            return;
        };
        let average = match a.average {
            None => sample,
            Some(avg) => {
                Duration::from_nanos(avg.as_nanos() - avg.as_nanos() / 8 + sample.as_nanos() / 8)
            }
        };
        a.average = Some(average);
        a.samples += 1;
        let bdp = a.bandwidth.bytes_in(average);
        let done = a.samples >= ADJUST_SAMPLES;
        self.cc.set_ssthresh(bdp);
        if done {
            self.handoff.adjust = None;
        }
    }
}
