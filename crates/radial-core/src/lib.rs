//! Radial's sans-IO protocol core.
//!
//! This crate contains no networking code and never reads a clock: every
//! entry point takes `now`. The simulator (`radial-sim`) and the UDP runtime
//! drive the same endpoints through the [`endpoint::Endpoint`] contract.
//!
//! - [`time`], [`units`], [`seq`]: integer time, rates, wrapping sequence numbers;
//! - [`wire`]: packet formats (parse/emit, never panicking);
//! - [`cc`]: the congestion-control interface and controllers;
//! - [`rtt`]: RTT estimation and retransmission timeouts;
//! - [`stream`]: send and reassembly buffers;
//! - [`tcp`]: the TCP baselines (NewReno, SACK, ELN, the mobility schemes) as endpoints;
//! - [`rcp`]: RCP, the receiver-centric transport;
//! - [`r2cp`]: R²CP, one RCP pipe per path coordinated at the receiver;
//! - [`ptcp`]: pTCP, one TCP-v pipe per path coordinated at the sender;
//! - [`policy`]: the target-rate token policy both multi-path engines use;
//! - [`prism`]: PRISM, a proxy that stripes one TCP connection over a community's links.

pub mod cc;
pub mod endpoint;
pub mod mptcp;
pub mod policy;
pub mod prism;
pub mod ptcp;
pub mod r2cp;
pub mod rcp;
pub mod rtt;
pub mod seq;
pub mod stream;
pub mod tcp;
pub mod time;
pub mod units;
pub mod wire;

pub use endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId, PathStats, RouteId};
pub use time::{Duration, Instant};
pub use units::BitRate;
