//! User-space link emulation: each emulated path's two directions are the
//! simulator's own links ([`radial_link::link::Link`]: a rate, a one-way
//! delay, a drop-tail queue counted in packets, Bernoulli or
//! Gilbert-Elliott loss after the link), driven by the wall clock, and a
//! path can be taken down and brought up or change rate while it runs.
//!
//! Two kinds of ends carry packets in and out of the paths: UDP relays on
//! loopback ([`Emulator::start`], what `radial emulate` runs), where a
//! client reaches the server through path `i` by sending to
//! [`Emulator::front`]`(i)`; and, on Linux, pairs of TUN devices in two
//! network namespaces (`crate::shell`), where any program's IP packets
//! cross them.

mod driver;
pub mod engine;
pub mod model;
mod udp;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread;

pub(crate) use driver::Ports;
pub use engine::{PathEngine, Way};
pub use model::{EmuCommand, GilbertElliott, LinkModel, PathCounters, PathModel};

/// A running emulator: a thread moving packets between its paths' ends.
pub struct Emulator {
    fronts: Vec<SocketAddr>,
    commands: Sender<EmuCommand>,
    stop: Arc<AtomicBool>,
    handle: Option<thread::JoinHandle<io::Result<Vec<PathCounters>>>>,
}

impl Emulator {
    /// Starts one loopback relay per `(front address, model)` towards
    /// `server` (a front with port 0 gets one from the system); `seed`
    /// drives the loss draws. The server sees the relay's own socket as the
    /// peer, one per path; a relay serves one client: replies go to the
    /// address it last heard from on its front.
    pub fn start(
        server: SocketAddr,
        paths: &[(SocketAddr, PathModel)],
        seed: u64,
    ) -> io::Result<Self> {
        let fronts: Vec<SocketAddr> = paths.iter().map(|p| p.0).collect();
        let ports = udp::UdpPorts::bind(server, &fronts)?;
        let fronts = ports.fronts()?;
        let models: Vec<PathModel> = paths.iter().map(|p| p.1).collect();
        Ok(Self::spawn(ports, &models, seed, fronts))
    }

    /// Starts the paths of `models` between `ports`.
    pub(crate) fn spawn<P: Ports>(
        ports: P,
        models: &[PathModel],
        seed: u64,
        fronts: Vec<SocketAddr>,
    ) -> Self {
        let engine = PathEngine::new(models, seed);
        let (commands, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let handle = thread::spawn(move || driver::run(ports, engine, &rx, &s));
        Emulator {
            fronts,
            commands,
            stop,
            handle: Some(handle),
        }
    }

    /// Where a client sends to reach the server through path `i` (loopback
    /// relays only).
    pub fn front(&self, i: usize) -> SocketAddr {
        self.fronts[i]
    }

    /// Applies a change (from any thread).
    pub fn command(&self, c: EmuCommand) {
        let _ = self.commands.send(c);
    }

    /// Whether the emulator's thread stopped on an error of its own.
    pub fn failed(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| h.is_finished())
    }

    /// Stops the paths and returns their counters, or the error that
    /// stopped them.
    pub fn stop(mut self) -> io::Result<Vec<PathCounters>> {
        self.stop.store(true, Ordering::Relaxed);
        match self.handle.take().map(|h| h.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the emulator's thread panicked")),
            None => Ok(Vec::new()),
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn bdp_queues() {
        let l = LinkModel::with_bdp_queue(
            20_000_000,
            Duration::from_millis(60),
            Duration::from_millis(120),
        );
        assert_eq!(l.queue, 200);
    }
}
