//! Radial's link model, one implementation for every place that moves
//! packets: the simulator's links and the runtime's emulated paths.
//!
//! A [`link::Link`] is one direction of a point-to-point link: a drop-tail
//! queue counted in packets (optionally with RED in front, [`red`]), a
//! transmitter of some rate, a propagation delay, and a channel loss model
//! applied after the packet crossed ([`channel`]: Bernoulli or
//! Gilbert-Elliott), which can go down and come up and change rate or delay
//! while packets are on it. Time is passed in ([`radial_core::Instant`]);
//! random draws come from seeded streams ([`rng`]), so a driver that feeds
//! the same packets at the same instants gets the same outcome.

pub mod channel;
pub mod link;
pub mod packet;
pub mod red;
pub mod rng;
