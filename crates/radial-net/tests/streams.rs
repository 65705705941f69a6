//! Stream connections over real sockets on loopback: many streams echo
//! whole both ways over two paths, through an emulated path lost midway,
//! and a server that takes no streams refuses them.

mod common;

use std::io::{Read, Write};
use std::sync::{mpsc, Arc};
use std::thread;

use common::paths::{path, two_paths};
use common::{file_bytes, loopback_paths, serve_opts, stream_echo_server, Fixture};
use radial_net::crypto::ClientKey;
use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::{EmuCommand, GetError, PathConfig, ServerOptions, Trust};

/// A server that echoes every stream of every stream connection.
fn echo_server(name: &str) -> Fixture {
    stream_echo_server(name, None)
}

/// Sends `len` bytes on each of `n` streams at once and checks each comes
/// back whole.
fn echo_streams(conn: &Connection, n: usize, len: usize) {
    let handles: Vec<_> = (0..n)
        .map(|k| {
            let (mut r, mut w) = conn.open_stream().unwrap().split();
            thread::spawn(move || {
                let mut data = file_bytes(len + k);
                data.drain(..k);
                let sent = data.clone();
                let writer = thread::spawn(move || {
                    w.write_all(&sent).unwrap();
                    w.finish().unwrap();
                });
                let mut back = Vec::new();
                r.read_to_end(&mut back).unwrap();
                writer.join().unwrap();
                assert_eq!(back.len(), data.len(), "stream {k}: length");
                assert!(back == data, "stream {k}: bytes differ");
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn streams_echo_whole_over_two_loopback_paths() {
    let f = echo_server("streams-echo");
    let paths = loopback_paths(f.server, 2);
    let conn = connect(&ConnectConfig::new(&paths, Trust::Any)).unwrap();
    echo_streams(&conn, 8, 2_000_000);
    assert!(conn.received() >= 16_000_000);
    assert_eq!(conn.ended(), None);
}

#[test]
fn streams_echo_whole_in_large_segments_both_ways() {
    let f = echo_server("streams-large-segments");
    let paths = loopback_paths(f.server, 2);
    let mut cfg = ConnectConfig::new(&paths, Trust::Any);
    cfg.segment = radial_net::config::LOOPBACK_SEGMENT;
    let conn = connect(&cfg).unwrap();
    // Lengths that end mid-segment, on eight streams at once.
    echo_streams(&conn, 8, 1_000_003);
    assert!(conn.received() >= 8_000_024);
    assert_eq!(conn.ended(), None);
    drop(conn);
    let stats = f.stats();
    let per = stats.bytes_sent / stats.data_datagrams.max(1);
    assert!(
        per > 4 * radial_net::config::MSS,
        "{per} bytes per datagram"
    );
}

#[test]
fn streams_echo_whole_through_a_path_lost_midway() {
    let f = echo_server("streams-lost");
    let (emu, get) = two_paths(&f, path(20, 10), path(20, 30));
    let conn = connect(&ConnectConfig::new(&get.paths, Trust::Any)).unwrap();
    let watcher = {
        let conn = conn.clone();
        thread::spawn(move || {
            // Path 0's link goes once a quarter of the bytes came back.
            while conn.received() < 2_000_000 {
                thread::sleep(std::time::Duration::from_millis(5));
            }
            emu.command(EmuCommand::SetUp(0, false));
            emu
        })
    };
    echo_streams(&conn, 4, 2_000_000);
    let emu = watcher.join().unwrap();
    emu.stop().expect("the emulator ran to the end");
}

#[test]
fn a_server_that_takes_no_streams_refuses_an_open() {
    let f = serve_opts("streams-refused", 1, ServerOptions::default());
    let paths = [PathConfig {
        via: "127.0.0.1:0".parse().unwrap(),
        to: f.server,
    }];
    match connect(&ConnectConfig::new(&paths, Trust::Any)) {
        Err(GetError::Refused(m)) => assert!(m.contains("no stream"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_server_that_lists_its_clients_admits_those_only() {
    let listed = Arc::new(ClientKey::ephemeral());
    let f = stream_echo_server("streams-listed", Some(vec![listed.public()]));
    let paths = [PathConfig {
        via: "127.0.0.1:0".parse().unwrap(),
        to: f.server,
    }];
    let with = |key: Option<Arc<ClientKey>>| {
        let mut cfg = ConnectConfig::new(&paths, Trust::Any);
        cfg.key = key;
        connect(&cfg)
    };
    let refusal = |r: Result<Connection, GetError>| match r {
        Err(GetError::Refused(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(refusal(with(None)).contains("listed clients only"));
    let stranger = Arc::new(ClientKey::ephemeral());
    assert!(refusal(with(Some(stranger))).contains("is not listed"));
    let conn = with(Some(listed)).unwrap();
    echo_streams(&conn, 2, 100_000);
}

#[test]
fn a_connection_the_host_closes_ends_at_both_ends() {
    let (tx, rx) = mpsc::channel::<Connection>();
    let (ended_tx, ended_rx) = mpsc::channel();
    thread::spawn(move || {
        for conn in rx {
            let ended_tx = ended_tx.clone();
            thread::spawn(move || {
                let why = loop {
                    match conn.accept_stream() {
                        Ok(s) => {
                            thread::spawn(move || {
                                let (mut r, mut w) = s.split();
                                let _ = std::io::copy(&mut r, &mut w);
                                let _ = w.finish();
                            });
                        }
                        Err(e) => break e,
                    }
                };
                let _ = ended_tx.send(why);
            });
        }
    });
    let f = serve_opts(
        "streams-close",
        1,
        ServerOptions {
            streams: Some(tx),
            ..ServerOptions::default()
        },
    );
    let paths = [PathConfig {
        via: "127.0.0.1:0".parse().unwrap(),
        to: f.server,
    }];
    let conn = connect(&ConnectConfig::new(&paths, Trust::Any)).unwrap();
    echo_streams(&conn, 2, 50_000);
    conn.close();
    // The server's application learns it: its accept ends.
    let why = ended_rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the server's accept ended");
    assert_eq!(why, radial_net::stream::ConnectionError::Closed);
    // And the host's connection ends once both sides closed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while conn.ended().is_none() && std::time::Instant::now() < deadline {
        thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        conn.ended(),
        Some(radial_net::stream::ConnectionError::Closed)
    );
    assert!(
        conn.open_stream().is_err(),
        "no stream opens on a closed connection"
    );
}

#[test]
fn streams_echo_whole_as_a_path_is_added_and_the_first_dropped() {
    let f = echo_server("streams-moved");
    let (emu, get) = two_paths(&f, path(20, 10), path(20, 30));
    // One path at first; the second comes up, then the first goes away.
    let conn = connect(&ConnectConfig::new(&get.paths[..1], Trust::Any)).unwrap();
    let mover = {
        let (conn, second) = (conn.clone(), get.paths[1]);
        thread::spawn(move || {
            let wait_for = |bytes| {
                while conn.received() < bytes && conn.ended().is_none() {
                    thread::sleep(std::time::Duration::from_millis(5));
                }
            };
            wait_for(1_000_000);
            assert_eq!(conn.add_path(second), 1);
            wait_for(3_000_000);
            emu.command(EmuCommand::SetUp(0, false));
            conn.drop_path(0);
            emu
        })
    };
    echo_streams(&conn, 4, 2_000_000);
    let emu = mover.join().unwrap();
    emu.stop().expect("the emulator ran to the end");
}
