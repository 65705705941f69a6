//! How faithfully a shell's paths follow their models, measured from the
//! outside with UDP sockets in its two namespaces: the one-way delay from
//! echoes, the rate from a stream that keeps the link's queue full, and the
//! loss from a stream slow enough never to queue. Each path in turn, the
//! servers' way down to the host (the direction a download takes).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::{host_address, Shell, SERVER};
use crate::emulator::PathModel;

/// IP and UDP headers.
const HEADERS: usize = 28;

/// What a path was set to and what was measured on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The path.
    pub path: usize,
    /// The model's one-way delay, seconds.
    pub delay_s: f64,
    /// The median one-way delay of the echoes, less their transmission
    /// times, seconds.
    pub measured_delay_s: f64,
    /// The model's rate down, bit/s.
    pub rate_bps: f64,
    /// Bits of IP packets per second down a saturated path, counting those
    /// its loss took (the loss comes after the link).
    pub measured_rate_bps: f64,
    /// The model's mean loss rate down.
    pub loss: f64,
    /// The share of the loss stream lost.
    pub measured_loss: f64,
    /// Packets in the loss stream.
    pub loss_probes: usize,
    /// Whether the loss is a Gilbert-Elliott channel (losses come in
    /// bursts, so the binomial interval does not apply).
    pub correlated_loss: bool,
}

/// The 99.9 % Wilson score interval of a proportion `k / n`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 3.2905_f64;
    let (n, p) = (n as f64, k as f64 / n as f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

impl Measured {
    /// The measured one-way delay is within 1 ms of the model's.
    pub fn delay_ok(&self) -> bool {
        (self.measured_delay_s - self.delay_s).abs() <= 0.001
    }

    /// The measured rate is within 2 % of the model's; `None` for a
    /// correlated loss, whose share in the rate stream differs from the
    /// loss stream's that corrects it.
    pub fn rate_ok(&self) -> Option<bool> {
        if self.correlated_loss {
            return None;
        }
        Some((self.measured_rate_bps / self.rate_bps - 1.0).abs() <= 0.02)
    }

    /// The model's loss rate lies in the measured loss's 99.9 % binomial
    /// interval; `None` for a correlated loss.
    pub fn loss_ok(&self) -> Option<bool> {
        if self.correlated_loss {
            return None;
        }
        let k = (self.measured_loss * self.loss_probes as f64).round() as usize;
        let (lo, hi) = wilson(k, self.loss_probes);
        Some(lo <= self.loss && self.loss <= hi)
    }
}

/// The mean loss rate of a direction's model.
fn mean_loss(m: &crate::emulator::LinkModel) -> f64 {
    match m.channel {
        None => m.loss,
        Some(ge) => {
            let (g, b) = (ge.good_mean.as_secs_f64(), ge.bad_mean.as_secs_f64());
            (ge.good_loss * g + ge.bad_loss * b) / (g + b)
        }
    }
}

/// Measures every path of `shell`, whose models are `models`.
pub fn measure(shell: &Shell, models: &[PathModel]) -> io::Result<Vec<Measured>> {
    models
        .iter()
        .enumerate()
        .map(|(i, m)| measure_path(shell, i, m))
        .collect()
}

/// A socket bound inside the host's or the servers' namespace.
fn socket(shell: &Shell, host: bool, addr: SocketAddr) -> io::Result<UdpSocket> {
    let ns = if host { shell.host() } else { shell.server() };
    ns.inside(move || UdpSocket::bind(addr))
}

fn measure_path(shell: &Shell, i: usize, m: &PathModel) -> io::Result<Measured> {
    let host = socket(shell, true, SocketAddr::new(host_address(i).into(), 0))?;
    let server = socket(shell, false, SocketAddr::new(SERVER.into(), 0))?;
    let delay = m.down.delay;
    let rtt = 2 * delay;
    let (lost, probes) = loss(&host, &server, m, rtt)?;
    let measured_loss = lost as f64 / probes as f64;
    let echo = one_way_delay(&host, &server, m, rtt)?;
    let rate = rate(&host, &server, m, rtt)? / (1.0 - measured_loss).max(0.01);
    Ok(Measured {
        path: i,
        delay_s: delay.as_secs_f64(),
        measured_delay_s: echo,
        rate_bps: m.down.rate_bps as f64,
        measured_rate_bps: rate,
        loss: mean_loss(&m.down),
        measured_loss,
        loss_probes: probes,
        correlated_loss: m.down.channel.is_some(),
    })
}

/// Seconds `bytes` of IP packet take at `bps`.
fn transmission(bytes: usize, bps: u64) -> f64 {
    bytes as f64 * 8.0 / bps.max(1) as f64
}

/// Receives on `sock` until nothing has come for `quiet`, calling `f` with
/// each datagram and its arrival time.
fn receive_until_quiet(
    sock: &UdpSocket,
    quiet: Duration,
    mut f: impl FnMut(&[u8], Instant),
) -> io::Result<()> {
    sock.set_read_timeout(Some(quiet))?;
    let mut buf = [0u8; 2048];
    loop {
        match sock.recv(&mut buf) {
            Ok(n) => f(&buf[..n], Instant::now()),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(())
            }
            Err(e) => return Err(e),
        }
    }
}

