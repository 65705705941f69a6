//! Radial's deterministic packet-level network simulator.

pub mod channel;
pub mod event;
pub mod link;
pub mod packet;
pub mod rng;
pub mod routing;
pub mod spec;
pub mod app;
pub mod metrics;
pub mod sim;

pub use sim::{RunOutput, Simulator};
pub mod scenario;

pub use scenario::{Scenario, ScenarioError};
