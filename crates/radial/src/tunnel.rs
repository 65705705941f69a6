//! `radial tunnel`: unmodified programs reach the network through a
//! stream connection to a `radial serve --tunnel` server, over every
//! local address; and the server's side of it.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use radial_net::crypto::{hex, unhex, ClientKey};
use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::tunnel::relay::{run_exit, run_front, Log};
use radial_net::tunnel::{Cidr, DestinationPolicy};
use radial_net::watch::{read_commands, watch_addresses};
use radial_net::{Control, GetError, PathConfig};

use crate::error::CliError;
use crate::net::{config_dir, parse_server, parse_vias, trust_of};

/// The flags of `radial tunnel`.
#[derive(clap::Args, Clone, Debug)]
pub struct TunnelFlags {
    /// Where local programs reach the tunnel: a SOCKS5 proxy without
    /// authentication, so a loopback address.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:1080")]
    pub socks: String,
    /// Local address for one path, as for `radial get` (repeatable;
    /// default: any local address).
    #[arg(long)]
    pub via: Vec<String>,
    /// This client's key, created there if missing (default: client.key
    /// in the configuration directory). The server must list its public
    /// key, which is printed at the start.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// The server's public key (64 hex digits); without it, the
    /// known-servers file decides, as for `radial get`.
    #[arg(long, value_name = "HEX")]
    pub server_key: Option<String>,
    /// The known-servers file (default: known_servers in the
    /// configuration directory).
    #[arg(long, value_name = "FILE")]
    pub known_servers: Option<PathBuf>,
    /// Ask for no encryption (the server must allow it).
    #[arg(long)]
    pub insecure: bool,
}

/// The tunnel flags of `radial serve`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ExitFlags {
    /// Also be a tunnel's server: listed clients (`--tunnel-clients`)
    /// open stream connections, and each stream becomes a TCP connection
    /// from here to the destination it names.
    #[arg(long)]
    pub tunnel: bool,
    /// The clients that may use the tunnel: one public key (64 hex
    /// digits, as `radial tunnel` prints it) per line, `#` comments
    /// (default: tunnel_clients in the configuration directory).
    #[arg(long, value_name = "FILE", requires = "tunnel")]
    pub tunnel_clients: Option<PathBuf>,
    /// A destination range the tunnel may connect to, e.g. 0.0.0.0/0 or
    /// 10.1.0.0/16 (repeatable; default: every address but the loopback,
    /// private, link-local and other special ranges, which are reached
    /// only when an allowed range lies within them).
    #[arg(long, value_name = "CIDR", requires = "tunnel")]
    pub tunnel_allow: Vec<String>,
}

fn stderr_log() -> Log {
    Arc::new(|line| eprintln!("{line}"))
}

/// `radial tunnel --socks ADDR radial://SERVER`: runs until interrupted.
pub fn tunnel(url: &str, flags: &TunnelFlags) -> Result<(), CliError> {
    let server = parse_server(url)?;
    let socks: SocketAddr = flags
        .socks
        .parse()
        .map_err(|_| CliError::Input(format!("--socks `{}`: expected IP:PORT", flags.socks)))?;
    if !socks.ip().is_loopback() {
        return Err(CliError::Input(format!(
            "--socks `{socks}`: not a loopback address (the SOCKS front has no \
             authentication: anyone who reaches it uses the tunnel)"
        )));
    }
    let paths: Vec<PathConfig> = parse_vias(&flags.via, server)?
        .into_iter()
        .map(|(via, to)| PathConfig {
            via,
            to: to.unwrap_or(server),
        })
        .collect();
    let key_file = flags
        .key
        .clone()
        .unwrap_or_else(|| config_dir().join("client.key"));
    let key = ClientKey::load_or_create(&key_file)
        .map_err(|e| CliError::Input(format!("--key `{}`: {e}", key_file.display())))?;
    eprintln!("client key {} ({})", hex(&key.public()), key_file.display());
    let listener =
        TcpListener::bind(socks).map_err(|e| CliError::Input(format!("--socks `{socks}`: {e}")))?;
    let mut cfg = ConnectConfig::new(
        &paths,
        trust_of(flags.server_key.as_deref(), flags.known_servers.as_ref())?,
    );
    cfg.insecure = flags.insecure;
    cfg.key = Some(Arc::new(key));
    let conn = connect(&cfg).map_err(|e| match e {
        GetError::Refused(_) | GetError::ServerKey { .. } => CliError::Input(format!("{url}: {e}")),
        _ => CliError::Failed(format!("{url}: {e}")),
    })?;
    if let Some(k) = conn.first_contact() {
        eprintln!("{server}: first contact, key {} recorded", hex(&k));
    }
    follow_addresses(&conn, &paths);
    println!(
        "tunnel to {server} over {} path(s); SOCKS5 on {socks}",
        paths.len()
    );
    run_front(listener, conn, stderr_log()).map_err(|e| CliError::Failed(format!("tunnel: {e}")))
}

