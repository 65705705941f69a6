//! Noticing the host's addresses come and go: a thread lists the
//! interfaces' addresses every so often and turns the changes among the
//! addresses a transfer uses into [`Control`] messages, which drive its
//! handoffs; and a reader of `drop ADDR` / `add ADDR` commands for the same.

use std::io::BufRead;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::client::Control;

/// The changes that take `up` (whether each address in `watched` was
/// present) to what `present` says, as controls; `up` is updated.
/// Unspecified addresses (0.0.0.0, ::) are never reported.
pub fn changes(watched: &[IpAddr], present: &[IpAddr], up: &mut [bool]) -> Vec<Control> {
    let mut out = Vec::new();
    for (i, ip) in watched.iter().enumerate() {
        if ip.is_unspecified() {
            continue;
        }
        let now = present.contains(ip);
        if up[i] && !now {
            out.push(Control::AddressGone(*ip));
        } else if !up[i] && now {
            out.push(Control::AddressBack(*ip));
        }
        up[i] = now;
    }
    out
}

/// The host's interface addresses now.
pub fn host_addresses() -> Vec<IpAddr> {
    if_addrs::get_if_addrs()
        .map(|v| v.into_iter().map(|i| i.ip()).collect())
        .unwrap_or_default()
}

/// Polls the host's addresses every `period` until `stop`, sending the
/// changes among `watched` to `tx`. The thread sleeps a whole period at a
/// time (a wake every few milliseconds would cost a mobile host's client
/// more than some of its transfers do); who sets `stop` unparks the
/// returned thread (`handle.thread().unpark()`) for it to end at once.
pub fn watch_addresses(
    watched: Vec<IpAddr>,
    period: Duration,
    tx: Sender<Control>,
    stop: Arc<AtomicBool>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let present = host_addresses();
        let mut up: Vec<bool> = watched.iter().map(|ip| present.contains(ip)).collect();
        while !stop.load(Ordering::Relaxed) {
            // Parked, not slept: an unpark after `stop` ends it at once,
            // and an early or spurious wake parks again for the rest.
            let until = std::time::Instant::now() + period;
            while !stop.load(Ordering::Relaxed) {
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                thread::park_timeout(left);
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            for c in changes(&watched, &host_addresses(), &mut up) {
                if tx.send(c).is_err() {
                    return;
                }
            }
        }
    })
}

/// Parses a control command, `drop ADDR` or `add ADDR`, about one of the
/// addresses in `known` (the transfer's own).
pub fn parse_command(line: &str, known: &[IpAddr]) -> Result<Control, String> {
    let mut words = line.split_whitespace();
    let (verb, addr, extra) = (words.next(), words.next(), words.next());
    let usage = || format!("`{}`: expected `drop ADDR` or `add ADDR`", line.trim());
    let ip = addr
        .and_then(|a| a.parse::<IpAddr>().ok())
        .ok_or_else(usage)?;
    if extra.is_some() {
        return Err(usage());
    }
    if !known.contains(&ip) {
        let list: Vec<String> = known.iter().map(ToString::to_string).collect();
        return Err(format!(
            "`{}`: {ip} is not one of this transfer's addresses ({})",
            line.trim(),
            list.join(", ")
        ));
    }
    match verb {
        Some("drop") => Ok(Control::AddressGone(ip)),
        Some("add") => Ok(Control::AddressBack(ip)),
        _ => Err(usage()),
    }
}

/// Reads commands about the addresses in `known` from `input` line by line
/// (until it ends), sending each to `tx`; a bad line is reported on
/// standard error and skipped.
pub fn read_commands(
    input: impl BufRead + Send + 'static,
    tx: Sender<Control>,
    known: Vec<IpAddr>,
) {
    thread::spawn(move || {
        for line in input.lines().map_while(Result::ok) {
            if line.trim().is_empty() {
                continue;
            }
            match parse_command(&line, &known) {
                Ok(c) => {
                    // Acknowledged on standard error, as errors are.
                    match &c {
                        Control::AddressGone(ip) => eprintln!("control: {ip} dropped"),
                        Control::AddressBack(ip) => eprintln!("control: {ip} added"),
                        _ => {}
                    }
                    if tx.send(c).is_err() {
                        return;
                    }
                }
                Err(e) => eprintln!("control: {e}"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watcher_sleeps_its_period_and_ends_when_unparked() {
        let (tx, _rx) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let started = std::time::Instant::now();
        let h = watch_addresses(vec![], Duration::from_secs(600), tx, stop.clone());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!h.is_finished(), "ended before its stop");
        stop.store(true, Ordering::Relaxed);
        h.thread().unpark();
        h.join().unwrap();
        // Well short of the period: the unpark ended its sleep.
        assert!(started.elapsed() < Duration::from_secs(300));
    }

    #[test]
    fn addresses_that_go_and_come_back_are_reported_once() {
        let a: IpAddr = "10.0.0.2".parse().unwrap();
        let b: IpAddr = "10.1.0.2".parse().unwrap();
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        let watched = [a, b, any];
        let mut up = vec![true, true, true];
        assert_eq!(changes(&watched, &[a, b], &mut up), vec![]);
        assert_eq!(
            changes(&watched, &[b], &mut up),
            vec![Control::AddressGone(a)]
        );
        assert_eq!(changes(&watched, &[b], &mut up), vec![]);
        assert_eq!(
            changes(&watched, &[a], &mut up),
            vec![Control::AddressBack(a), Control::AddressGone(b)]
        );
    }

    #[test]
    fn commands() {
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let known = [a];
        assert_eq!(
            parse_command("drop 127.0.0.2", &known),
            Ok(Control::AddressGone(a))
        );
        assert_eq!(
            parse_command("  add 127.0.0.2 ", &known),
            Ok(Control::AddressBack(a))
        );
        assert!(parse_command("drop eth0", &known)
            .unwrap_err()
            .contains("drop eth0"));
        assert!(parse_command("remove 127.0.0.2", &known).is_err());
        assert!(parse_command("drop 127.0.0.2 now", &known).is_err());
        let e = parse_command("drop 127.0.0.9", &known).unwrap_err();
        assert!(
            e.contains("not one of this transfer's addresses (127.0.0.2)"),
            "{e}"
        );
    }

    #[test]
    fn the_loopback_address_is_listed() {
        assert!(host_addresses().contains(&"127.0.0.1".parse::<IpAddr>().unwrap()));
    }
}
