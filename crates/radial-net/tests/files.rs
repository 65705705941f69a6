//! What the server serves, and what the client leaves on disk: only files
//! beneath the root, each with the hash of its current contents, hashed
//! without stalling the server; downloads stand under their name only once
//! verified.

use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use radial_net::session::ErrorCode;
use radial_net::{get, hash_file, GetConfig, GetError};

mod common;
use common::raw::Raw;
use common::{serve, Fixture};

fn config(f: &Fixture, path: &str) -> GetConfig {
    GetConfig::new(
        f.server,
        path,
        &["127.0.0.1:0".parse().unwrap()],
        f.dir.join("out.bin"),
    )
}

#[test]
fn links_out_of_the_root_are_not_served() {
    let f = serve("links", 1000);
    let root = f.dir.join("root");
    std::fs::write(f.dir.join("secret.txt"), b"not yours").unwrap();
    symlink("/etc", root.join("linkdir")).unwrap();
    symlink("/proc/self/environ", root.join("environ")).unwrap();
    symlink("../secret.txt", root.join("secret")).unwrap();
    symlink("data.bin", root.join("alias.bin")).unwrap();
    for path in ["linkdir/passwd", "environ", "secret"] {
        let e = get(&config(&f, path), None, |_| {}).unwrap_err();
        assert!(
            matches!(&e, GetError::Refused(m) if m.contains("not below the root")),
            "{path}: {e}"
        );
    }
    // A link that stays inside the root is served.
    let cfg = config(&f, "alias.bin");
    get(&cfg, None, |_| {}).unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
}

#[test]
fn a_file_rewritten_in_place_is_served_with_its_new_hash() {
    let f = serve("rewrite", 100_000);
    let cfg = config(&f, "data.bin");
    get(&cfg, None, |_| {}).unwrap();
    // Same size, other bytes, a later modification time.
    std::thread::sleep(Duration::from_millis(20));
    let mut data = std::fs::read(f.file()).unwrap();
    for b in &mut data {
        *b = b.wrapping_add(1);
    }
    std::fs::write(f.file(), &data).unwrap();
    std::fs::remove_file(&cfg.out).unwrap();
    get(&cfg, None, |_| {}).unwrap();
    assert_eq!(std::fs::read(&cfg.out).unwrap(), data);
}

#[test]
fn a_large_file_is_hashed_aside_while_others_are_served() {
    // A 4 GB sparse file takes seconds to hash; meanwhile the server
    // answers GETs for it ("preparing") and serves another file in full.
    let f = serve("aside", 200_000);
    let cfg = config(&f, "data.bin");
    get(&cfg, None, |_| {}).unwrap();
    let big = std::fs::File::create(f.dir.join("root/big.bin")).unwrap();
    big.set_len(4 << 30).unwrap();
    let mut raw = Raw::new(f.server);
    raw.handshake();
    let ask = |raw: &mut Raw| raw.ask(77, "big.bin");
    assert_eq!(ask(&mut raw), Some(ErrorCode::Preparing));
    let t = Instant::now();
    std::fs::remove_file(&cfg.out).unwrap();
    get(&cfg, None, |_| {}).unwrap();
    let small = t.elapsed();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    // Still hashing the big one: the small transfer did not wait for it.
    assert_eq!(
        ask(&mut raw),
        Some(ErrorCode::Preparing),
        "the small transfer took {small:?}"
    );
}

#[test]
fn a_download_stands_under_its_name_only_once_verified() {
    let f = serve("part", 8_000_000);
    let cfg = config(&f, "data.bin");
    let part = radial_net::client::part_path(&cfg.out);
    // Progress is reported while the transfer runs and once at its end,
    // before the SHA-256 is checked.
    let mut reports = 0;
    get(&cfg, None, |_| {
        assert!(
            !cfg.out.exists(),
            "the final name appears only when verified"
        );
        assert!(part.exists());
        reports += 1;
    })
    .unwrap();
    assert!(reports > 0);
    assert!(!part.exists());
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
}

#[test]
fn a_partial_download_resumes_asking_only_for_what_it_lacks() {
    let size = 8_000_000;
    let f = serve("resume", size);
    let mut cfg = config(&f, "data.bin");
    cfg.resume = true;
    // The first 3 MB of an earlier attempt.
    let data = std::fs::read(f.file()).unwrap();
    let part = radial_net::client::part_path(&cfg.out);
    std::fs::write(&part, &data[..3_000_000]).unwrap();
    let s = get(&cfg, None, |_| {}).unwrap();
    assert_eq!(s.resumed_from, 3_000_000);
    assert_eq!(std::fs::read(&cfg.out).unwrap(), data);
    assert!(!part.exists());
    let stats = f.stats();
    assert!(
        stats.first_bytes_sent <= (size - 3_000_000) as u64,
        "the server sent {} new bytes for the {} lacking",
        stats.first_bytes_sent,
        size - 3_000_000
    );
}

#[test]
fn a_partial_download_of_another_file_is_caught_and_thrown_away() {
    let f = serve("resumebad", 1_000_000);
    let mut cfg = config(&f, "data.bin");
    cfg.resume = true;
    let part = radial_net::client::part_path(&cfg.out);
    std::fs::write(&part, vec![0xAA; 400_000]).unwrap();
    let e = get(&cfg, None, |_| {}).unwrap_err();
    assert!(matches!(e, GetError::Corrupt), "{e}");
    assert!(!part.exists() && !cfg.out.exists());
    // The next attempt starts afresh and succeeds.
    get(&cfg, None, |_| {}).unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
}
