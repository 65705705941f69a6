//! Handoffs of a host's access link (TCP-HO §II's view: the link goes down,
//! and comes back after an outage with the new cell's bandwidth and delay):
//! `[[handoff]]` entries and the random `[mobility]` model (TCP-HO §V-B:
//! dwell times, handoff probabilities and outages per pair of networks),
//! both expanded into schedule entries signalled to the hosts.

use radial_core::{BitRate, Duration};

use super::schema::{File, MobilityTable};
use super::{Resolver, ScenarioError};
use crate::rng::Rng;
use crate::spec::{Direction, HandoffKind, LinkAction, LinkHandoff, LinkSpec, ScheduleSpec};

/// One handoff before it becomes schedule entries.
struct Move {
    at: Duration,
    link: u32,
    outage: Duration,
    rate: Option<BitRate>,
    delay: Option<Duration>,
    warning: Option<Duration>,
    /// What the file says it is, to be checked (key, span, name).
    claimed: Option<(String, Option<std::ops::Range<usize>>, String)>,
    /// Where errors about it point: its key and the span of its `link`.
    key: String,
    span: std::ops::Range<usize>,
}

/// A move of the random model out of a network: (destination,
/// probability, outage).
type Transition = (usize, f64, Duration);

impl Resolver<'_> {
    /// The handoffs of `file` as schedule entries (appended to `schedule`)
    /// and as records for the report.
    pub(super) fn link_handoffs(
        &self,
        file: &File,
        links: &[LinkSpec],
        seed: u64,
        schedule: &mut Vec<ScheduleSpec>,
    ) -> Result<Vec<LinkHandoff>, ScenarioError> {
        let duration = file.scenario.duration.0;
        let mut moves = Vec::new();
        for (i, h) in file.handoffs.iter().enumerate() {
            let key = format!("handoff[{i}]");
            let link = self.link_index(links, &h.link, &format!("{key}.link"))?;
            moves.push(Move {
                at: h.at.0,
                link,
                outage: h.outage.map_or(Duration::ZERO, |t| t.0),
                rate: h.rate.map(|r| r.0),
                delay: h.delay.map(|d| d.0),
                warning: h.warning.map(|w| w.0),
                claimed: h
                    .kind
                    .as_ref()
                    .map(|k| (format!("{key}.kind"), Some(k.span()), k.get_ref().clone())),
                span: h.link.span(),
                key,
            });
        }
        if let Some(m) = &file.mobility {
            moves.extend(self.random_moves(m, links, seed, duration, schedule)?);
        }
        moves.sort_by_key(|m| m.at);
        // The link's rate as each handoff finds it.
        let mut rates: Vec<BitRate> = links.iter().map(|l| l.rate_forward).collect();
        for s in schedule.iter() {
            if let (Duration::ZERO, LinkAction::Rate(r)) = (s.at, s.action) {
                rates[s.link as usize] = r;
            }
        }
        let mut out = Vec::new();
        for m in moves {
            let before = rates[m.link as usize];
            let after = m.rate.unwrap_or(before);
            rates[m.link as usize] = after;
            let kind = HandoffKind::classify(before, after);
            if let Some((key, span, name)) = &m.claimed {
                match HandoffKind::from_name(name) {
                    None => {
                        return self.err(
                            span.clone(),
                            key.clone(),
                            format!("unknown handoff kind `{name}` (L-HH, H-HH, U-VH, D-VH)"),
                        )
                    }
                    Some(k) if k != kind => {
                        return self.err(
                            span.clone(),
                            key.clone(),
                            format!(
                                "`{name}` does not fit a handoff from {before} to {after}: that is {} ({})",
                                kind.name(),
                                HandoffKind::RULE
                            ),
                        )
                    }
                    Some(_) => {}
                }
            }
            let end = m.at + m.outage;
            if end >= duration {
                return self.err(
                    Some(m.span.clone()),
                    format!("{}.outage", m.key),
                    format!(
                        "the handoff at {} s and its outage end after the run",
                        m.at.as_secs_f64()
                    ),
                );
            }
            let entry = |at, action, signal| ScheduleSpec {
                at,
                link: m.link,
                direction: Direction::Both,
                action,
                signal,
            };
            if let Some(w) = m.warning {
                let Some(at) = m.at.checked_sub(w) else {
                    return self.err(
                        Some(m.span.clone()),
                        format!("{}.warning", m.key),
                        format!(
                            "a warning {} s ahead of a handoff at {} s comes before the start",
                            w.as_secs_f64(),
                            m.at.as_secs_f64()
                        ),
                    );
                };
                schedule.push(entry(at, LinkAction::Warning, true));
            }
            schedule.push(entry(m.at, LinkAction::Down, true));
            if let Some(r) = m.rate {
                schedule.push(entry(end, LinkAction::Rate(r), false));
            }
            if let Some(d) = m.delay {
                schedule.push(entry(end, LinkAction::Delay(d), false));
            }
            schedule.push(entry(end, LinkAction::Up, true));
            out.push(LinkHandoff {
                at: m.at,
                link: m.link,
                outage: m.outage,
                kind,
                rate: after,
            });
        }
        Ok(out)
    }

    fn link_index(
        &self,
        links: &[LinkSpec],
        name: &toml::Spanned<String>,
        key: &str,
    ) -> Result<u32, ScenarioError> {
        match links.iter().position(|l| &l.name == name.get_ref()) {
            Some(i) => Ok(i as u32),
            None => self.err(
                Some(name.span()),
                key.to_string(),
                format!("unknown link `{}`", name.get_ref()),
            ),
        }
    }

    /// Draws the host's path through the networks of `[mobility]`: the
    /// first network's rate and delay at time 0, then a handoff at the end
    /// of each exponential dwell, to a network drawn by the transition
    /// probabilities, with that pair's outage.
    fn random_moves(
        &self,
        m: &MobilityTable,
        links: &[LinkSpec],
        seed: u64,
        duration: Duration,
        schedule: &mut Vec<ScheduleSpec>,
    ) -> Result<Vec<Move>, ScenarioError> {
        let link = self.link_index(links, &m.link, "mobility.link")?;
        let out_of = self.transitions(m)?;
        let mut net = self.network(m, &m.start, "mobility.start".into())?;
        let mut rng = Rng::stream(seed, "mobility");
        let pick_rate = |rng: &mut Rng, n: usize| {
            let rates = &m.networks[n].rates;
            rates[(rng.uniform() * rates.len() as f64) as usize % rates.len()].0
        };
        let first = pick_rate(&mut rng, net);
        for action in [
            LinkAction::Rate(first),
            LinkAction::Delay(m.networks[net].delay.0),
        ] {
            schedule.push(ScheduleSpec {
                at: Duration::ZERO,
                link,
                direction: Direction::Both,
                action,
                signal: false,
            });
        }
        let mut moves = Vec::new();
        let mut t = Duration::ZERO;
        loop {
            let dwell = rng.exponential(m.networks[net].dwell.0.as_secs_f64());
            t += Duration::from_secs_f64(dwell);
            let draw = rng.uniform();
            let mut acc = 0.0;
            let list = &out_of[net];
            let &(to, _, outage) = list
                .iter()
                .find(|tr| {
                    acc += tr.1;
                    draw < acc
                })
                .unwrap_or(list.last().expect("validated: probabilities add up to 1"));
            let rate = pick_rate(&mut rng, to);
            if t + outage >= duration {
                break;
            }
            moves.push(Move {
                at: t,
                link,
                outage,
                rate: Some(rate),
                delay: Some(m.networks[to].delay.0),
                warning: m.warning.map(|w| w.0).filter(|&w| w <= t),
                claimed: None,
                key: "mobility".into(),
                span: m.link.span(),
            });
            t += outage;
            net = to;
        }
        Ok(moves)
    }

    /// The random model's networks, checked, and its transitions by origin:
    /// (destination, probability, outage), each origin's adding up to 1.
    fn transitions(&self, m: &MobilityTable) -> Result<Vec<Vec<Transition>>, ScenarioError> {
        let names: Vec<&String> = m.networks.iter().map(|n| n.name.get_ref()).collect();
        for (i, n) in m.networks.iter().enumerate() {
            let key = format!("mobility.network[{i}]");
            if names[..i].contains(&n.name.get_ref()) {
                return self.err(
                    Some(n.name.span()),
                    format!("{key}.name"),
                    format!("duplicate network `{}`", n.name.get_ref()),
                );
            }
            if n.rates.is_empty() {
                return self.err(
                    Some(n.name.span()),
                    format!("{key}.rates"),
                    "a network needs at least one rate".into(),
                );
            }
            if n.dwell.0.is_zero() {
                return self.err(
                    Some(n.name.span()),
                    format!("{key}.dwell"),
                    "the mean dwell time must be positive".into(),
                );
            }
        }
        // Transitions by origin: (destination, probability, outage).
        let mut out_of: Vec<Vec<Transition>> = vec![Vec::new(); names.len()];
        for (i, t) in m.transitions.iter().enumerate() {
            let key = format!("mobility.transition[{i}]");
            let from = self.network(m, &t.from, format!("{key}.from"))?;
            let to = self.network(m, &t.to, format!("{key}.to"))?;
            if !(0.0..=1.0).contains(&t.probability) {
                return self.err(
                    Some(t.from.span()),
                    format!("{key}.probability"),
                    format!("probability {} is not in [0, 1]", t.probability),
                );
            }
            out_of[from].push((to, t.probability, t.outage.0));
        }
        for (i, list) in out_of.iter().enumerate() {
            let sum: f64 = list.iter().map(|t| t.1).sum();
            if (sum - 1.0).abs() > 1e-6 {
                return self.err(
                    Some(m.networks[i].name.span()),
                    "mobility.transition".into(),
                    format!(
                        "the probabilities out of `{}` add up to {sum}, not 1",
                        names[i]
                    ),
                );
            }
        }
        Ok(out_of)
    }

    /// The index of the network `s` names.
    fn network(
        &self,
        m: &MobilityTable,
        s: &toml::Spanned<String>,
        key: String,
    ) -> Result<usize, ScenarioError> {
        match m
            .networks
            .iter()
            .position(|n| n.name.get_ref() == s.get_ref())
        {
            Some(i) => Ok(i),
            None => self.err(
                Some(s.span()),
                key,
                format!("unknown network `{}`", s.get_ref()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{expect_error, BASE};
    use super::super::Scenario;

    /// `BASE` with its link named `w` and `extra` appended.
    fn with(extra: &str) -> String {
        BASE.replacen("[[link]]\n", "[[link]]\nname = \"w\"\n", 1) + extra
    }

    const MOBILITY: &str = r#"
[mobility]
link = "w"
start = "cell"
[[mobility.network]]
name = "cell"
dwell = "1s"
rates = ["1Mbit/s", "3Mbit/s"]
delay = "10ms"
[[mobility.network]]
name = "hotspot"
dwell = "500ms"
rates = ["7Mbit/s"]
delay = "2ms"
[[mobility.transition]]
from = "cell"
to = "hotspot"
probability = 0.5
outage = "100ms"
[[mobility.transition]]
from = "cell"
to = "cell"
probability = 0.5
outage = "50ms"
[[mobility.transition]]
from = "hotspot"
to = "cell"
probability = 1.0
outage = "200ms"
"#;

    #[test]
    fn a_handoff_becomes_signalled_link_changes() {
        let text = with(
            "[[handoff]]\nat = \"2s\"\nlink = \"w\"\noutage = \"1s\"\nrate = \"50Mbit/s\"\nkind = \"U-VH\"\nwarning = \"100ms\"\n",
        );
        let sc = Scenario::parse("ok.toml", &text).unwrap();
        let spec = sc.build(&sc.points()[0], 1).unwrap();
        let entries: Vec<_> = spec
            .schedule
            .iter()
            .map(|s| (s.at.as_millis(), s.action, s.signal))
            .collect();
        use crate::spec::LinkAction::*;
        use radial_core::BitRate;
        assert_eq!(
            entries,
            [
                (1900, Warning, true),
                (2000, Down, true),
                (3000, Rate(BitRate::from_mbps(50)), false),
                (3000, Up, true),
            ]
        );
        assert_eq!(spec.link_handoffs.len(), 1);
        assert_eq!(spec.link_handoffs[0].kind.name(), "U-VH");
    }

    #[test]
    fn handoff_mistakes_name_the_key_and_line() {
        let e = expect_error(
            &with("[[handoff]]\nat = \"2s\"\nlink = \"w\"\nrate = \"12Mbit/s\"\nkind = \"U-VH\"\n"),
            "handoff[0].kind",
            "kind = \"U-VH\"",
        );
        assert!(e.message.contains("H-HH"), "{e}");
        expect_error(
            &with("[[handoff]]\nat = \"2s\"\nlink = \"w\"\nkind = \"X-HH\"\n"),
            "handoff[0].kind",
            "kind = \"X-HH\"",
        );
        expect_error(
            &with("[[handoff]]\nat = \"2s\"\nlink = \"nope\"\n"),
            "handoff[0].link",
            "link = \"nope\"",
        );
        expect_error(
            &with("[[handoff]]\nat = \"9s\"\nlink = \"w\"\noutage = \"2s\"\n"),
            "handoff[0].outage",
            "link = \"w\"",
        );
        expect_error(
            &with("[[handoff]]\nat = \"1s\"\nlink = \"w\"\nwarning = \"2s\"\n"),
            "handoff[0].warning",
            "link = \"w\"",
        );
    }

    #[test]
    fn mobility_draws_one_sequence_per_seed() {
        let text = with(MOBILITY);
        let sc = Scenario::parse("ok.toml", &text).unwrap();
        let draw = |seed| {
            let spec = sc.build(&sc.points()[0], seed).unwrap();
            spec.link_handoffs
                .iter()
                .map(|h| (h.at, h.outage, h.rate))
                .collect::<Vec<_>>()
        };
        let a = draw(1);
        assert!(a.len() >= 3, "{a:?}");
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        // Each outage is one of the transitions', each rate one of the
        // networks'.
        for (_, outage, rate) in &a {
            assert!([50, 100, 200].contains(&outage.as_millis()), "{outage}");
            assert!([1, 3, 7].contains(&(rate.bps() / 1_000_000)), "{rate}");
        }
    }

    #[test]
    fn mobility_mistakes_name_the_key_and_line() {
        expect_error(
            &with(&MOBILITY.replace("probability = 1.0", "probability = 0.9")),
            "mobility.transition",
            "name = \"hotspot\"",
        );
        expect_error(
            &with(&MOBILITY.replace("to = \"hotspot\"", "to = \"nowhere\"")),
            "mobility.transition[0].to",
            "to = \"nowhere\"",
        );
        expect_error(
            &with(&MOBILITY.replace("start = \"cell\"", "start = \"moon\"")),
            "mobility.start",
            "start = \"moon\"",
        );
        expect_error(
            &with(&MOBILITY.replace("name = \"hotspot\"", "name = \"cell\" ")),
            "mobility.network[1].name",
            "name = \"cell\" ",
        );
        expect_error(
            &with(&MOBILITY.replace("rates = [\"7Mbit/s\"]", "rates = []")),
            "mobility.network[1].rates",
            "name = \"hotspot\"",
        );
    }
}
