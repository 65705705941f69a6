//! `radial serve` and `radial get`: real files over UDP (`radial-net`).

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use radial_net::client::{default_out, hex};
use radial_net::{GetConfig, GetError, PathConfig, Server, ServerOptions, Trust};

use crate::error::CliError;

/// The flags of `radial serve`.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeFlags {
    /// Follow symbolic links that lead out of the root (by default a
    /// link may only lead to another place beneath it).
    #[arg(long)]
    pub follow_symlinks: bool,
    /// Write one line per transfer (client, file, size, pipes, time,
    /// outcome) to FILE, or `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// The server's key pair, created there if missing (default:
    /// server.key in the configuration directory,
    /// $XDG_CONFIG_HOME/radial or ~/.config/radial).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Also serve clients that ask for no encryption (for measuring
    /// its cost; never on an untrusted network).
    #[arg(long)]
    pub insecure: bool,
    #[command(flatten)]
    pub exit: crate::tunnel::ExitFlags,
}

/// Radial's configuration directory: `$XDG_CONFIG_HOME/radial`, else
/// `~/.config/radial`.
pub fn config_dir() -> PathBuf {
    match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d).join("radial"),
        None => std::env::var_os("HOME")
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
            .join(".config/radial"),
    }
}

/// `radial serve --root DIR --listen ADDR ...`: serves until interrupted.
/// A line `stats` on standard input prints the server's counters as JSON.
pub fn serve(root: &Path, listen: &[String], flags: &ServeFlags) -> Result<(), CliError> {
    let addrs = listen
        .iter()
        .map(|a| {
            a.parse::<SocketAddr>()
                .map_err(|_| CliError::Input(format!("--listen `{a}`: expected IP:PORT")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !root.is_dir() {
        return Err(CliError::Input(format!(
            "--root `{}`: not a directory",
            root.display()
        )));
    }
    let key_file = flags
        .key
        .clone()
        .unwrap_or_else(|| config_dir().join("server.key"));
    let identity = radial_net::crypto::Identity::load_or_create(&key_file)
        .map_err(|e| CliError::Input(format!("--key `{}`: {e}", key_file.display())))?;
    let log: Option<Box<dyn std::io::Write + Send>> = match &flags.log {
        None => None,
        Some(p) if p == Path::new("-") => Some(Box::new(std::io::stdout())),
        Some(p) => Some(Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| CliError::Input(format!("--log `{}`: {e}", p.display())))?,
        )),
    };
    let follow_symlinks = flags.follow_symlinks;
    let (streams, stream_clients) = match crate::tunnel::exits(&flags.exit)? {
        Some((tx, clients)) => (Some(tx), Some(clients)),
        None => (None, None),
    };
    let opts = ServerOptions {
        follow_symlinks,
        limits: radial_net::Limits::default(),
        log,
        identity: Some(identity),
        allow_insecure: flags.insecure,
        streams,
        stream_clients,
    };
    let mut server = Server::with_options(root, &addrs, opts).map_err(|e| {
        let code = e.kind();
        let m = format!("--listen {}: {e}", listen.join(", "));
        if code == std::io::ErrorKind::AddrNotAvailable || code == std::io::ErrorKind::AddrInUse {
            CliError::Input(m)
        } else {
            CliError::Failed(m)
        }
    })?;
    let shown: Vec<String> = server.local_addrs().iter().map(|a| a.to_string()).collect();
    println!(
        "serving {} on {}",
        server.root().display(),
        shown.join(", ")
    );
    eprintln!(
        "server key {} ({}); symbolic links {} the root; type `stats` for the counters",
        hex(&server.public_key()),
        key_file.display(),
        if follow_symlinks {
            "may lead out of"
        } else {
            "stay beneath"
        }
    );
    if flags.insecure {
        eprintln!("clients may ask for no encryption (--insecure)");
    }
    let stats = server.stats_handle();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            match line.trim() {
                "" => {}
                "stats" => {
                    let s = *stats.lock().unwrap_or_else(|e| e.into_inner());
                    println!("{}", stats_json(&s));
                }
                other => eprintln!("`{other}`: the only command is `stats`"),
            }
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    server
        .run(&stop)
        .map_err(|e| CliError::Failed(format!("server: {e}")))
}

/// The server's counters, and this process's resident memory, as JSON.
fn stats_json(s: &radial_net::ServerStats) -> String {
    let rss_kb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
    serde_json::json!({
        "handshakes": s.handshakes,
        "sessions": s.sessions,
        "pipes": s.pipes,
        "completed": s.completed,
        "bytes_sent": s.bytes_sent,
        "data_datagrams": s.data_datagrams,
        "dropped": {
            "malformed": s.malformed,
            "forged": s.forged,
            "replayed": s.replayed,
            "unknown": s.dropped,
            "rejected": s.rejected,
            "refused_full": s.refused_full,
            "evicted": s.evicted,
        },
        "waits": {
            "amplification": s.amplification_waits,
            "receipt": s.receipt_waits,
        },
        "file_errors": s.file_errors,
        "live": {
            "connections": s.live_connections,
            "half_open": s.half_open,
            "paths": s.live_paths,
            "pipes": s.live_pipes,
            "queued_bytes": s.queued_bytes,
            "queued_datagrams": s.queued_datagrams,
        },
        "rss_bytes": rss_kb.map(|k| k * 1024),
    })
    .to_string()
}

/// The port a `radial://` URL without one means.
pub const DEFAULT_PORT: u16 = 7400;

/// Splits `radial://HOST[:PORT]/PATH` into the server's address and the
/// path; the port is [`DEFAULT_PORT`] when not given.
pub fn parse_url(url: &str) -> Result<(SocketAddr, String), CliError> {
    let bad = |why: &str| {
        CliError::Input(format!(
            "`{url}`: {why} (expected radial://HOST[:PORT]/PATH)"
        ))
    };
    let rest = url
        .strip_prefix("radial://")
        .ok_or_else(|| bad("not a radial:// address"))?;
    let (host, path) = rest.split_once('/').ok_or_else(|| bad("no path"))?;
    if path.is_empty() {
        return Err(bad("no path"));
    }
    Ok((parse_host(url, host)?, path.to_string()))
}

/// The server of `radial://HOST[:PORT]`, with or without a trailing `/`.
pub fn parse_server(url: &str) -> Result<SocketAddr, CliError> {
    let rest = url.strip_prefix("radial://").ok_or_else(|| {
        CliError::Input(format!(
            "`{url}`: not a radial:// address (expected radial://HOST[:PORT])"
        ))
    })?;
    parse_host(url, rest.strip_suffix('/').unwrap_or(rest))
}

/// The address of `host` (HOST[:PORT], [V6][:PORT]) in `url`; the port is
/// [`DEFAULT_PORT`] when not given.
fn parse_host(url: &str, host: &str) -> Result<SocketAddr, CliError> {
    let bad = |why: &str| CliError::Input(format!("`{url}`: {why}"));
    if host.is_empty() {
        return Err(bad("no host"));
    }
    // HOST:PORT, [V6]:PORT, or a host alone (V4, name, or [V6]).
    let with_port = match host.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') || h.ends_with(']') => {
            let port = p
                .parse::<u16>()
                .map_err(|_| bad(&format!("`{p}` is not a port")))?;
            (h.trim_start_matches('[').trim_end_matches(']'), port)
        }
        _ => (
            host.trim_start_matches('[').trim_end_matches(']'),
            DEFAULT_PORT,
        ),
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| bad(&format!("cannot resolve the host `{}`", with_port.0)))
}

