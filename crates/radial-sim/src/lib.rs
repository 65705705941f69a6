//! Radial's deterministic packet-level network simulator.

pub mod app;
// The link model lives in its own crate, shared with the runtime's emulator.
pub use radial_link::{channel, link, packet, red, rng};
pub mod batch;
pub mod event;
pub mod metrics;
pub mod pcap;
pub mod protocol;
pub mod routing;
pub mod sim;
pub mod spec;

pub use sim::{RunOutput, Simulator};
pub mod scenario;

pub use scenario::{FigureText, Scenario, ScenarioError};
