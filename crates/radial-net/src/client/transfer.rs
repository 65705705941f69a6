//! One download: the R²CP engine, a socket per path, the standby groups,
//! the `.part` file and its writer, driven by one readiness loop.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant as WallInstant};

use mio::{Events, Poll};
use radial_core::r2cp::{R2cpReceiver, TargetRate};
use radial_core::{AppEvent, Endpoint, PathId};

use super::ask::{self, ask, Offered};
use super::part::{check_room, Part};
use super::paths::{
    drop_path, flush, on_joined, open_path, receive_each, sleep_for, Incoming, PathSock,
};
use super::{
    ask_all, part_path, random_conn, writer, Control, GetConfig, GetError, PathConfig, PipeSummary,
    Progress, Summary, FAILOVER, STALL,
};
use crate::clock::Clock;
use crate::config::r2cp_config_for;
use crate::crypto::Keys;
use crate::session::ErrorCode;

/// Pauses shorter than this are not taken.
const MODERATION_FLOOR: Duration = Duration::from_micros(50);
/// A wake that brought this many datagrams or more is followed by none,
/// and no pause gathers more than this many.
const SMALL_WAKE: usize = 16;

/// The pause of wake moderation ([`Transfer::moderation`]) for pipes whose
/// shortest round trip is `shortest` and whose delivery rates sum to
/// `rate` bytes per second: zero when either is unknown or the pause
/// would be below [`MODERATION_FLOOR`].
fn moderation_pause(shortest: Option<radial_core::Duration>, rate: u64) -> Duration {
    let Some(rtt) = shortest else {
        return Duration::ZERO;
    };
    if rate == 0 {
        return Duration::ZERO;
    }
    let batch = SMALL_WAKE as u128 * u128::from(crate::config::MSS);
    let gather = u64::try_from(batch * 1_000_000_000 / u128::from(rate)).unwrap_or(u64::MAX);
    let pause = Duration::from_nanos((rtt.as_nanos() / 8).min(gather));
    if pause < MODERATION_FLOOR {
        Duration::ZERO
    } else {
        pause
    }
}

/// The keys of the connection to `to`.
fn keys_of(offers: &[(SocketAddr, Offered)], to: SocketAddr) -> Arc<Keys> {
    offers
        .iter()
        .find(|(t, _)| *t == to)
        .map(|(_, o)| o.keys.clone())
        .expect("asked")
}

/// The engine for `cfg` on connection `conn`, for a download that already
/// holds the file's first `held` bytes.
fn engine(cfg: &GetConfig, conn: u16, held: u64) -> R2cpReceiver {
    let segment = cfg.segment;
    let mut r2cp = r2cp_config_for(conn, segment);
    if let Some(bytes) = cfg.buffer {
        // At least a few segments, so that a window can open.
        r2cp.pipe.window = (bytes / segment).max(4);
    }
    r2cp.target = cfg.target.map(|(rate, prefer)| TargetRate {
        rate,
        prefer: PathId(prefer as u16),
        period: TargetRate::DEFAULT_PERIOD,
    });
    R2cpReceiver::resuming_at(r2cp, held)
}

/// A download under way.
struct Transfer {
    clock: Clock,
    poll: Poll,
    conn: u16,
    /// Every server asked, with its offer.
    offers: Vec<(SocketAddr, Offered)>,
    rx: R2cpReceiver,
    paths: Vec<PathSock>,
    /// Groups of paths held in reserve, the next first.
    standby: VecDeque<Vec<PathConfig>>,
    migrations: u32,
    /// Each pipe's working life, by path id: when its bytes were first and
    /// last seen growing, and how many it had then (sampled with the
    /// progress reports).
    lives: std::collections::HashMap<u16, (f64, f64, u64)>,
}

impl Transfer {
    /// Applies the changes `control` has for the paths.
    fn controls(&mut self, control: &Receiver<Control>, cfg: &GetConfig) -> io::Result<()> {
        let (poll, clock, conn) = (&self.poll, &self.clock, self.conn);
        let (paths, rx) = (&mut self.paths, &mut self.rx);
        loop {
            match control.try_recv() {
                Ok(Control::Drop(i)) if i < paths.len() => {
                    drop_path(paths, i, poll, rx, clock);
                }
                Ok(Control::Add(i)) if i < paths.len() && paths[i].sock.is_none() => {
                    // A new pipe, with a path id of its own.
                    let (p, keys) = (paths[i].cfg, paths[i].keys.clone());
                    open_path(paths, p, keys, conn, poll)?;
                }
                Ok(Control::AddressGone(ip)) => {
                    for i in 0..paths.len() {
                        if paths[i].cfg.via.ip() == ip {
                            drop_path(paths, i, poll, rx, clock);
                        }
                    }
                }
                Ok(Control::AddressBack(ip)) => {
                    for p in cfg.paths.iter().filter(|p| p.via.ip() == ip) {
                        let open = paths.iter().any(|q| q.cfg == *p && q.sock.is_some());
                        if !open {
                            open_path(paths, *p, keys_of(&self.offers, p.to), conn, poll)?;
                        }
                    }
                }
                Ok(_) => {}
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return Ok(()),
            }
        }
    }