/// The server keys `--server-key` and `--known-servers` accept.
pub fn trust_of(server_key: Option<&str>, known: Option<&PathBuf>) -> Result<Trust, CliError> {
    Ok(match server_key {
        Some(k) => Trust::Key(radial_net::crypto::unhex(k).ok_or_else(|| {
            CliError::Input(format!("--server-key `{k}`: expected 64 hex digits"))
        })?),
        None => Trust::KnownServers(
            known
                .cloned()
                .unwrap_or_else(|| config_dir().join("known_servers")),
        ),
    })
}

/// The `--via` values, each a local address and where its path sends (the
/// server's address when not given); one path from any local address when
/// there are none.
pub fn parse_vias(
    vias: &[String],
    server: SocketAddr,
) -> Result<Vec<(SocketAddr, Option<SocketAddr>)>, CliError> {
    let mut pipes: Vec<(SocketAddr, Option<SocketAddr>)> = vias
        .iter()
        .map(|v| parse_via(v))
        .collect::<Result<_, _>>()?;
    if pipes.is_empty() {
        let any: IpAddr = if server.is_ipv4() {
            IpAddr::from([0, 0, 0, 0])
        } else {
            IpAddr::from([0u16; 8])
        };
        pipes.push((SocketAddr::new(any, 0), None));
    }
    let via: Vec<SocketAddr> = pipes.iter().map(|p| p.0).collect();
    if let Some(v) = via.iter().find(|v| v.is_ipv4() != server.is_ipv4()) {
        return Err(CliError::Input(format!(
            "--via `{v}`: not of the server's address family ({server})"
        )));
    }
    check_vias(&via)?;
    Ok(pipes)
}

