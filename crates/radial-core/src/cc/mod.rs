//! Congestion control: one narrow event interface for both directions of
//! control.
//!
//! A TCP sender clocks its controller with acknowledgments; an RCP receiver
//! clocks the same controller with arriving data. Either way the inputs are the
//! same few events — bytes newly acknowledged or delivered, an RTT sample, a
//! loss with its cause — and the controller answers with a
//! [`Window`] decision (as ns-3's `GetSsThresh` returns a value rather than
//! changing the caller's state). Loss *recovery* (which segment to resend,
//! window inflation during fast recovery) belongs to the caller.
//!
//! Variants are built by composition — a slow-start rule plus a
//! window-adjustment rule in [`Classic`] — and dispatched through the
//! [`Controller`] enum so the hot path has no virtual calls.

mod classic;
pub mod coupled;
mod hybla;
mod reno;

pub use classic::{Classic, SlowStart, WindowAdjustment};
pub use hybla::{HyblaAvoidance, HyblaSlowStart, RTT0};
pub use reno::{RenoAvoidance, RenoSlowStart};

use crate::time::{Duration, Instant};

/// Why a loss was detected. Controllers decide what each cause costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// Duplicate acknowledgments (or holes) signalled congestion.
    Congestion,
    /// The receiver knows the segment died on its own wireless link (ELN).
    Wireless,
    /// The retransmission timer expired.
    Timeout,
}

/// A controller's decision: the congestion window and slow-start threshold,
/// both in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
}

/// Parameters shared by the classic controllers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcConfig {
    /// Segment size in bytes.
    pub mss: u64,
    /// Initial congestion window in segments (ns-2 `windowInit_` = 2).
    pub initial_window: u64,
    /// Window after a timeout, in segments (ns-2 `wnd_restart_` = 1).
    pub loss_window: u64,
    /// Smallest slow-start threshold after a reduction, in segments (ns-2: 2).
    pub min_ssthresh: u64,
    /// Initial slow-start threshold in bytes (ns-2 `ssthresh_` = 0 means
    /// unbounded; we use `u64::MAX`).
    pub initial_ssthresh: u64,
    /// Which window rules.
    pub algorithm: Algorithm,
}

/// The window rules a [`Controller`] applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Reno/NewReno (RFC 5681).
    #[default]
    NewReno,
    /// TCP Hybla, the long-delay controller.
    Hybla,
}

impl CcConfig {
    /// ns-2's defaults for a given segment size.
    pub fn ns2(mss: u64) -> Self {
        CcConfig {
            mss,
            initial_window: 2,
            loss_window: 1,
            min_ssthresh: 2,
            initial_ssthresh: u64::MAX,
            algorithm: Algorithm::NewReno,
        }
    }
}

/// The congestion controllers, by name. Enum dispatch keeps the per-packet
/// path free of virtual calls.
#[derive(Clone, Debug)]
pub enum Controller {
    /// Slow start plus additive increase, multiplicative decrease (RFC 5681,
    /// RFC 6582), as ns-2's Reno family does it.
    NewReno(Classic<RenoSlowStart, RenoAvoidance>),
    /// Hybla's RTT-scaled growth with Reno's reductions.
    Hybla(Classic<HyblaSlowStart, HyblaAvoidance>),
}

macro_rules! dispatch {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Controller::NewReno($c) => $e,
            Controller::Hybla($c) => $e,
        }
    };
}

impl Controller {
    /// The controller `config.algorithm` names.
    pub fn new(config: CcConfig) -> Self {
        match config.algorithm {
            Algorithm::NewReno => Controller::new_reno(config),
            Algorithm::Hybla => Controller::Hybla(Classic::new(
                config,
                HyblaSlowStart::default(),
                HyblaAvoidance::default(),
            )),
        }
    }

    /// A NewReno controller.
    pub fn new_reno(config: CcConfig) -> Self {
        Controller::NewReno(Classic::new(
            config,
            RenoSlowStart,
            RenoAvoidance::default(),
        ))
    }

    /// The current decision.
    pub fn window(&self) -> Window {
        dispatch!(self, c => c.window())
    }

    /// `bytes` were newly acknowledged (sender) or delivered (receiver) by one
    /// acknowledgment or arrival, outside loss recovery.
    pub fn on_ack(&mut self, now: Instant, bytes: u64) -> Window {
        dispatch!(self, c => c.on_ack(now, bytes))
    }

    /// A round-trip-time sample.
    pub fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        dispatch!(self, c => c.on_rtt_sample(now, rtt))
    }

    /// A loss was detected. `window_in_use` is the window the reduction is
    /// taken from (ns-2 halves `min(cwnd, rwnd)`; RFC 5681 the flight size).
    pub fn on_loss(&mut self, now: Instant, cause: LossCause, window_in_use: u64) -> Window {
        dispatch!(self, c => c.on_loss(now, cause, window_in_use))
    }

    /// Sets the slow-start threshold outright, at least
    /// [`CcConfig::min_ssthresh`] segments (TCP-HO sets it from the new
    /// link's bandwidth).
    pub fn set_ssthresh(&mut self, ssthresh: u64) {
        dispatch!(self, c => c.set_ssthresh(ssthresh))
    }

    /// Scales the congestion-avoidance increase from now on (a coupled
    /// multipath controller sets it before each acknowledgment; see
    /// [`coupled`]).
    pub fn set_increase_scale(&mut self, scale: f64) {
        dispatch!(self, c => c.set_increase_scale(scale))
    }

    /// Sets the window outright (recovery exit, or a restart after idle).
    pub fn set_cwnd(&mut self, cwnd: u64) {
        dispatch!(self, c => c.set_cwnd(cwnd))
    }

    /// Restarts after an outage that was not congestion: the window back at
    /// `cwnd`, and slow start allowed up to `ssthresh` at least (the window
    /// the path carried before; Freeze-TCP's idea, reached by slow start
    /// from a fresh probe rather than at once).
    pub fn restart(&mut self, cwnd: u64, ssthresh: u64) {
        dispatch!(self, c => c.restart(cwnd, ssthresh))
    }
}
