//! What the random-scenario property tests share: running a generated
//! scenario, and how many cases with which seed.

#![allow(dead_code)]

use radial_core::r2cp::Rules;
use radial_sim::metrics::FlowReport;
use radial_sim::spec::{FlowProtocol, RunSpec};
use radial_sim::{Scenario, Simulator};

/// Runs the scenario `text` with `seed` and returns its first flow's report.
pub fn first_flow(name: &str, text: &str, seed: u64) -> FlowReport {
    let sc = Scenario::parse(name, text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut spec = sc.build(&sc.points()[0], seed).unwrap();
    ablate(&mut spec);
    Simulator::new(spec).run().summary.flows[0].clone()
}

/// `RADIAL_R2CP_WITHOUT=rule,...`: every R²CP flow of `spec` that runs all
/// of the engine's rules runs without those (to measure what each rule is
/// worth to the tests that call this).
pub fn ablate(spec: &mut RunSpec) {
    let Ok(names) = std::env::var("RADIAL_R2CP_WITHOUT") else {
        return;
    };
    let mut rules = Rules::ALL;
    for name in names.split(',').filter(|n| !n.is_empty()) {
        let rule = Rules::LIST
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("RADIAL_R2CP_WITHOUT: no rule `{name}`"));
        *(rule.switch)(&mut rules) = false;
    }
    for f in &mut spec.flows {
        if let FlowProtocol::R2cp(c) = &mut f.protocol {
            if c.rules == Rules::ALL {
                c.rules = rules;
            }
        }
    }
}

/// Cases to run: `{prefix}_CASES` if set, else `debug` in a debug build and
/// `release` in a release one.
pub fn cases(prefix: &str, debug: u32, release: u32) -> u32 {
    std::env::var(format!("{prefix}_CASES"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            debug
        } else {
            release
        })
}

/// The same cases on every run; `{prefix}_SEED` draws others.
pub fn rng_seed(prefix: &str) -> proptest::test_runner::RngSeed {
    let seed = std::env::var(format!("{prefix}_SEED"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    proptest::test_runner::RngSeed::Fixed(seed)
}