/// The median one-way delay of 50 echoes, less their transmission times.
fn one_way_delay(
    host: &UdpSocket,
    server: &UdpSocket,
    m: &PathModel,
    rtt: Duration,
) -> io::Result<f64> {
    const N: usize = 50;
    const SIZE: usize = 16;
    let stop = Arc::new(AtomicBool::new(false));
    let echo = {
        let server = server.try_clone()?;
        let stop = stop.clone();
        server.set_read_timeout(Some(Duration::from_millis(50)))?;
        thread::spawn(move || {
            let mut buf = [0u8; 64];
            while !stop.load(Ordering::Relaxed) {
                if let Ok((n, from)) = server.recv_from(&mut buf) {
                    let _ = server.send_to(&buf[..n], from);
                }
            }
        })
    };
    let to = server.local_addr()?;
    let start = Instant::now();
    let sender = {
        let host = host.try_clone()?;
        thread::spawn(move || -> io::Result<()> {
            for k in 0..N as u64 {
                let mut msg = [0u8; SIZE];
                msg[..8].copy_from_slice(&k.to_be_bytes());
                let at = start.elapsed().as_nanos() as u64;
                msg[8..].copy_from_slice(&at.to_be_bytes());
                host.send_to(&msg, to)?;
                thread::sleep(Duration::from_millis(20));
            }
            Ok(())
        })
    };
    let mut rtts = Vec::new();
    let quiet = rtt + Duration::from_millis(500);
    receive_until_quiet(host, quiet, |msg, at| {
        if msg.len() == SIZE {
            let sent = u64::from_be_bytes(msg[8..].try_into().expect("8 bytes"));
            let now = at.duration_since(start).as_nanos() as u64;
            rtts.push(now.saturating_sub(sent) as f64 / 1e9);
        }
    })?;
    sender
        .join()
        .map_err(|_| io::Error::other("prober panicked"))??;
    stop.store(true, Ordering::Relaxed);
    let _ = echo.join();
    if rtts.is_empty() {
        return Err(io::Error::other("no echo came back"));
    }
    rtts.sort_by(f64::total_cmp);
    let median = rtts[rtts.len() / 2];
    let wire =
        transmission(SIZE + HEADERS, m.up.rate_bps) + transmission(SIZE + HEADERS, m.down.rate_bps);
    Ok((median - wire) / 2.0)
}

/// How a stream keeps its pace.
#[derive(Clone, Copy, PartialEq)]
enum Pace {
    /// One every gap from the start: a sender that fell behind catches up
    /// in a burst (the queue is meant to be full).
    CatchUp,
    /// At least a gap between any two (no burst ever builds a queue).
    Spaced,
}

