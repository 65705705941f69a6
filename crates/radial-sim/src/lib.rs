//! Radial's deterministic packet-level network simulator.

pub mod app;
pub mod batch;
pub mod channel;
pub mod event;
pub mod link;
pub mod metrics;
pub mod packet;
pub mod pcap;
pub mod protocol;
pub mod red;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod spec;

pub use sim::{RunOutput, Simulator};
pub mod scenario;

pub use scenario::{Scenario, ScenarioError};
