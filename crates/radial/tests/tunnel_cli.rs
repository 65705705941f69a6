//! `radial tunnel` and `radial serve --tunnel` as a user meets them: a
//! SOCKS5 client reaches a TCP server through both, and bad input exits 2
//! naming what is wrong.

use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The program, its configuration directory in `dir`.
fn radial_cmd(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_radial"));
    c.env("XDG_CONFIG_HOME", dir.join("config"));
    c
}

fn radial(dir: &Path, args: &[&str]) -> Output {
    radial_cmd(dir).args(args).output().expect("radial runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("radial-tunnel-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("root")).expect("temp dir");
    d
}

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `args` and returns it with the first line it prints.
fn start(dir: &Path, args: &[&str]) -> (Running, String) {
    let mut child = radial_cmd(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("radial starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Running(child), line)
}

#[test]
fn a_socks_client_reaches_a_tcp_server_through_tunnel_and_serve() {
    let dir = temp_dir("e2e");
    let key = radial_net::crypto::ClientKey::load_or_create(&dir.join("client.key")).unwrap();
    let clients = dir.join("clients");
    std::fs::write(
        &clients,
        format!(
            "# the test's client\n{}\n",
            radial_net::crypto::hex(&key.public())
        ),
    )
    .unwrap();
    let (_server, line) = start(
        &dir,
        &[
            "serve",
            "--root",
            dir.join("root").to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--tunnel",
            "--tunnel-clients",
            clients.to_str().unwrap(),
            "--tunnel-allow",
            "127.0.0.0/8",
        ],
    );
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    let socks = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (_tunnel, line) = start(
        &dir,
        &[
            "tunnel",
            &format!("radial://{addr}"),
            "--socks",
            &socks.to_string(),
            "--key",
            dir.join("client.key").to_str().unwrap(),
            "--via",
            "127.0.0.1",
            "--via",
            "127.0.0.2",
        ],
    );
    assert!(line.starts_with("tunnel to"), "{line}");
    // A TCP echo server, reached by name through the tunnel.
    let echo = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = echo.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in echo.incoming() {
            let mut c = c.unwrap();
            std::thread::spawn(move || {
                let mut back = c.try_clone().unwrap();
                let _ = std::io::copy(&mut c, &mut back);
                let _ = back.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    let mut c = TcpStream::connect(socks).unwrap();
    c.write_all(&[5, 1, 0]).unwrap();
    let mut sel = [0u8; 2];
    c.read_exact(&mut sel).unwrap();
    let mut req = vec![5, 1, 0, 3, 9];
    req.extend_from_slice(b"localhost");
    req.extend_from_slice(&port.to_be_bytes());
    c.write_all(&req).unwrap();
    let mut reply = [0u8; 10];
    c.read_exact(&mut reply).unwrap();
    assert_eq!(reply[1], 0, "succeeded");
    let data: Vec<u8> = (0..500_000u32).map(|i| (i * 13 + i / 509) as u8).collect();
    let mut w = c.try_clone().unwrap();
    let sent = data.clone();
    let writer = std::thread::spawn(move || {
        w.write_all(&sent).unwrap();
        w.shutdown(std::net::Shutdown::Write).unwrap();
    });
    let mut back = Vec::new();
    c.read_to_end(&mut back).unwrap();
    writer.join().unwrap();
    assert!(
        back == data,
        "{} of {} bytes came back",
        back.len(),
        data.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_tunnel_input_exits_2_and_names_it() {
    let dir = temp_dir("bad");
    let root = dir.join("root");
    let root = root.to_str().unwrap();
    let bad_list = dir.join("bad_clients");
    std::fs::write(&bad_list, "# ok\n\nnot-a-key\n").unwrap();
    let empty = dir.join("empty_clients");
    std::fs::write(&empty, "# nobody\n").unwrap();
    // `radial serve --tunnel` with this list of clients.
    let serve_with = |clients| {
        vec![
            "serve",
            "--root",
            root,
            "--listen",
            "127.0.0.1:0",
            "--tunnel",
            "--tunnel-clients",
            clients,
        ]
    };
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["tunnel", "radial://127.0.0.1:1", "--socks", "0.0.0.0:1080"],
            "not a loopback address".into(),
        ),
        (
            vec!["tunnel", "http://127.0.0.1:1"],
            "not a radial://".into(),
        ),
        (
            vec!["tunnel", "radial://127.0.0.1:1", "--socks", "nowhere"],
            "--socks `nowhere`".into(),
        ),
        (
            serve_with("/no/such/file"),
            "--tunnel-clients `/no/such/file`".into(),
        ),
        (
            serve_with(bad_list.to_str().unwrap()),
            format!("{}:3:", bad_list.display()),
        ),
        (
            serve_with(empty.to_str().unwrap()),
            "lists no client key".into(),
        ),
    ];
    for (args, says) in cases {
        let o = radial(&dir, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&says), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