    /// How long the loop may sleep: until the engine's next deadline or an
    /// echo is due, and at most 100 ms.
    fn wait(&self) -> Duration {
        sleep_for(&self.clock, self.rx.poll_timeout(), &self.paths)
    }

    /// Hands the engine what the paths that `events` names received, and
    /// completes the pipes their servers accepted; an error the server
    /// sent ends the transfer.
    /// Returns how many datagrams the paths brought.
    fn receive(
        &mut self,
        events: &Events,
        receiver: &mut crate::batch::Receiver,
    ) -> Result<usize, GetError> {
        let (clock, conn, rx) = (&self.clock, self.conn, &mut self.rx);
        let mut joined = Vec::new();
        let mut ended = None;
        // The datagrams of one wake arrived together: the pipes ask once,
        // after the last.
        rx.hold_requests();
        let datagrams =
            receive_each(
                &mut self.paths,
                events,
                receiver,
                conn,
                |i, incoming| match incoming {
                    Incoming::Joined(challenge) => joined.push((i, challenge)),
                    Incoming::Pipe(inner) => {
                        rx.handle_datagram(clock.now(), PathId(i as u16), inner)
                    }
                    Incoming::Error(code, message) => ended = Some((code, message)),
                    Incoming::Ignored => {}
                },
            );
        rx.release_requests(clock.now());
        for (i, challenge) in joined {
            on_joined(&mut self.paths, i, conn, challenge, rx, clock);
        }
        for (i, p) in self.paths.iter_mut().enumerate() {
            p.join(conn, i, ask::RETRY);
        }
        match ended {
            Some((ErrorCode::Changed, _)) => Err(GetError::Changed),
            Some((_, message)) => Err(GetError::Refused(message)),
            None => Ok(datagrams),
        }
    }

    /// How long to let datagrams gather before the next wake, after a wake
    /// that brought `datagrams`: nothing after [`SMALL_WAKE`] or more (the
    /// paths run fast enough to fill batches by themselves, and a pause
    /// could overflow a socket buffer). Otherwise the shorter of two
    /// bounds, each a model of what the pause may cost or gain:
    ///
    /// - an eighth of the shortest round trip any pipe has seen: a request
    ///   the pause holds back leaves that much later at most, so a pipe
    ///   whose window limits it loses at most a ninth of its rate, and
    ///   every other pipe nothing;
    /// - the time the connection's delivery rate (each pipe's highest
    ///   recent one, summed) takes to bring [`SMALL_WAKE`] segments: a
    ///   longer pause would only end in a wake that takes no pause itself.
    ///
    /// Nothing below [`MODERATION_FLOOR`] (a pause shorter than the sleep's
    /// own cost saves nothing), nothing before any rate is measured, and
    /// never past the engine's next deadline.
    fn moderation(&self, datagrams: usize) -> Duration {
        if datagrams >= SMALL_WAKE {
            return Duration::ZERO;
        }
        let pipes = (0..self.paths.len()).filter_map(|i| self.rx.pipe(PathId(PathSock::id(i))));
        let shortest = pipes.clone().filter_map(|p| p.min_rtt()).min();
        let rate = pipes
            .map(|p| p.delivery_rate())
            .fold(0u64, u64::saturating_add);
        let pause = moderation_pause(shortest, rate);
        if pause.is_zero() {
            return pause;
        }
        self.rx
            .poll_timeout()
            .map_or(pause, |t| pause.min(self.clock.until(t)))
    }

