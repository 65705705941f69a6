//! A capture written by `radial run --pcap` opened by tshark with Radial's
//! dissector (`tools/wireshark/radial.lua`): every packet of the trace
//! example decodes, field by field, to what Radial's own decoders read from
//! the same bytes.
//!
//! Needs `tshark` (Debian's package; `.ci/run` installs it and sets
//! `RADIAL_REQUIRE_TSHARK=1`, which makes its absence a failure). Without
//! it and without that variable the test says so and checks nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use radial_core::wire::ptcp::PtcpHeader;
use radial_core::wire::rcp::RcpHeader;
use radial_core::wire::tcp::TcpHeader;
use radial_sim::pcap;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tshark_present() -> bool {
    let found = Command::new("tshark").arg("-v").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("RADIAL_REQUIRE_TSHARK").is_none(),
            "tshark is required (RADIAL_REQUIRE_TSHARK is set) but not installed"
        );
        eprintln!("tshark is not installed: the dissector test checks nothing here");
    }
    found
}

/// What one packet decodes to, as text, in the order of [`FIELDS`].
const FIELDS: [&str; 14] = [
    "radial.type",
    "radial.rcp.flags",
    "radial.rcp.conn",
    "radial.rcp.seq",
    "radial.rcp.deq",
    "radial.rcp.id",
    "radial.rcp.len",
    "radial.tcp.flags",
    "radial.tcp.seq",
    "radial.tcp.ack",
    "radial.tcp.window",
    "radial.tcp.len",
    "radial.ptcp.pseq",
    "radial.ptcp.pack",
];

/// The fields Radial's decoders read from `d`, as tshark prints them.
fn expected(d: &[u8]) -> Vec<String> {
    let mut row = vec![String::new(); FIELDS.len()];
    let tcp = |d: &[u8], row: &mut Vec<String>| {
        let (h, payload) = TcpHeader::parse(d).unwrap();
        row[7] = format!("0x{:02x}", d[1]);
        row[8] = h.seq.0.to_string();
        row[9] = h.ack.0.to_string();
        row[10] = h.window.to_string();
        row[11] = payload.len().to_string();
    };
    let t = d[0] & 0x0f;
    row[0] = t.to_string();
    match t {
        0 => tcp(d, &mut row),
        1 => {
            let (h, payload) = RcpHeader::parse(d).unwrap();
            row[1] = format!("0x{:02x}", d[1]);
            row[2] = format!("0x{:08x}", h.conn_id);
            row[3] = h.seq.0.to_string();
            row[4] = h.deq.0.to_string();
            row[5] = h.id.to_string();
            row[6] = payload.len().to_string();
        }
        7 => {
            let (h, inner) = PtcpHeader::parse(d).unwrap();
            row[12] = h.pseq.0.to_string();
            row[13] = h.pack.0.to_string();
            if d.len() > 20 {
                tcp(inner, &mut row);
            }
        }
        other => panic!("type {other} in a simulator capture"),
    }
    row
}

#[test]
fn tshark_with_the_dissector_reads_what_radial_wrote() {
    if !tshark_present() {
        return;
    }
    let out = std::env::temp_dir().join(format!("radial-wireshark-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let scenario = repo().join("scenarios/trace/wlan-cellular.toml");
    let run = Command::new(env!("CARGO_BIN_EXE_radial"))
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let dissector = repo().join("tools/wireshark/radial.lua");
    let mut types_seen = std::collections::BTreeSet::new();
    for link in ["wlan", "cell"] {
        let file = out.join(format!("{link}.pcap"));
        let records = pcap::read(&std::fs::read(&file).unwrap()).unwrap();
        let mut cmd = Command::new("tshark");
        cmd.arg("-n")
            .arg("-X")
            .arg(format!("lua_script:{}", dissector.display()))
            .arg("-r")
            .arg(&file)
            .args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]);
        for f in FIELDS {
            cmd.args(["-e", f]);
        }
        let shown = cmd.output().unwrap();
        assert!(shown.status.success(), "{shown:?}");
        let text = String::from_utf8(shown.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), records.len(), "{link}: one line per packet");
        for (i, (line, r)) in lines.iter().zip(&records).enumerate() {
            let got: Vec<String> = line.split('\t').map(|s| s.to_lowercase()).collect();
            let want = expected(&r.datagram);
            assert_eq!(got, want, "{link} packet {}", i + 1);
            types_seen.insert(want[0].clone());
        }
    }
    // TCP-SACK, RCP and pTCP all crossed the links.
    assert_eq!(types_seen.into_iter().collect::<Vec<_>>(), ["0", "1", "7"]);
    let _ = std::fs::remove_dir_all(&out);
}
