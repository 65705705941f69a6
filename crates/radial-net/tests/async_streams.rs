//! Streams as tokio's AsyncRead and AsyncWrite (feature `tokio`): many
//! streams of one connection, each written and read by tasks of one
//! thread, echo whole.

#![cfg(feature = "tokio")]

mod common;

use common::{file_bytes, loopback_paths, stream_echo_server};
use radial_net::stream::{connect, ConnectConfig};
use radial_net::Trust;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn tasks_on_one_thread_echo_many_streams_whole() {
    let f = stream_echo_server("async-streams", None);
    let paths = loopback_paths(f.server, 2);
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