/// Sends `count` datagrams of `size` bytes from `server` to `host`, one
/// every `gap`; returns what arrived as (sequence number, arrival time).
fn stream(
    host: &UdpSocket,
    server: &UdpSocket,
    (size, count, gap, pace): (usize, usize, Duration, Pace),
    quiet: Duration,
) -> io::Result<Vec<(u64, Instant)>> {
    let to = host.local_addr()?;
    let server = server.try_clone()?;
    // Room for the whole stream should the receiver be kept waiting.
    rustix::net::sockopt::set_socket_recv_buffer_size_force(host, 8 << 20)
        .or_else(|_| rustix::net::sockopt::set_socket_recv_buffer_size(host, 8 << 20))?;
    let sender = thread::spawn(move || -> io::Result<()> {
        let start = Instant::now();
        let mut last = start;
        let mut msg = vec![0u8; size];
        for k in 0..count as u64 {
            let due = match pace {
                Pace::CatchUp => start + gap * k as u32,
                Pace::Spaced if k == 0 => start,
                Pace::Spaced => last + gap,
            };
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
            last = Instant::now();
            msg[..8].copy_from_slice(&k.to_be_bytes());
            server.send_to(&msg, to)?;
        }
        Ok(())
    });
    let mut got = Vec::with_capacity(count);
    // The first packet may take a round trip's worth of queue to arrive.
    receive_until_quiet(host, quiet, |msg, at| {
        if msg.len() == size {
            got.push((u64::from_be_bytes(msg[..8].try_into().expect("8")), at));
        }
    })?;
    sender
        .join()
        .map_err(|_| io::Error::other("sender panicked"))??;
    Ok(got)
}

/// Packets lost of a stream paced at half the path's rate (no queue ever
/// builds, so every loss is the model's); (lost, sent).
fn loss(
    host: &UdpSocket,
    server: &UdpSocket,
    m: &PathModel,
    rtt: Duration,
) -> io::Result<(usize, usize)> {
    const N: usize = 4000;
    const SIZE: usize = 72;
    let gap = Duration::from_secs_f64(2.0 * transmission(SIZE + HEADERS, m.down.rate_bps))
        .max(Duration::from_micros(250));
    let got = stream(
        host,
        server,
        (SIZE, N, gap, Pace::Spaced),
        rtt + Duration::from_secs(1),
    )?;
    let mut seen = vec![false; N];
    for (k, _) in got {
        if let Some(s) = seen.get_mut(k as usize) {
            *s = true;
        }
    }
    Ok((seen.iter().filter(|s| !**s).count(), N))
}

/// Bits per second of IP packets arriving from a stream sent at twice the
/// path's rate for at least 2 s: the path's queue stays full, so arrivals
/// are spaced by the link alone.
fn rate(host: &UdpSocket, server: &UdpSocket, m: &PathModel, rtt: Duration) -> io::Result<f64> {
    const SIZE: usize = 1500 - HEADERS;
    let packet = transmission(SIZE + HEADERS, m.down.rate_bps);
    let count = ((2.0 / packet) as usize).max(500) * 2;
    let gap = Duration::from_secs_f64(packet / 2.0);
    let got = stream(
        host,
        server,
        (SIZE, count, gap, Pace::CatchUp),
        rtt + Duration::from_secs(1),
    )?;
    let (Some(first), Some(last)) = (got.first(), got.last()) else {
        return Err(io::Error::other("nothing of the rate stream arrived"));
    };
    let span = last.1.duration_since(first.1).as_secs_f64();
    Ok((got.len() - 1) as f64 * ((SIZE + HEADERS) * 8) as f64 / span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_hold_the_proportion_and_stay_in_bounds() {
        let (lo, hi) = wilson(40, 4000);
        assert!(lo < 0.01 && 0.01 < hi, "{lo} {hi}");
        assert!(hi - lo < 0.012);
        assert!(wilson(80, 4000).0 > 0.01, "2 % is not 1 %");
        assert_eq!(wilson(0, 4000).0, 0.0);
        assert!(wilson(4000, 4000).1 <= 1.0);
    }
}
