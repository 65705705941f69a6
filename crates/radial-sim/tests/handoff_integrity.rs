//! Random handoffs and losses for the single-path transports: TCP NewReno,
//! the three TCP-HO variants, Freeze-TCP and TCP-Probing beside RCP and a
//! one-pipe R²CP. The host's wireless link hands off up to five times
//! (outages of up to 5 s, a new rate each time, with or without a warning
//! ahead), both its directions lose packets at random, and its queue may be
//! tiny. Whatever happens, the application gets every byte once, in order,
//! and the transfer finishes.
//!
//! `cargo test --release -p radial-sim --test handoff_integrity` runs 5,000
//! cases (`.ci/run` does); a debug build runs 500. `RADIAL_HANDOFF_CASES`
//! sets the number, `RADIAL_HANDOFF_SEED` draws other cases than the fixed
//! default.

mod random_runs;

use proptest::prelude::*;
use radial_sim::metrics::FlowReport;

const PROTOCOLS: [&str; 13] = [
    "tcp-newreno",
    "tcp-ho",
    "tcp-ho-immediate",
    "tcp-ho-aggressive",
    "freeze-tcp",
    "tcp-probing",
    "tcp-probing-paper",
    "rcp",
    "r2cp",
    "r2cp-coupled",
    "ptcp",
    "mptcp-lia",
    "mptcp-olia",
];

#[derive(Clone, Debug)]
struct Handoff {
    /// ms.
    at: u64,
    /// ms.
    outage: u64,
    /// kbit/s of the new link.
    rate: u64,
    /// ms of warning ahead, if any.
    warning: Option<u64>,
}

#[derive(Clone, Debug)]
struct Case {
    protocol: &'static str,
    /// kbit/s of the wireless link at the start.
    rate: u64,
    /// One-way delay of the wired part, ms.
    delay: u64,
    queue: u64,
    /// Bernoulli loss of each direction of the wireless link.
    loss: f64,
    handoffs: Vec<Handoff>,
    size: u64,
    seed: u64,
}

impl Case {
    fn scenario(&self) -> String {
        let mut s = format!(
            "[scenario]\nname = \"handoffs\"\nduration = \"900s\"\nsample_interval = \"0s\"\n\n\
             [[node]]\nname = \"S\"\n[[node]]\nname = \"BS\"\n[[node]]\nname = \"M\"\n\n\
             [[link]]\nbetween = [\"S\", \"BS\"]\nrate = \"100Mbit/s\"\ndelay = \"{}ms\"\n\n\
             [[link]]\nname = \"w\"\nbetween = [\"BS\", \"M\"]\nrate = \"{}kbit/s\"\ndelay = \"2ms\"\nqueue = {}\nloss = {:.4}\n\n\
             [[flow]]\nname = \"f\"\nprotocol = \"{}\"\nfrom = \"S\"\nto = \"M\"\nsize = \"{}B\"\n",
            self.delay, self.rate, self.queue, self.loss, self.protocol, self.size
        );
        let mut at = 0;
        for h in &self.handoffs {
            // Handoffs in time order, each after the previous one's outage.
            at += h.at;
            s.push_str(&format!(
                "\n[[handoff]]\nat = \"{at}ms\"\nlink = \"w\"\noutage = \"{}ms\"\nrate = \"{}kbit/s\"\n",
                h.outage, h.rate
            ));
            if let Some(w) = h.warning.filter(|&w| w < at) {
                s.push_str(&format!("warning = \"{w}ms\"\n"));
            }
            at += h.outage;
        }
        s
    }
}

fn case_strategy() -> impl Strategy<Value = Case> {
    let handoff = (
        100u64..20_000,
        0u64..5_000,
        200u64..10_000,
        proptest::option::of(1u64..500),
    )
        .prop_map(|(at, outage, rate, warning)| Handoff {
            at,
            outage,
            rate,
            warning,
        });
    (
        proptest::sample::select(&PROTOCOLS[..]),
        200u64..10_000,
        1u64..100,
        2u64..100,
        0.0..0.05f64,
        proptest::collection::vec(handoff, 0..6),
        1u64..1_000_000,
        any::<u64>(),
    )
        .prop_map(
            |(protocol, rate, delay, queue, loss, handoffs, size, seed)| Case {
                protocol,
                rate,
                delay,
                queue,
                loss,
                handoffs,
                size,
                seed,
            },
        )
}

fn run(c: &Case) -> FlowReport {
    random_runs::first_flow("handoffs.toml", &c.scenario(), c.seed)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: random_runs::cases("RADIAL_HANDOFF", 500, 5_000),
        max_shrink_iters: 2_000,
        rng_seed: random_runs::rng_seed("RADIAL_HANDOFF"),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_byte_arrives_once_in_order_and_the_transfer_finishes(c in case_strategy()) {
        let f = run(&c);
        prop_assert_eq!(f.corrupt_bytes, 0, "{:?}", c);
        prop_assert_eq!(f.bytes_delivered, c.size, "{:?}\n{:?}\n{}", f, c, c.scenario());
        prop_assert!(f.completion_time_s.is_some(), "{:?}\n{:?}", f, c);
    }
}