/// A `--via` value: a local IP address or IP:PORT, optionally followed by
/// `@HOST:PORT`, the address this pipe sends to instead of the URL's (an
/// emulated path's front, a NAT).
fn parse_via(v: &str) -> Result<(SocketAddr, Option<SocketAddr>), CliError> {
    let (local, to) = match v.split_once('@') {
        Some((l, t)) => (l, Some(t)),
        None => (v, None),
    };
    let local = local
        .parse::<SocketAddr>()
        .or_else(|_| local.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 0)))
        .map_err(|_| {
            CliError::Input(format!(
                "--via `{v}`: expected an IP address or IP:PORT, optionally @HOST:PORT"
            ))
        })?;
    let to = match to {
        None => None,
        Some(t) => Some(
            t.to_socket_addrs()
                .ok()
                .and_then(|mut a| a.find(|a| a.is_ipv4() == local.is_ipv4()))
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--via `{v}`: `{t}` is not a HOST:PORT of its family"
                    ))
                })?,
        ),
    };
    Ok((local, to))
}

/// How `radial get` uses its paths and servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Every local address to the server and every replica at once.
    Aggregate,
    /// One path at a time: the first address to the server; when it is
    /// gone or silent, the next address, then the replicas.
    Handoff,
    /// Aggregation held to a payload rate, served first by one address
    /// (pTCP Figure 10).
    Target(radial_core::BitRate, IpAddr),
}

fn parse_policy(p: &str) -> Result<Policy, CliError> {
    let bad = || {
        CliError::Input(format!(
            "--policy `{p}`: expected aggregate, handoff or target=RATE,prefer=ADDR"
        ))
    };
    match p {
        "aggregate" => return Ok(Policy::Aggregate),
        "handoff" => return Ok(Policy::Handoff),
        _ => {}
    }
    let rest = p.strip_prefix("target=").ok_or_else(bad)?;
    let (rate, prefer) = rest.split_once(",prefer=").ok_or_else(bad)?;
    let rate = radial_sim::scenario::units::parse_rate(rate)
        .map_err(|e| CliError::Input(format!("--policy `{p}`: {e}")))?;
    let prefer = prefer.parse::<IpAddr>().map_err(|_| bad())?;
    Ok(Policy::Target(rate, prefer))
}

/// Sets the paths, standby groups and target of `cfg` (one path per
/// address to the server already) for `policy`.
fn apply_policy(
    cfg: &mut GetConfig,
    policy: &str,
    replicas: &[SocketAddr],
) -> Result<(), CliError> {
    let direct = cfg.paths.clone();
    let to_replica = |to: SocketAddr| -> Vec<PathConfig> {
        direct
            .iter()
            .map(|p| PathConfig { via: p.via, to })
            .collect()
    };
    match parse_policy(policy)? {
        Policy::Aggregate => {
            for &r in replicas {
                cfg.paths.extend(to_replica(r));
            }
        }
        Policy::Handoff => {
            cfg.paths.truncate(1);
            cfg.standby = direct[1..].iter().map(|p| vec![*p]).collect();
            cfg.standby.extend(replicas.iter().map(|&r| to_replica(r)));
        }
        Policy::Target(rate, prefer) => {
            let i = direct
                .iter()
                .position(|p| p.via.ip() == prefer)
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--policy: prefer={prefer} is not one of the --via addresses"
                    ))
                })?;
            cfg.target = Some((rate, i));
            cfg.standby = replicas.iter().map(|&r| to_replica(r)).collect();
        }
    }
    Ok(())
}

