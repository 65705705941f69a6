//! `radial run`: one simulation.

use std::path::{Path, PathBuf};
use std::time::Instant as WallClock;

use radial_sim::metrics::{pipes_csv, series_csv};
use radial_sim::sim::CaptureError;
use radial_sim::{Scenario, Simulator};

use crate::error::{io_err, CliError};
use crate::options::parse_sets;

pub fn run(
    scenario: &Path,
    seed: Option<u64>,
    sets: &[String],
    out: &Path,
    pcap: &[String],
) -> Result<(), CliError> {
    let sc = Scenario::load(scenario)?;
    let point = sc.point_with(&parse_sets(sets)?)?;
    let seed = seed.unwrap_or(sc.seeds[0]);
    let spec = sc.build(&point, seed)?;
    let names: Vec<String> = spec.flows.iter().map(|f| f.name.clone()).collect();
    let (scenario_links, snaplen) = (spec.pcap.clone(), spec.snaplen);
    crate::error::out_dir(out)?;
    let mut sim = Simulator::new(spec);
    let captures = capture_links(&mut sim, &scenario_links, pcap, snaplen, out)?;
    let started = WallClock::now();
    let output = sim.run();
    let wall = started.elapsed().as_secs_f64();
    let summary = serde_json::to_string_pretty(&output.summary).expect("summary serialises");
    write(&out.join("summary.json"), &(summary + "\n"))?;
    write(&out.join("series.csv"), &series_csv(&output.series, &names))?;
    if !output.pipe_series.is_empty() {
        write(
            &out.join("pipes.csv"),
            &pipes_csv(&output.pipe_series, &names),
        )?;
    }
    let events = output.summary.events;
    let timing = serde_json::json!({
        "wall_s": wall,
        "events": events,
        "events_per_s": events as f64 / wall.max(1e-9),
    });
    write(&out.join("timing.json"), &(timing.to_string() + "\n"))?;
    println!("{} seed {}{}", sc.name, seed, describe_point(&point));
    print!("{}", flow_table(&output.summary.flows));
    for (c, path) in output.captures.iter().zip(&captures) {
        match &c.error {
            None => println!(
                "captured {} packets of {} in {}",
                c.packets,
                c.link,
                path.display()
            ),
            Some(e) => return Err(io_err(path, std::io::Error::new(e.kind(), e.to_string()))),
        }
    }
    println!(
        "{} events in {:.3} s wall ({:.2} M events/s); wrote {}",
        events,
        wall,
        events as f64 / wall.max(1e-9) / 1e6,
        out.display()
    );
    Ok(())
}

/// Opens OUT/LINK.pcap for each link the scenario's `[trace]` or `--pcap`
/// names (once each) and starts its capture; the files, in that order.
fn capture_links(
    sim: &mut Simulator,
    scenario: &[String],
    flags: &[String],
    snaplen: u32,
    out: &Path,
) -> Result<Vec<PathBuf>, CliError> {
    let mut names: Vec<&String> = Vec::new();
    for n in scenario.iter().chain(flags) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let mut files = Vec::new();
    for name in names {
        let file: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = out.join(format!("{file}.pcap"));
        let f = std::fs::File::create(&path).map_err(|e| io_err(&path, e))?;
        sim.capture(name, Box::new(std::io::BufWriter::new(f)), snaplen)
            .map_err(|e| match e {
                CaptureError::UnknownLink(..) => {
                    let _ = std::fs::remove_file(&path);
                    CliError::Input(format!("--pcap: {e}"))
                }
                CaptureError::Io(e) => io_err(&path, e),
            })?;
        files.push(path);
    }
    Ok(files)
}

pub fn describe_point(p: &radial_sim::scenario::Point) -> String {
    p.values
        .iter()
        .map(|(k, v)| format!(" {k}={v}"))
        .collect::<String>()
}

pub fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| io_err(path, e))
}

/// The terminal's table of flows. Goodput is over the scenario's duration;
/// a finite transfer also shows when it completed and its goodput over its
/// own time (from its start to its last byte).
fn flow_table(flows: &[radial_sim::metrics::FlowReport]) -> String {
    let mut t = format!(
        "{:<10} {:<12} {:>12} {:>8} {:>13} {:>10} {:>8}\n",
        "flow", "protocol", "goodput Mb/s", "done s", "transfer Mb/s", "rexmits", "RTOs"
    );
    for f in flows {
        let (done, transfer) = match f.completion_time_s {
            Some(c) if c > 0.0 => (
                format!("{c:.3}"),
                format!("{:.4}", f.bytes_delivered as f64 * 8.0 / c / 1e6),
            ),
            _ => ("—".into(), "—".into()),
        };
        t.push_str(&format!(
            "{:<10} {:<12} {:>12.4} {:>8} {:>13} {:>10} {:>8}\n",
            f.name, f.protocol, f.goodput_mbps, done, transfer, f.retransmits, f.timeouts
        ));
    }
    t
}
