//! The figures `radial repro` re-creates: each paper figure's scenario,
//! what is computed from its runs and the checks it is held to. Its words
//! (title, the paper's claim, x axis, notes) are data in the scenario
//! file's `[figure]` table.

use std::sync::OnceLock;

use radial_sim::FigureText;

use super::*;

/// What a target has unless it says otherwise: linear x, no scaling, no
/// acceptance checks, mean goodput of the reliable flows, no extra tables.
pub(super) const BASE: Target = Target {
    name: "",
    group: "",
    title: "",
    scenario: "",
    path: "",
    claim: "",
    x_param: "",
    x_label: "",
    x_scale: 1.0,
    log_x: false,
    checks: |_| Vec::new(),
    notes: "",
    kind: Kind::Curves,
    measured: Measured::AllReliable,
    extra: |_| String::new(),
    series: &["protocol"],
    run_checks: |_| Vec::new(),
};

/// Every target, in the order `repro all` runs them: the figure's words
/// (title, claim, x axis, notes) come from its scenario file's `[figure]`
/// table, filled in by [`targets`].
const DEFINED: &[Target] = &[
    Target {
        name: "rcp-fig5c",
        group: "rcp",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5c.toml"),
        path: "scenarios/papers/rcp-fig5c.toml",
        x_param: "bad_mean_s",
        kind: Kind::Energy,
        ..BASE
    },
    Target {
        name: "rcp-fig4ab",
        group: "rcp",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig4ab.toml"),
        path: "scenarios/papers/rcp-fig4ab.toml",
        x_param: "n_rcp",
        kind: Kind::Friendliness,
        ..BASE
    },
    Target {
        name: "rcp-fig5a",
        group: "rcp",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5a.toml"),
        path: "scenarios/papers/rcp-fig5a.toml",
        x_param: "loss",
        x_scale: 100.0,
        log_x: true,
        checks: fig5a_checks,
        ..BASE
    },
    Target {
        name: "rcp-fig5b",
        group: "rcp",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5b.toml"),
        path: "scenarios/papers/rcp-fig5b.toml",
        x_param: "delay_ms",
        checks: fig5b_checks,
        measured: Measured::Flow("measured"),
        extra: fig5b_costs,
        ..BASE
    },
    Target {
        name: "r2cp-fig8a",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8a.toml"),
        path: "scenarios/papers/r2cp-fig8a.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        ..BASE
    },
    Target {
        name: "r2cp-fig8b",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8b.toml"),
        path: "scenarios/papers/r2cp-fig8b.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        ..BASE
    },
    Target {
        name: "r2cp-fig8c",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8c.toml"),
        path: "scenarios/papers/r2cp-fig8c.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        ..BASE
    },
    Target {
        name: "r2cp-policy",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-policy.toml"),
        path: "scenarios/papers/r2cp-policy.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        extra: rates_extra,
        ..BASE
    },
    Target {
        name: "r2cp-blackout",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-blackout.toml"),
        path: "scenarios/papers/r2cp-blackout.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        ..BASE
    },
    Target {
        name: "r2cp-fig9a",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9a.toml"),
        path: "scenarios/papers/r2cp-fig9a.toml",
        x_param: "bw2",
        checks: fig9a_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "bw2"),
        ..BASE
    },
    Target {
        name: "r2cp-fig9b",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9b.toml"),
        path: "scenarios/papers/r2cp-fig9b.toml",
        x_param: "half_rtt2_ms",
        x_scale: 2.0,
        checks: fig9b_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "half_rtt2_ms"),
        ..BASE
    },
    Target {
        name: "r2cp-fig9b-buffer",
        group: "r2cp",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9b-buffer.toml"),
        path: "scenarios/papers/r2cp-fig9b-buffer.toml",
        x_param: "window",
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "window"),
        checks: fig9b_buffer_checks,
        ..BASE
    },
    Target {
        name: "rcp-fig4c",
        group: "rcp",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig4c.toml"),
        path: "scenarios/papers/rcp-fig4c.toml",
        x_param: "onoff",
        checks: fig4c_checks,
        ..BASE
    },
    Target {
        name: "tcpho-fig3",
        group: "tcpho",
        scenario: include_str!("../../../../scenarios/papers/tcpho-fig3.toml"),
        path: "scenarios/papers/tcpho-fig3.toml",
        x_param: "protocol",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        extra: fig3_extra,
        run_checks: fig3_checks,
        ..BASE
    },
    Target {
        name: "tcpho-fig6a",
        group: "tcpho",
        scenario: include_str!("../../../../scenarios/papers/tcpho-fig6a-wcdma.toml"),
        path: "scenarios/papers/tcpho-fig6a-wcdma.toml",
        x_param: "wan_delay_ms",
        measured: Measured::Flow("download"),
        checks: fig6_checks,
        run_checks: table3_checks,
        extra: table3_extra,
        ..BASE
    },
    Target {
        name: "tcpho-fig6b",
        group: "tcpho",
        scenario: include_str!("../../../../scenarios/papers/tcpho-fig6b-wlan.toml"),
        path: "scenarios/papers/tcpho-fig6b-wlan.toml",
        x_param: "wan_delay_ms",
        measured: Measured::Flow("download"),
        checks: fig6b_checks,
        run_checks: table3_checks,
        extra: table3_extra,
        ..BASE
    },
    Target {
        name: "tcpho-fig6c",
        group: "tcpho",
        scenario: include_str!("../../../../scenarios/papers/tcpho-fig6c-mixed.toml"),
        path: "scenarios/papers/tcpho-fig6c-mixed.toml",
        x_param: "wan_delay_ms",
        measured: Measured::Flow("download"),
        checks: fig6_checks,
        run_checks: table3_checks,
        extra: table3_extra,
        ..BASE
    },
    Target {
        name: "tcpho-fig7",
        group: "tcpho",
        scenario: include_str!("../../../../scenarios/papers/tcpho-fig7.toml"),
        path: "scenarios/papers/tcpho-fig7.toml",
        x_param: "outage_s",
        measured: Measured::Resume("download"),
        checks: tcpho_fig7_checks,
        ..BASE
    },
    Target {
        name: "freeze-handoff",
        group: "survey",
        scenario: include_str!("../../../../scenarios/papers/freeze-handoff.toml"),
        path: "scenarios/papers/freeze-handoff.toml",
        x_param: "outage_s",
        measured: Measured::Flow("download"),
        checks: freeze_checks,
        run_checks: freeze_run_checks,
        extra: freeze_extra,
        ..BASE
    },
    Target {
        name: "survey-probing",
        group: "survey",
        scenario: include_str!("../../../../scenarios/papers/survey-probing.toml"),
        path: "scenarios/papers/survey-probing.toml",
        x_param: "error",
        x_scale: 100.0,
        measured: Measured::CompletionTime("download"),
        series: &["protocol", "delay_ms"],
        checks: probing_checks,
        run_checks: probing_run_checks,
        extra: probing_extra,
        ..BASE
    },
    Target {
        name: "survey-fig7",
        group: "survey",
        scenario: include_str!("../../../../scenarios/papers/survey-fig7.toml"),
        path: "scenarios/papers/survey-fig7.toml",
        x_param: "error",
        x_scale: 100.0,
        measured: Measured::CompletionTime("download"),
        checks: survey_fig7_checks,
        ..BASE
    },
    Target {
        name: "ptcp-fig7",
        group: "ptcp",
        scenario: include_str!("../../../../scenarios/papers/ptcp-fig7.toml"),
        path: "scenarios/papers/ptcp-fig7.toml",
        x_param: "protocol",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        run_checks: ptcp_fig7_checks,
        ..BASE
    },
    Target {
        name: "ptcp-fig9a",
        group: "ptcp",
        scenario: include_str!("../../../../scenarios/papers/ptcp-fig9a.toml"),
        path: "scenarios/papers/ptcp-fig9a.toml",
        x_param: "bw2",
        checks: ptcp_fig9a_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "bw2"),
        ..BASE
    },
    Target {
        name: "ptcp-fig11",
        group: "ptcp",
        scenario: include_str!("../../../../scenarios/papers/ptcp-fig11.toml"),
        path: "scenarios/papers/ptcp-fig11.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        extra: rates_extra,
        ..BASE
    },
    Target {
        name: "ptcp-fig13",
        group: "ptcp",
        scenario: include_str!("../../../../scenarios/papers/ptcp-fig13.toml"),
        path: "scenarios/papers/ptcp-fig13.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        run_checks: ptcp_fig13_checks,
        ..BASE
    },
    Target {
        name: "ptcp-fig14",
        group: "ptcp",
        scenario: include_str!("../../../../scenarios/papers/ptcp-fig14.toml"),
        path: "scenarios/papers/ptcp-fig14.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        run_checks: ptcp_fig14_checks,
        ..BASE
    },
    Target {
        name: "prism-fig7a",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig7a.toml"),
        path: "scenarios/papers/prism-fig7a.toml",
        x_param: "delay2_ms",
        checks: prism_fig7a_checks,
        measured: Measured::Flow("download"),
        series: &["variant"],
        ..BASE
    },
    Target {
        name: "prism-fig7b",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig7b.toml"),
        path: "scenarios/papers/prism-fig7b.toml",
        x_param: "loss",
        x_scale: 100.0,
        log_x: true,
        checks: prism_fig7b_checks,
        measured: Measured::Flow("download"),
        series: &["variant"],
        ..BASE
    },
    Target {
        name: "prism-fig7c",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig7c.toml"),
        path: "scenarios/papers/prism-fig7c.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        run_checks: prism_fig7c_checks,
        ..BASE
    },
    Target {
        name: "prism-fig9",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig9.toml"),
        path: "scenarios/papers/prism-fig9.toml",
        x_param: "n",
        checks: prism_fig9_checks,
        measured: Measured::SumReliable,
        series: &["variant"],
        ..BASE
    },
    Target {
        name: "prism-fig10",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig10.toml"),
        path: "scenarios/papers/prism-fig10.toml",
        x_param: "disparity",
        checks: prism_fig10_checks,
        measured: Measured::Flow("community"),
        series: &["scheduler"],
        ..BASE
    },
    Target {
        name: "prism-fig11",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig11.toml"),
        path: "scenarios/papers/prism-fig11.toml",
        x_param: "burst_s",
        checks: prism_fig11_checks,
        measured: Measured::SumReliable,
        series: &["scheduler"],
        ..BASE
    },
    Target {
        name: "prism-fig12",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig12.toml"),
        path: "scenarios/papers/prism-fig12.toml",
        x_param: "burst_s",
        checks: prism_fig12_checks,
        measured: Measured::SumReliable,
        series: &["scheduler", "level"],
        ..BASE
    },
    Target {
        name: "prism-fig13",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig13.toml"),
        path: "scenarios/papers/prism-fig13.toml",
        x_param: "disparity",
        checks: prism_fig13_checks,
        measured: Measured::SumReliable,
        series: &["variant"],
        ..BASE
    },
    Target {
        name: "prism-fig14",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig14.toml"),
        path: "scenarios/papers/prism-fig14.toml",
        x_param: "variant",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        run_checks: prism_fig14_checks,
        extra: prism_fig14_extra,
        ..BASE
    },
    Target {
        name: "prism-fig15c",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig15c.toml"),
        path: "scenarios/papers/prism-fig15c.toml",
        x_param: "flows",
        measured: Measured::CwndFairness,
        run_checks: prism_fig15c_checks,
        extra: prism_fig15c_extra,
        ..BASE
    },
    Target {
        name: "prism-fig15",
        group: "prism",
        scenario: include_str!("../../../../scenarios/papers/prism-fig15.toml"),
        path: "scenarios/papers/prism-fig15.toml",
        x_param: "n_prism",
        kind: Kind::Friendliness,
        ..BASE
    },
];

/// Every target with its words read from its scenario file, once.
pub fn targets() -> &'static [Target] {
    static ALL: OnceLock<Vec<Target>> = OnceLock::new();
    ALL.get_or_init(|| {
        DEFINED
            .iter()
            .map(|t| {
                // The scenarios are compiled in, and a test reads every
                // one's `[figure]`.
                let text = FigureText::of(t.path, t.scenario)
                    .unwrap_or_else(|e| panic!("{e}"))
                    .unwrap_or_else(|| panic!("{}: no [figure] table", t.path));
                let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
                Target {
                    title: leak(text.title),
                    claim: leak(text.claim),
                    x_label: leak(text.x_label),
                    notes: leak(text.notes),
                    ..*t
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_its_words_in_its_scenario_file() {
        let all = targets();
        assert_eq!(all.len(), DEFINED.len());
        for t in all {
            assert!(
                !t.title.is_empty() && !t.claim.is_empty() && !t.notes.is_empty(),
                "{}",
                t.name
            );
            assert!(t.scenario.contains("[figure]"), "{}", t.path);
        }
    }
}