/// Drops the paths of an address that goes away and opens them again when
/// it comes back (the host's addresses polled every second, and `drop
/// ADDR` / `add ADDR` on standard input, as `radial get` takes them).
fn follow_addresses(conn: &Connection, paths: &[PathConfig]) {
    let (tx, rx) = mpsc::channel();
    let mut watched: Vec<IpAddr> = paths.iter().map(|p| p.via.ip()).collect();
    watched.dedup();
    // The watcher runs as long as the tunnel does.
    let forever = Arc::new(AtomicBool::new(false));
    let _ = watch_addresses(watched.clone(), Duration::from_secs(1), tx.clone(), forever);
    read_commands(std::io::BufReader::new(std::io::stdin()), tx, watched);
    let (conn, paths) = (conn.clone(), paths.to_vec());
    std::thread::spawn(move || {
        // Each configured path's number while it is open.
        let mut open: Vec<Option<u16>> = (0..paths.len()).map(|i| Some(i as u16)).collect();
        for c in rx {
            for (i, p) in paths.iter().enumerate() {
                match c {
                    Control::AddressGone(ip) if p.via.ip() == ip => {
                        if let Some(n) = open[i].take() {
                            conn.drop_path(n);
                            eprintln!("tunnel: {} gone, its path closed", p.via.ip());
                        }
                    }
                    Control::AddressBack(ip) if p.via.ip() == ip && open[i].is_none() => {
                        open[i] = Some(conn.add_path(*p));
                        eprintln!("tunnel: {} back, a path opened from it", p.via.ip());
                    }
                    _ => {}
                }
            }
        }
    });
}

/// The client keys listed in `file`.
fn read_clients(file: &Path) -> Result<Vec<[u8; 32]>, CliError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        CliError::Input(format!(
            "--tunnel-clients `{}`: {e} (list the public keys `radial tunnel` prints, one per line)",
            file.display()
        ))
    })?;
    let mut keys = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        keys.push(unhex(line).ok_or_else(|| {
            CliError::Input(format!(
                "{}:{}: `{line}` is not a client key (64 hex digits)",
                file.display(),
                i + 1
            ))
        })?);
    }
    if keys.is_empty() {
        return Err(CliError::Input(format!(
            "{}: lists no client key, so no client could use the tunnel",
            file.display()
        )));
    }
    Ok(keys)
}

/// Where a server hands its stream connections, and the client keys that
/// may open them.
pub type Exits = (mpsc::Sender<Connection>, Vec<[u8; 32]>);

/// The stream connections `radial serve --tunnel` takes, and who may open
/// them: what to set in the server's options, with the thread that runs
/// each connection's exit started.
pub fn exits(flags: &ExitFlags) -> Result<Option<Exits>, CliError> {
    if !flags.tunnel {
        return Ok(None);
    }
    let file = flags
        .tunnel_clients
        .clone()
        .unwrap_or_else(|| config_dir().join("tunnel_clients"));
    let clients = read_clients(&file)?;
    let policy = if flags.tunnel_allow.is_empty() {
        DestinationPolicy::default()
    } else {
        let allow = flags
            .tunnel_allow
            .iter()
            .map(|c| {
                c.parse::<Cidr>()
                    .map_err(|e| CliError::Input(format!("--tunnel-allow `{c}`: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        DestinationPolicy::new(allow)
    };
    eprintln!(
        "tunnel: {} client key(s) from {}",
        clients.len(),
        file.display()
    );
    let policy = Arc::new(policy);
    let (tx, rx) = mpsc::channel::<Connection>();
    std::thread::spawn(move || {
        for conn in rx {
            let (policy, log) = (policy.clone(), stderr_log());
            if let Some(k) = conn.client_key() {
                eprintln!("tunnel: client {} connected", hex(&k));
            }
            std::thread::spawn(move || run_exit(conn, policy, log));
        }
    });
    Ok(Some((tx, clients)))
}