/// The flags of `radial get`.
#[derive(clap::Args, Clone, Debug)]
pub struct GetFlags {
    /// Local address for one pipe, e.g. 192.168.1.5 or 10.0.0.2:0
    /// (repeatable; default: any local address). `ADDR@HOST:PORT` sends
    /// that pipe to HOST:PORT instead (an emulated path's front).
    #[arg(long)]
    pub via: Vec<String>,
    /// A replica of the server, HOST:PORT (repeatable): if the server
    /// falls silent, the transfer moves there, fetching only what is
    /// missing.
    #[arg(long)]
    pub replica: Vec<String>,
    /// How the paths are used: `aggregate` (every address, and every
    /// replica, at once), `handoff` (one at a time: the next address,
    /// then the replicas, when the current one is gone or silent), or
    /// `target=RATE,prefer=ADDR` (aggregation held to RATE, served
    /// first through ADDR).
    #[arg(long, default_value = "aggregate")]
    pub policy: String,
    /// Output file (default: the file's name, in the current
    /// directory). It is written as FILE.part and renamed once its
    /// SHA-256 matches.
    #[arg(short = 'o', long)]
    pub out: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Resume an interrupted download from FILE.part: its bytes are kept
    /// and only the rest is asked for (the whole file is still checked
    /// against the server's SHA-256; a partial file of something else is
    /// thrown away).
    #[arg(long = "continue")]
    pub resume: bool,
    /// The server's public key (64 hex digits, as `radial serve`
    /// prints it): any other is refused. Without it, the key a server
    /// showed the first time is recorded in the known-servers file and
    /// required from then on.
    #[arg(long, value_name = "HEX")]
    pub server_key: Option<String>,
    /// The known-servers file (default: known_servers in the
    /// configuration directory).
    #[arg(long, value_name = "FILE")]
    pub known_servers: Option<PathBuf>,
    /// Ask for no encryption (the server must allow it with
    /// --insecure): for measuring what encryption costs.
    #[arg(long)]
    pub insecure: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Handle each datagram as it arrives, instead of letting a few gather
    /// after a wake that brought few (for an eighth of the shortest round
    /// trip, or less if the connection's rate brings a batch sooner): more
    /// CPU at a mobile host's rates, for measuring what the pause saves.
    #[arg(long)]
    pub no_wake_moderation: bool,
    /// The receive buffer in bytes, shared by every pipe (default about
    /// 4 MB).
    #[arg(long, value_name = "BYTES")]
    pub buffer: Option<u64>,
    /// Payload bytes per segment, 1200 (the default, which any path
    /// carries) to 60000. Over the loopback device (64 KiB MTU) 16000 is
    /// faster; every path must carry datagrams that large, as path MTUs
    /// are not discovered.
    #[arg(long, value_name = "BYTES", default_value_t = radial_net::config::MSS)]
    pub segment: u64,
    /// The largest file accepted, e.g. 500MB or 2TiB: a server offering
    /// more is refused before anything is written (the free space where
    /// the file goes is checked too).
    #[arg(long, value_name = "SIZE", default_value = "64GiB")]
    pub max_size: String,
}

/// Checks that the output file can be written before any server is asked:
/// its directory exists, and it does not exist already unless `force`.
fn check_out(out: &Path, force: bool) -> Result<(), CliError> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(CliError::Input(format!(
            "-o `{}`: the directory `{}` does not exist",
            out.display(),
            dir.display()
        )));
    }
    if out.is_dir() {
        return Err(CliError::Input(format!(
            "-o `{}`: is a directory",
            out.display()
        )));
    }
    // A dangling symbolic link exists too (it is replaced, never followed).
    if out.symlink_metadata().is_ok() && !force {
        return Err(CliError::Input(format!(
            "-o `{}`: the file exists (--force replaces it)",
            out.display()
        )));
    }
    Ok(())
}

/// Checks that every `--via` address is one this host has (it can be
/// bound), naming the flag when not.
fn check_vias(vias: &[SocketAddr]) -> Result<(), CliError> {
    for v in vias {
        if let Err(e) = std::net::UdpSocket::bind(*v) {
            let why = if e.kind() == std::io::ErrorKind::AddrNotAvailable {
                "this host has no such address".to_string()
            } else {
                e.to_string()
            };
            return Err(CliError::Input(format!("--via `{v}`: {why}")));
        }
    }
    Ok(())
}

