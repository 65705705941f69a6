//! `radial run`: one simulation.

use std::path::Path;
use std::time::Instant as WallClock;

use radial_sim::metrics::{pipes_csv, series_csv};
use radial_sim::{Scenario, Simulator};

use crate::cli::{io_err, parse_sets, CliError};

pub fn run(
    scenario: &Path,
    seed: Option<u64>,
    sets: &[String],
    out: &Path,
) -> Result<(), CliError> {
    let sc = Scenario::load(scenario)?;
    let point = sc.point_with(&parse_sets(sets)?)?;
    let seed = seed.unwrap_or(sc.seeds[0]);
    let spec = sc.build(&point, seed)?;
    let names: Vec<String> = spec.flows.iter().map(|f| f.name.clone()).collect();
    let started = WallClock::now();
    let output = Simulator::new(spec).run();
    let wall = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
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
    println!(
        "{:<10} {:<12} {:>12} {:>10} {:>8}",
        "flow", "protocol", "goodput Mb/s", "rexmits", "RTOs"
    );
    for f in &output.summary.flows {
        println!(
            "{:<10} {:<12} {:>12.4} {:>10} {:>8}",
            f.name, f.protocol, f.goodput_mbps, f.retransmits, f.timeouts
        );
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

pub fn describe_point(p: &radial_sim::scenario::Point) -> String {
    p.values
        .iter()
        .map(|(k, v)| format!(" {k}={v}"))
        .collect::<String>()
}

pub fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| io_err(path, e))
}
