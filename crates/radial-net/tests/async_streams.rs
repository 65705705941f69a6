//! Streams as tokio's AsyncRead and AsyncWrite (feature `tokio`): many
//! streams of one connection, each written and read by tasks of one
//! thread, echo whole.

#![cfg(feature = "tokio")]

mod common;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::thread;

use common::{file_bytes, serve_opts};
use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::{PathConfig, ServerOptions, Trust};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn tasks_on_one_thread_echo_many_streams_whole() {
    let (tx, rx) = mpsc::channel::<Connection>();
    thread::spawn(move || {
        for conn in rx {
            thread::spawn(move || {
                while let Ok(s) = conn.accept_stream() {
                    thread::spawn(move || {
                        let (mut r, mut w) = s.split();
                        let mut buf = vec![0u8; 16 * 1024];
                        while let Ok(n @ 1..) = Read::read(&mut r, &mut buf) {
                            if Write::write_all(&mut w, &buf[..n]).is_err() {
                                return;
                            }
                        }
                        let _ = w.finish();
                    });
                }
            });
        }
    });
    let f = serve_opts(
        "async-streams",
        1,
        ServerOptions {
            streams: Some(tx),
            ..ServerOptions::default()
        },
    );
    let paths = [
        PathConfig {
            via: "127.0.0.21:0".parse().unwrap(),
            to: f.server,
        },
        PathConfig {
            via: "127.0.0.22:0".parse().unwrap(),
            to: f.server,
        },
    ];
    let conn = connect(&ConnectConfig::new(&paths, Trust::Any)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut tasks = Vec::new();
        for k in 0..6usize {
            let (mut r, mut w) = conn.open_stream().unwrap().split();
            let data = file_bytes(500_000 + k);
            let sent = data.clone();
            let writer = async move {
                AsyncWriteExt::write_all(&mut w, &sent).await.unwrap();
                w.shutdown().await.unwrap();
            };
            let reader = async move {
                let mut back = Vec::new();
                AsyncReadExt::read_to_end(&mut r, &mut back).await.unwrap();
                back
            };
            // Every stream's task at once, on this one thread.
            tasks.push(tokio::spawn(async move {
                let ((), back) = tokio::join!(writer, reader);
                assert!(
                    back == data,
                    "stream {k}: {} of {} bytes",
                    back.len(),
                    data.len()
                );
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}