/// `radial get URL [--via ADDR ...] [-o FILE] [--json]`.
pub fn get(url: &str, flags: &GetFlags) -> Result<(), CliError> {
    let cfg = get_config(url, flags)?;
    let s = download(&cfg, flags.json).map_err(|e| match e {
        GetError::Refused(_) | GetError::TooLarge { .. } | GetError::UnsafePart { .. } => {
            CliError::Input(format!("{url}: {e}"))
        }
        _ => CliError::Failed(format!("{url}: {e}")),
    })?;
    report(url, &cfg, &s, flags.json);
    Ok(())
}

/// The download `radial get URL` with `flags` asks for, checked before any
/// server is contacted.
fn get_config(url: &str, flags: &GetFlags) -> Result<GetConfig, CliError> {
    let (server, path) = parse_url(url)?;
    let replicas = flags
        .replica
        .iter()
        .map(|r| {
            r.to_socket_addrs()
                .ok()
                .and_then(|mut a| a.find(|a| a.is_ipv4() == server.is_ipv4()))
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--replica `{r}`: expected HOST:PORT of the server's address family"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pipes = parse_vias(&flags.via, server)?;
    let via: Vec<SocketAddr> = pipes.iter().map(|p| p.0).collect();
    let out = flags.out.clone().unwrap_or_else(|| default_out(&path));
    check_out(&out, flags.force)?;
    let mut cfg = GetConfig::new(server, &path, &via, out.clone());
    for (p, (_, to)) in cfg.paths.iter_mut().zip(&pipes) {
        if let Some(to) = to {
            p.to = *to;
        }
    }
    apply_policy(&mut cfg, &flags.policy, &replicas)?;
    cfg.trust = trust_of(flags.server_key.as_deref(), flags.known_servers.as_ref())?;
    cfg.insecure = flags.insecure;
    cfg.moderate_wakes = !flags.no_wake_moderation;
    cfg.resume = flags.resume;
    cfg.buffer = flags.buffer;
    if !radial_net::config::segment_allowed(flags.segment) {
        return Err(CliError::Input(format!(
            "--segment {}: segments are {} to {} bytes",
            flags.segment,
            radial_net::config::MSS,
            radial_net::config::MAX_SEGMENT
        )));
    }
    cfg.segment = flags.segment;
    cfg.max_size = radial_sim::scenario::units::parse_size(&flags.max_size)
        .map_err(|e| CliError::Input(format!("--max-size: {e}")))?;
    Ok(cfg)
}

/// Runs the download with a progress bar (none with `json`), handing off
/// as the host's addresses come and go.
fn download(cfg: &GetConfig, json: bool) -> Result<radial_net::Summary, GetError> {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {rate} {elapsed_precise}")
            .expect("a valid template")
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    // In Mbit/s, as the summary says it.
                    let _ = write!(w, "{:.2} Mbit/s", state.per_sec() * 8.0 / 1e6);
                },
            ),
    );
    if json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // Addresses that disappear or come back drive handoffs: polled every
    // second, and told on standard input (`drop ADDR`, `add ADDR`).
    let (tx, control) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let mut watched: Vec<IpAddr> = cfg.paths.iter().map(|p| p.via.ip()).collect();
    watched.dedup();
    let watcher = radial_net::watch::watch_addresses(
        watched.clone(),
        std::time::Duration::from_secs(1),
        tx.clone(),
        stop.clone(),
    );
    radial_net::watch::read_commands(std::io::BufReader::new(std::io::stdin()), tx, watched);
    let result = radial_net::get(cfg, Some(&control), |p| {
        if let Trust::KnownServers(file) = &cfg.trust {
            for (server, key) in &p.first_contacts {
                // Said when it happens, above the bar.
                bar.suspend(|| {
                    eprintln!(
                        "first contact with {server}: its key {} is now trusted ({})",
                        hex(key),
                        file.display()
                    )
                });
            }
        }
        bar.set_length(p.size);
        bar.set_position(p.delivered);
    });
    bar.finish_and_clear();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    watcher.thread().unpark();
    let _ = watcher.join();
    result
}