    /// Every open path silent: the next standby group replaces them (its
    /// servers asked first, and held to the same file).
    fn migrate_if_silent(&mut self, cfg: &GetConfig) -> Result<(), GetError> {
        let mut open = self.paths.iter().filter(|p| p.sock.is_some());
        if self.standby.is_empty() || !open.all(|p| p.heard.elapsed() > FAILOVER) {
            return Ok(());
        }
        let (size, sha256) = (self.offers[0].1.size, self.offers[0].1.sha256);
        let group = self.standby.pop_front().expect("not empty");
        for p in &group {
            if !self.offers.iter().any(|(t, _)| *t == p.to) {
                let o = ask(
                    p.via,
                    p.to,
                    &mut self.poll,
                    (self.conn, super::wire_segment(cfg.segment)?, &cfg.path),
                    &cfg.trust,
                    cfg.insecure,
                )?;
                if (o.size, o.sha256) != (size, sha256) {
                    return Err(GetError::NotReplicas(p.to));
                }
                self.offers.push((p.to, o));
            }
        }
        for i in 0..self.paths.len() {
            drop_path(&mut self.paths, i, &self.poll, &mut self.rx, &self.clock);
        }
        for p in group {
            let keys = keys_of(&self.offers, p.to);
            open_path(&mut self.paths, p, keys, self.conn, &self.poll)?;
        }
        self.migrations += 1;
        Ok(())
    }
    /// Notes, at `now` (seconds), which pipes brought bytes since the last
    /// sample.
    fn sample_lives(&mut self, now: f64, previous: f64) {
        for p in self.rx.path_stats() {
            let life = self
                .lives
                .entry(p.path.0)
                .or_insert((previous, previous, 0));
            if p.delivered > life.2 {
                if life.2 == 0 {
                    life.0 = previous;
                }
                life.1 = now;
                life.2 = p.delivered;
            }
        }
    }

    /// What the finished transfer of a file with this SHA-256 did, in
    /// `seconds`.
    fn summary(&self, d: &Delivery, sha256: [u8; 32], seconds: f64) -> Summary {
        let stats = self.rx.stats();
        let pipes = self
            .rx
            .path_stats()
            .iter()
            .map(|p| PipeSummary {
                via: self.paths[p.path.0 as usize].cfg.via,
                to: self.paths[p.path.0 as usize].cfg.to,
                bytes: p.delivered,
                seconds: self
                    .lives
                    .get(&p.path.0)
                    .map_or(seconds, |&(first, last, _)| (last - first).max(0.0)),
            })
            .collect();
        Summary {
            bytes: d.delivered,
            seconds,
            sha256,
            pipes,
            re_requests: stats.retransmits,
            duplicate_bytes: stats.duplicate_bytes,
            migrations: self.migrations,
            first_contacts: self
                .offers
                .iter()
                .filter_map(|(to, o)| o.first_contact.map(|k| (*to, k)))
                .collect(),
            resumed_from: d.held,
            longest_stall_s: d.longest_stall.as_secs_f64(),
        }
    }
}

/// What has been delivered in order, and how steadily.
struct Delivery {
    delivered: u64,
    /// Bytes a resumed download already held.
    held: u64,
    last_progress: WallInstant,
    longest_stall: Duration,
}

impl Delivery {
    fn advanced(&mut self, n: usize) {
        if self.delivered > self.held {
            self.longest_stall = self.longest_stall.max(self.last_progress.elapsed());
        }
        self.delivered += n as u64;
        self.last_progress = WallInstant::now();
    }
}

