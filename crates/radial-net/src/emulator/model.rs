//! What an emulated path is: its two directions' link models, the changes
//! an emulator takes while it runs, and the counters it keeps.

use std::time::Duration;

use radial_link::channel::GilbertElliottParams;

/// One direction of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkModel {
    /// Bits per second.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Packets that may wait for the link (drop-tail; the one being sent
    /// counts, as in ns-2); at least 2 (a smaller limit is taken as 2).
    pub queue: usize,
    /// Probability that a packet that crossed the link is lost.
    pub loss: f64,
    /// A two-state channel instead of `loss` when set.
    pub channel: Option<GilbertElliott>,
}

/// A Gilbert-Elliott channel: good and bad states with their own loss
/// probabilities and exponentially distributed sojourns, as the
/// simulator's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliott {
    /// Loss probability in the good state.
    pub good_loss: f64,
    /// Loss probability in the bad state.
    pub bad_loss: f64,
    /// Mean time in the good state.
    pub good_mean: Duration,
    /// Mean time in the bad state.
    pub bad_mean: Duration,
}

impl GilbertElliott {
    /// The simulator's parameters of this channel.
    pub(crate) fn params(&self) -> GilbertElliottParams {
        let d = |t: Duration| radial_core::Duration::from_nanos(t.as_nanos() as u64);
        GilbertElliottParams {
            good_loss: self.good_loss,
            bad_loss: self.bad_loss,
            good_mean: d(self.good_mean),
            bad_mean: d(self.bad_mean),
        }
    }
}

impl LinkModel {
    /// A lossless link with a queue of one bandwidth-delay product of
    /// `rtt` (at least 2 packets of 1500 bytes).
    pub fn with_bdp_queue(rate_bps: u64, delay: Duration, rtt: Duration) -> Self {
        let bdp = (rate_bps as f64 * rtt.as_secs_f64() / 8.0 / 1500.0).ceil() as usize;
        LinkModel {
            rate_bps,
            delay,
            queue: bdp.max(2),
            loss: 0.0,
            channel: None,
        }
    }
}

/// A path: its two directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathModel {
    /// Client → server.
    pub up: LinkModel,
    /// Server → client.
    pub down: LinkModel,
    /// Both directions' Gilbert-Elliott channels are one channel state (a
    /// scenario file's `shared = true`, its default), with `down`'s
    /// parameters; otherwise each direction has its own.
    pub shared_channel: bool,
}

/// Changes while the emulator runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EmuCommand {
    /// Path `i` goes down (everything on it is lost) or comes up.
    SetUp(usize, bool),
    /// Path `i`'s rate in both directions.
    SetRate(usize, u64),
}

/// Counters of one path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Datagrams delivered, both directions.
    pub delivered: u64,
    /// Dropped by a full queue.
    pub queue_drops: u64,
    /// Lost to the loss model or a down path.
    pub lost: u64,
}