/// Prints what the download `cfg` of `url` did: a summary, or JSON.
fn report(url: &str, cfg: &GetConfig, s: &radial_net::Summary, json: bool) {
    let out = &cfg.out;
    if s.resumed_from > 0 && !json {
        println!("resumed after the {} bytes already held", s.resumed_from);
    }
    if s.migrations > 0 && !json {
        println!("moved to a replica {} time(s)", s.migrations);
    }
    if json {
        let pipes: Vec<serde_json::Value> = s
            .pipes
            .iter()
            .map(|p| {
                serde_json::json!({
                    "via": p.via.to_string(),
                    "server": p.to.to_string(),
                    "bytes": p.bytes,
                    "seconds": p.seconds,
                    "mbps": p.mbps(),
                })
            })
            .collect();
        let v = serde_json::json!({
            "url": url,
            "file": out.display().to_string(),
            "bytes": s.bytes,
            "seconds": s.seconds,
            "mbps": s.mbps(),
            "sha256": hex(&s.sha256),
            "sha256_ok": true,
            "pipes": pipes,
            "re_requests": s.re_requests,
            "duplicate_bytes": s.duplicate_bytes,
            "migrations": s.migrations,
            "resumed_from": s.resumed_from,
            "longest_stall_s": s.longest_stall_s,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("serialisable")
        );
    } else {
        let fetched = s.bytes - s.resumed_from;
        let this_run = if s.resumed_from > 0 {
            format!(" ({fetched} fetched now)")
        } else {
            String::new()
        };
        println!(
            "{}: {} bytes{this_run} in {:.2} s ({:.2} Mbit/s), SHA-256 {} verified",
            out.display(),
            s.bytes,
            s.seconds,
            s.mbps(),
            hex(&s.sha256)
        );
        for (i, p) in s.pipes.iter().enumerate() {
            println!(
                "  pipe {} via {} to {}: {} bytes in {:.2} s of its life ({:.2} Mbit/s)",
                i + 1,
                p.via,
                p.to,
                p.bytes,
                p.seconds,
                p.mbps()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_shape_paths_and_standby() {
        let a = |s: &str| s.parse::<SocketAddr>().unwrap();
        let base = || {
            GetConfig::new(
                a("10.0.0.1:7400"),
                "f",
                &[a("10.1.0.2:0"), a("10.2.0.2:0")],
                PathBuf::from("f"),
            )
        };
        let replica = [a("10.0.0.9:7400")];
        let mut c = base();
        apply_policy(&mut c, "aggregate", &replica).unwrap();
        assert_eq!(c.paths.len(), 4);
        assert!(c.standby.is_empty());
        let mut c = base();
        apply_policy(&mut c, "handoff", &replica).unwrap();
        assert_eq!(c.paths.len(), 1);
        assert_eq!(c.standby.len(), 2, "the second address, then the replica");
        assert_eq!(c.standby[1].len(), 2);
        let mut c = base();
        apply_policy(&mut c, "target=10Mbit/s,prefer=10.2.0.2", &[]).unwrap();
        assert_eq!(c.target, Some((radial_core::BitRate::from_mbps(10), 1)));
        for bad in [
            "fast",
            "target=10Mbit/s",
            "target=10Mbit/s,prefer=10.9.9.9",
            "target=ten,prefer=10.1.0.2",
        ] {
            assert!(apply_policy(&mut base(), bad, &[]).is_err(), "{bad}");
        }
    }

    #[test]
    fn urls_name_server_and_path() {
        let (a, p) = parse_url("radial://127.0.0.1:7400/dir/f.bin").unwrap();
        assert_eq!(a, "127.0.0.1:7400".parse().unwrap());
        assert_eq!(p, "dir/f.bin");
        for bad in [
            "http://x:1/a",
            "radial://127.0.0.1:7400",
            "radial://127.0.0.1:7400/",
            "radial://nohost/a",
        ] {
            assert!(matches!(parse_url(bad), Err(CliError::Input(_))), "{bad}");
        }
    }

    #[test]
    fn vias_take_an_address_with_or_without_port_and_a_target() {
        let a = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert_eq!(parse_via("10.0.0.2").unwrap(), (a("10.0.0.2:0"), None));
        assert_eq!(
            parse_via("10.0.0.2:5000").unwrap(),
            (a("10.0.0.2:5000"), None)
        );
        assert_eq!(
            parse_via("127.0.0.21@127.0.0.11:7411").unwrap(),
            (a("127.0.0.21:0"), Some(a("127.0.0.11:7411")))
        );
        assert!(parse_via("eth0").is_err());
        assert!(parse_via("127.0.0.21@nowhere").is_err());
    }
}
