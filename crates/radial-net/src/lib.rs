//! Radial's real runtime: the sans-IO endpoints of `radial-core` driven over
//! UDP sockets, a file server whose replicas serve the same content, and a
//! client that downloads with one R²CP pipe per local address.
//!
//! The driver is mio on one thread per process: an R²CP receiver or a set of
//! RCP senders is a state machine that wants its datagrams, its timers and
//! nothing else, so a readiness loop that sleeps until the next datagram or
//! the earliest endpoint deadline is all it needs; an async runtime would
//! add tasks, wakers and a second clock to the same loop.

pub mod batch;
pub mod bundle;
pub mod client;
pub mod clock;
pub mod config;
pub mod crypto;
pub mod duplex;
pub mod emulator;
pub mod guard;
pub mod mux;
pub mod server;
pub mod session;
#[cfg(target_os = "linux")]
pub mod shell;
pub mod stream;
pub mod tunnel;
pub mod watch;

pub use client::{
    get, Control, GetConfig, GetError, PathConfig, PipeSummary, Progress, Summary, Trust,
};
pub use emulator::{EmuCommand, Emulator, LinkModel, PathModel};
pub use server::{hash_file, Limits, Server, ServerOptions, ServerStats};
