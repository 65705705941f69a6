//! The emulator's thread: a readiness loop over the paths' ends that feeds
//! what arrives into the [`PathEngine`] and sends out what it releases,
//! woken for each release by a timer file descriptor, so a packet leaves
//! within tens of microseconds of its time rather than at the next
//! millisecond a poll timeout can express.

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Registry, Token};
use radial_core::Instant;
use rustix::time::{
    timerfd_create, timerfd_settime, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags,
    Timespec,
};

use super::engine::{PathEngine, Way};
use super::model::{EmuCommand, PathCounters};

/// Where an emulator's packets enter and leave: path `i` has a client end
/// (what arrives there goes [`Way::Up`]) and a server end ([`Way::Down`]).
pub(crate) trait Ports: Send + 'static {
    /// Registers path `i`'s client end as token `2i` and its server end as
    /// `2i + 1`, readable.
    fn register(&mut self, registry: &Registry) -> io::Result<()>;
    /// The next packet waiting at the end of path `path` where packets
    /// start going `way`, and the bytes it takes on the link; `None` when
    /// there is none.
    fn receive(&mut self, path: usize, way: Way, buf: &mut [u8]) -> Option<(usize, u32)>;
    /// Sends a packet that crossed path `path` going `way` out of its far
    /// end; whether it went.
    fn send(&mut self, path: usize, way: Way, data: &[u8]) -> bool;
}

/// The token of the timer.
const TIMER: Token = Token(usize::MAX);

/// Longest sleep between looks at the commands and the stop flag.
const TICK: Duration = Duration::from_millis(20);

/// Runs `ports` through `engine` until `stop`, taking `commands`; returns
/// the paths' counters.
pub(crate) fn run<P: Ports>(
    mut ports: P,
    mut engine: PathEngine,
    commands: &Receiver<EmuCommand>,
    stop: &AtomicBool,
) -> io::Result<Vec<PathCounters>> {
    let mut poll = Poll::new()?;
    ports.register(poll.registry())?;
    let timer = timerfd_create(
        TimerfdClockId::Monotonic,
        TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
    )?;
    poll.registry().register(
        &mut SourceFd(&timer.as_fd().as_raw_fd()),
        TIMER,
        Interest::READABLE,
    )?;
    let epoch = std::time::Instant::now();
    let clock = || Instant::from_nanos(epoch.elapsed().as_nanos() as u64);
    let mut events = Events::with_capacity(256);
    let mut buf = vec![0u8; 65536];
    // The arrival the timer is set for.
    let mut armed: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        while let Ok(c) = commands.try_recv() {
            engine.apply(clock(), c);
        }
        // The timer is set only when the next arrival changes (one system
        // call per change, not per pass); a one-shot timer that fired is
        // unset.
        let next = engine.next_arrival();
        if next != armed {
            let wake = next.map(|at| at.saturating_since(clock()).as_nanos().max(1));
            arm(&timer, wake)?;
            armed = next;
        }
        if let Err(e) = poll.poll(&mut events, Some(TICK)) {
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        for ev in &events {
            if ev.token() == TIMER {
                let mut expirations = [0u8; 8];
                let _ = rustix::io::read(&timer, &mut expirations);
                armed = None;
                continue;
            }
            let path = ev.token().0 / 2;
            let way = if ev.token().0 % 2 == 0 {
                Way::Up
            } else {
                Way::Down
            };
            while let Some((n, wire_len)) = ports.receive(path, way, &mut buf) {
                engine.offer(clock(), path, way, &buf[..n], wire_len);
            }
        }
        engine.release(clock(), |path, way, data| ports.send(path, way, data));
    }
    Ok(engine.counters())
}

/// Sets `timer` to fire once after `nanos`, or disarms it.
fn arm(timer: &impl AsFd, nanos: Option<u64>) -> io::Result<()> {
    let value = nanos.map_or(
        Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        |n| Timespec {
            tv_sec: (n / 1_000_000_000) as i64,
            tv_nsec: (n % 1_000_000_000) as _,
        },
    );
    let spec = Itimerspec {
        it_interval: Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: value,
    };
    timerfd_settime(timer, TimerfdTimerFlags::empty(), &spec)?;
    Ok(())
}
