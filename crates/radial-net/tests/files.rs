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

#[test]
fn a_same_size_edit_with_its_old_modification_time_restored_is_hashed_again() {
    // `cp -p` or `touch -r` put the old mtime back on new bytes of the
    // same size: the file's status-change time still tells.
    let f = serve("mtime", 100_000);
    let cfg = config(&f, "data.bin");
    get(&cfg, None, |_| {}).unwrap();
    let mtime = std::fs::metadata(f.file()).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let mut data = std::fs::read(f.file()).unwrap();
    data.reverse();
    std::fs::write(f.file(), &data).unwrap();
    std::fs::File::options()
        .write(true)
        .open(f.file())
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(
        std::fs::metadata(f.file()).unwrap().modified().unwrap(),
        mtime
    );
    std::fs::remove_file(&cfg.out).unwrap();
    get(&cfg, None, |_| {}).unwrap();
    assert_eq!(std::fs::read(&cfg.out).unwrap(), data);
}

#[test]
fn a_part_file_planted_as_a_link_is_refused_and_its_target_untouched() {
    // A shared output directory where someone planted OUT.part as a link
    // to a file of the victim's: the download refuses to write through it,
    // and OUT never appears.
    let f = serve("plant", 100_000);
    let cfg = config(&f, "data.bin");
    let victim = f.dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let part = radial_net::client::part_path(&cfg.out);
    symlink(&victim, &part).unwrap();
    for resume in [false, true] {
        let mut cfg = cfg.clone();
        cfg.resume = resume;
        let e = get(&cfg, None, |_| {}).unwrap_err();
        assert!(matches!(e, GetError::UnsafePart { .. }), "{e}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(!cfg.out.exists());
    assert!(std::fs::symlink_metadata(&part)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_file_cut_short_mid_transfer_ends_the_download_with_a_clear_error() {
    // The served file is truncated while a download runs through a 20
    // Mbit/s path: the server tells the client, which stops at once with
    // an error that says so (instead of waiting for progress that cannot
    // come).
    let f = serve("truncate", 8_000_000);
    let emu = radial_net::Emulator::start(
        f.server,
        &[("127.0.0.31:0".parse().unwrap(), common::paths::path(20, 5))],
        3,
    )
    .unwrap();
    let mut cfg = config(&f, "data.bin");
    cfg.paths[0].to = emu.front(0);
    let mut cut = None;
    let e = get(&cfg, None, |p| {
        if p.delivered > 0 && cut.is_none() {
            std::fs::File::options()
                .write(true)
                .open(f.file())
                .unwrap()
                .set_len(100_000)
                .unwrap();
            cut = Some(Instant::now());
        }
    })
    .unwrap_err();
    assert!(matches!(e, GetError::Changed), "{e}");
    let after = cut.expect("cut during the transfer").elapsed();
    assert!(after < Duration::from_secs(20), "told after {after:?}");
    emu.stop().unwrap();
    assert!(f.stats().file_errors >= 1);
}

#[test]
fn one_client_asking_for_many_large_files_cannot_keep_another_from_being_hashed() {
    // A client asks for seventy large files nobody has asked for before
    // (sparse, 4 GB each: minutes of hashing), more than the hashing queue
    // holds. Another client's first GET of a small new file is hashed in
    // the meantime and served.
    let f = serve("hashfair", 1000);
    let root = f.dir.join("root");
    let mut busy = 0;
    for i in 0..70 {
        let name = format!("big{i}.bin");
        std::fs::File::create(root.join(&name))
            .unwrap()
            .set_len(4 << 30)
            .unwrap();
        // One connection per file (one file per connection).
        let mut c = Raw::from("127.0.8.1", f.server);
        c.handshake();
        if c.ask(100 + i, &name) == Some(ErrorCode::Full) {
            busy += 1;
        }
    }
    assert!(busy > 0, "the greedy client was held to its share");
    std::fs::write(root.join("small.bin"), b"a small new file").unwrap();
    let cfg = config(&f, "small.bin");
    let s = get(&cfg, None, |_| {}).unwrap();
    assert_eq!(s.bytes, 16);
    assert_eq!(std::fs::read(&cfg.out).unwrap(), b"a small new file");
}
