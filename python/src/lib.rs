//! The native half of the `radial` Python package: runs and sweeps of
//! Radial's simulator, answered as JSON and CSV text that the Python half
//! (`radial/__init__.py`) turns into dicts and pandas DataFrames. The GIL is
//! released while simulations run.

use std::io::Write;
use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use radial_sim::batch::{results_csv, run_tasks, tasks};
use radial_sim::metrics::{pipes_csv, series_csv};
use radial_sim::{Scenario, ScenarioError as SimError, Simulator};

// Named as Python shows it: `radial.ScenarioError`.
create_exception!(
    radial,
    ScenarioError,
    PyValueError,
    "A scenario file, parameter or capture that Radial cannot run: the message names the file, line and key."
);

/// A run's outputs: summary JSON, series CSV, pipes CSV, and the packets
/// written per captured link.
type RunTexts = (String, String, String, Vec<(String, u64)>);

/// A scenario's name, swept parameters with their values as text, seeds.
type Description = (String, Vec<(String, String)>, Vec<u64>);

fn scenario_error(e: SimError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// The scenario of `source`: a file's path, or TOML text (anything with a
/// newline in it).
fn load(source: &str) -> PyResult<Scenario> {
    if source.contains('\n') {
        return Scenario::parse("<text>", source).map_err(scenario_error);
    }
    if !Path::new(source).is_file() {
        return Err(PyOSError::new_err(format!(
            "{source}: no such scenario file (pass a path, or the TOML text itself)"
        )));
    }
    Scenario::load(Path::new(source)).map_err(scenario_error)
}

/// One run: (summary JSON, series CSV, pipes CSV, capture reports as
/// (link, packets)). `pcap` maps link names to files to write.
#[pyfunction]
#[pyo3(signature = (source, seed=None, sets=Vec::new(), pcap=Vec::new()))]
fn run(
    py: Python<'_>,
    source: &str,
    seed: Option<u64>,
    sets: Vec<(String, String)>,
    pcap: Vec<(String, String)>,
) -> PyResult<RunTexts> {
    let sc = load(source)?;
    let point = sc.point_with(&sets).map_err(scenario_error)?;
    let seed = seed.unwrap_or(sc.seeds[0]);
    let spec = sc.build(&point, seed).map_err(scenario_error)?;
    let names: Vec<String> = spec.flows.iter().map(|f| f.name.clone()).collect();
    let snaplen = spec.snaplen;
    for (link, _) in &pcap {
        if !spec.links.iter().any(|l| &l.name == link) {
            let known: Vec<&str> = spec.links.iter().map(|l| l.name.as_str()).collect();
            return Err(ScenarioError::new_err(format!(
                "pcap: no link named `{link}` (the scenario's links: {})",
                known.join(", ")
            )));
        }
    }
    let mut files: Vec<(String, Box<dyn Write + Send>)> = Vec::new();
    for (link, file) in &pcap {
        let f =
            std::fs::File::create(file).map_err(|e| PyOSError::new_err(format!("{file}: {e}")))?;
        files.push((link.clone(), Box::new(std::io::BufWriter::new(f))));
    }
    // The simulator is built on this thread's stack without the GIL.
    let out = py.detach(move || {
        let mut sim = Simulator::new(spec);
        for (link, w) in files {
            sim.capture(&link, w, snaplen).map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(sim.run())
    });
    let out = out.map_err(|e| PyOSError::new_err(format!("pcap: {e}")))?;
    let mut captures = Vec::new();
    for c in &out.captures {
        if let Some(e) = &c.error {
            return Err(PyOSError::new_err(format!("capture of {}: {e}", c.link)));
        }
        captures.push((c.link.clone(), c.packets));
    }
    let summary = serde_json::to_string(&out.summary).expect("summary serialises");
    Ok((
        summary,
        series_csv(&out.series, &names),
        pipes_csv(&out.pipe_series, &names),
        captures,
    ))
}

/// Every point and seed of a scenario on `jobs` threads: results.csv's text.
/// `params` replaces swept parameters' value lists, `seeds` the seed list.
#[pyfunction]
#[pyo3(signature = (source, jobs=None, params=Vec::new(), seeds=None))]
fn sweep(
    py: Python<'_>,
    source: &str,
    jobs: Option<usize>,
    params: Vec<(String, Vec<String>)>,
    seeds: Option<Vec<u64>>,
) -> PyResult<String> {
    let mut sc = load(source)?;
    for (name, values) in &params {
        sc.sweep_over(name, values).map_err(scenario_error)?;
    }
    if let Some(seeds) = seeds {
        if seeds.is_empty() {
            return Err(PyValueError::new_err("seeds: an empty list"));
        }
        sc.seeds = seeds;
    }
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let results = py
        .detach(|| run_tasks(&sc, tasks(&sc), jobs.max(1), &|| {}))
        .map_err(scenario_error)?;
    Ok(results_csv(&sc, &results))
}

/// The swept parameters of a scenario and their values (each list as JSON,
/// so numbers stay numbers), and its seeds.
#[pyfunction]
fn describe(source: &str) -> PyResult<Description> {
    let sc = load(source)?;
    let params = sc
        .params
        .iter()
        .map(|(n, vs)| {
            let json = serde_json::to_string(vs).unwrap_or_else(|_| "[]".into());
            (n.clone(), json)
        })
        .collect();
    Ok((sc.name.clone(), params, sc.seeds.clone()))
}

/// Each protocol's colour in Radial's figures, as `#rrggbb`.
#[pyfunction]
fn colours() -> Vec<(String, String)> {
    radial_sim::metrics::PROTOCOL_COLOURS
        .iter()
        .map(|(p, [r, g, b])| (p.to_string(), format!("#{r:02x}{g:02x}{b:02x}")))
        .collect()
}

#[pymodule]
fn _radial(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(colours, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    Ok(())
}
