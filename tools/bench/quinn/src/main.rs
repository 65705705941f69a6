//! A bulk file transfer over quinn with its defaults (QUIC over UDP,
//! TLS 1.3 with AES-GCM), for `tools/bench/net.sh` to put beside `radial
//! get`: the client asks on one stream, the server sends the file, the
//! client writes it and hashes it with SHA-256 as `radial get` does.
//!
//! `quinn-bench serve ADDR FILE CERT` serves FILE, writing its self-signed
//! certificate to CERT; `quinn-bench get ADDR CERT OUT` fetches it once.

use std::net::SocketAddr;
use std::sync::Arc;

use quinn::{ClientConfig, Endpoint, ServerConfig};
use sha2::{Digest, Sha256};
use std::io::Write;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("serve") => serve(args[2].parse().unwrap(), &args[3], &args[4]).await,
        Some("get") => fetch(args[2].parse().unwrap(), &args[3], &args[4]).await,
        _ => {
            eprintln!("usage: quinn-bench serve ADDR FILE CERT | get ADDR CERT OUT");
            std::process::exit(2);
        }
    }
}

async fn serve(addr: SocketAddr, file: &str, cert_out: &str) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let der = cert.cert.der().clone();
    std::fs::write(cert_out, &der).unwrap();
    let key = rustls::pki_types::PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der());
    let config = ServerConfig::with_single_cert(vec![der], key.into()).unwrap();
    let endpoint = Endpoint::server(config, addr).unwrap();
    let file = Arc::new(file.to_string());
    while let Some(incoming) = endpoint.accept().await {
        let file = file.clone();
        tokio::spawn(async move {
            let conn = incoming.await.unwrap();
            while let Ok((mut send, mut recv)) = conn.accept_bi().await {
                let _ = recv.read_to_end(64).await;
                // The file read in 1 MB chunks (plain reads: a page-cached
                // file), each handed to quinn whole.
                use std::io::Read;
                let mut f = std::fs::File::open(file.as_str()).unwrap();
                loop {
                    let mut buf = vec![0u8; 1 << 20];
                    let n = f.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    buf.truncate(n);
                    send.write_chunk(buf.into()).await.unwrap();
                }
                send.finish().unwrap();
                let _ = send.stopped().await;
            }
        });
    }
}

async fn fetch(addr: SocketAddr, cert: &str, out: &str) {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(std::fs::read(cert).unwrap()))
        .unwrap();
    let config = ClientConfig::with_root_certificates(Arc::new(roots)).unwrap();
    let mut endpoint = Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(config);
    let conn = endpoint.connect(addr, "localhost").unwrap().await.unwrap();
    let (mut send, mut recv) = conn.open_bi().await.unwrap();
    send.write_all(b"GET").await.unwrap();
    send.finish().unwrap();
    // Plain writes (as `radial get`'s writer thread does), not tokio's
    // file type, which sends every write to a thread pool.
    let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out).unwrap());
    let mut hash = Sha256::new();
    let mut bytes = 0u64;
    while let Some(chunk) = recv.read_chunk(1 << 20, true).await.unwrap() {
        hash.update(&chunk.bytes);
        file.write_all(&chunk.bytes).unwrap();
        bytes += chunk.bytes.len() as u64;
    }
    file.flush().unwrap();
    conn.close(0u32.into(), b"done");
    endpoint.wait_idle().await;
    let digest: Vec<String> = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("{bytes} bytes, SHA-256 {}", digest.concat());
}