/// Downloads `cfg.path` from `cfg.server`, calling `progress` as it goes
/// and applying `control` messages as they come.
pub fn get(
    cfg: &GetConfig,
    control: Option<&Receiver<Control>>,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, GetError> {
    assert!(!cfg.paths.is_empty(), "at least one path");
    let clock = Clock::new();
    let mut poll = Poll::new()?;
    // Connect to every server named, each through the first path to it,
    // from a socket of that path's address; all must offer the same file.
    let conn = random_conn();
    let offers = ask_all(cfg, &mut poll, conn)?;
    let (size, sha256) = (offers[0].1.size, offers[0].1.sha256);
    if size > cfg.max_size {
        return Err(GetError::TooLarge {
            size,
            max: cfg.max_size,
        });
    }
    // The download goes to FILE.part, renamed to FILE once its SHA-256
    // matches: an interrupted or failed download never stands under the
    // final name.
    let part = Part::open(&part_path(&cfg.out), cfg.resume, size)?;
    let held = part.held;
    check_room(&cfg.out, size - held)?;
    let rx = engine(cfg, conn, held);
    let mut t = Transfer {
        clock,
        poll,
        conn,
        offers,
        rx,
        paths: Vec::new(),
        standby: cfg
            .standby
            .iter()
            .filter(|g| !g.is_empty())
            .cloned()
            .collect(),
        migrations: 0,
        lives: Default::default(),
    };
    for p in &cfg.paths {
        let keys = keys_of(&t.offers, p.to);
        open_path(&mut t.paths, *p, keys, conn, &t.poll)?;
    }
    let mut out = writer::Writer::resume(part.file.try_clone()?, held)?;
    let mut d = Delivery {
        delivered: held,
        held,
        last_progress: WallInstant::now(),
        longest_stall: Duration::ZERO,
    };
    let mut read_buf = vec![0u8; 1 << 16];
    let mut receiver = crate::batch::Receiver::default();
    let mut events = Events::with_capacity(256);
    let mut last_report = WallInstant::now();
    let mut last_sample = 0.0;
    let mut told: Vec<SocketAddr> = Vec::new();
    let mut done = held == size;
    while !done {
        if let Some(c) = control {
            t.controls(c, cfg)?;
        }
        match t.poll.poll(&mut events, Some(t.wait())) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        }
        let datagrams = t.receive(&events, &mut receiver)?;
        t.migrate_if_silent(cfg)?;
        let now = t.clock.now();
        if t.rx.poll_timeout().is_some_and(|at| at <= now) {
            t.rx.handle_timeout(now);
        }
        loop {
            let n = t.rx.read(&mut read_buf);
            if n == 0 {
                break;
            }
            out.write(&read_buf[..n])?;
            d.advanced(n);
        }
        while let Some(ev) = t.rx.poll_app_event() {
            if ev == AppEvent::Closed {
                done = true;
            }
        }
        done |= d.delivered >= size;
        flush(&mut t.rx, &mut t.paths, &t.clock, t.conn);
        if last_report.elapsed() >= Duration::from_millis(100) || done {
            last_report = WallInstant::now();
            let now = t.clock.now().as_secs_f64();
            t.sample_lives(now, last_sample);
            last_sample = now;
            let first_contacts: Vec<(SocketAddr, [u8; 32])> = t
                .offers
                .iter()
                .filter_map(|(to, o)| o.first_contact.map(|k| (*to, k)))
                .filter(|(to, _)| !told.contains(to))
                .collect();
            told.extend(first_contacts.iter().map(|c| c.0));
            progress(&Progress {
                delivered: d.delivered,
                size,
                elapsed_s: t.clock.now().as_secs_f64(),
                first_contacts,
            });
        }
        if d.last_progress.elapsed() > STALL {
            return Err(GetError::Stalled {
                delivered: d.delivered,
            });
        }
        // Wake moderation: at a mobile host's rates each wake brings a
        // datagram or two, and the wakes, not the datagrams, cost most of
        // the CPU; a short pause gathers the next few into one wake (and
        // their requests into one datagram per path).
        let pause = if done || !cfg.moderate_wakes {
            Duration::ZERO
        } else {
            t.moderation(datagrams)
        };
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
    }
    let seconds = t.clock.now().as_secs_f64();
    // The FIN requests the engine queued for every pipe on completion.
    flush(&mut t.rx, &mut t.paths, &t.clock, t.conn);
    let got = out.finish()?;
    if got != sha256 {
        part.remove();
        return Err(GetError::Corrupt);
    }
    part.rename_to(&cfg.out)?;
    Ok(t.summary(&d, sha256, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> radial_core::Duration {
        radial_core::Duration::from_millis(n)
    }

    /// Bytes per second of `mbit` Mbit/s.
    fn rate(mbit: u64) -> u64 {
        mbit * 1_000_000 / 8
    }

    #[test]
    fn a_pause_is_an_eighth_of_the_shortest_round_trip_or_a_batch_at_the_rate() {
        // Two 20 Mbit/s paths, 20 ms the shorter round trip: an eighth of
        // it (a batch of 16 segments takes 3.84 ms at 40 Mbit/s).
        assert_eq!(
            moderation_pause(Some(ms(20)), rate(40)),
            Duration::from_micros(2500)
        );
        // A satellite path alone, 600 ms, 5 Mbit/s: the batch, 30.72 ms,
        // not 75 ms.
        assert_eq!(
            moderation_pause(Some(ms(600)), rate(5)),
            Duration::from_micros(30_720)
        );
    }

    #[test]
    fn no_pause_before_a_rate_and_a_round_trip_are_measured_or_below_the_floor() {
        assert_eq!(moderation_pause(None, rate(40)), Duration::ZERO);
        assert_eq!(moderation_pause(Some(ms(20)), 0), Duration::ZERO);
        // Loopback: an eighth of 200 µs is under the floor.
        let loopback = radial_core::Duration::from_micros(200);
        assert_eq!(
            moderation_pause(Some(loopback), rate(10_000)),
            Duration::ZERO
        );
        // A fast path: 16 segments at 10 Gbit/s take 15 µs.
        assert_eq!(moderation_pause(Some(ms(20)), rate(10_000)), Duration::ZERO);
    }
}
