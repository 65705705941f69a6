//! Link loss, traffic and transport parameters, resolved and checked.

use super::*;

/// The largest segment: with 40 bytes of TCP/IP headers, the largest IPv4
/// packet (65,535 bytes).
const MAX_PACKET_SIZE: u64 = 65_535 - 40;

/// The largest window in bytes: TCP's with window scaling (RFC 7323 §2.3).
const MAX_WINDOW_BYTES: u64 = 1 << 30;

/// A link's loss, as a `loss` key of a scenario file's `[[link]]` writes it
/// (a probability, or a table with `model`, `direction` and `shared`),
/// read and checked for another file with the same key (the emulator's
/// `[[path]]`): each direction's loss (forward, reverse) and the
/// Gilbert-Elliott channels they refer to by index. `file` and `text`
/// locate errors; `packet_time` is one packet's transmission on the link,
/// the shortest mean stay a channel may have.
pub fn link_loss(
    file: &str,
    text: &str,
    value: &Spanned<schema::LossValue>,
    key: &str,
    packet_time: Duration,
) -> Result<(LossSpec, LossSpec, Vec<GilbertElliottParams>), ScenarioError> {
    let mut channels = Vec::new();
    let (fwd, rev) = Resolver { file, text }.loss(value, key, packet_time, &mut channels)?;
    Ok((fwd, rev, channels))
}

impl Resolver<'_> {
    pub(super) fn direction(
        &self,
        d: Option<&str>,
        key: &str,
        span: Option<std::ops::Range<usize>>,
    ) -> Result<Direction, ScenarioError> {
        match d.unwrap_or("both") {
            "both" => Ok(Direction::Both),
            "forward" => Ok(Direction::Forward),
            "reverse" => Ok(Direction::Reverse),
            other => self.err(
                span,
                key.to_string(),
                format!("unknown direction `{other}` (both, forward, reverse)"),
            ),
        }
    }

    pub(super) fn loss(
        &self,
        v: &Spanned<LossValue>,
        key: &str,
        packet_time: Duration,
        channels: &mut Vec<GilbertElliottParams>,
    ) -> Result<(LossSpec, LossSpec), ScenarioError> {
        let span = Some(v.span());
        let prob = |p: f64, k: &str| -> Result<f64, ScenarioError> {
            if (0.0..=1.0).contains(&p) {
                Ok(p)
            } else {
                self.err(
                    span.clone(),
                    format!("{key}{k}"),
                    format!("loss probability `{p}` must be within [0, 1]"),
                )
            }
        };
        let (spec, dir, shared) = match v.get_ref() {
            LossValue::Rate(p) => (LossSpec::Bernoulli(prob(*p, "")?), Direction::Both, true),
            LossValue::Model(t) => {
                let dir = self.direction(
                    t.direction.as_deref(),
                    &format!("{key}.direction"),
                    span.clone(),
                )?;
                match t.model.as_str() {
                    "bernoulli" => {
                        let Some(p) = t.rate else {
                            return self.err(
                                span,
                                format!("{key}.rate"),
                                "model `bernoulli` needs `rate`".into(),
                            );
                        };
                        (LossSpec::Bernoulli(prob(p, ".rate")?), dir, true)
                    }
                    "gilbert-elliott" => {
                        let (Some(g), Some(b), Some(gm), Some(bm)) =
                            (t.good_loss, t.bad_loss, t.good_mean, t.bad_mean)
                        else {
                            return self.err(span, key.to_string(), "model `gilbert-elliott` needs good_loss, bad_loss, good_mean and bad_mean".into());
                        };
                        for (mean, k) in [(gm.0, "good_mean"), (bm.0, "bad_mean")] {
                            if mean < packet_time {
                                return self.err(
                                    span,
                                    format!("{key}.{k}"),
                                    format!(
                                        "a mean stay of {} s is shorter than one packet on this link ({} s): the channel would change state for every packet",
                                        mean.as_secs_f64(),
                                        packet_time.as_secs_f64()
                                    ),
                                );
                            }
                        }
                        channels.push(GilbertElliottParams {
                            good_loss: prob(g, ".good_loss")?,
                            bad_loss: prob(b, ".bad_loss")?,
                            good_mean: gm.0,
                            bad_mean: bm.0,
                        });
                        (
                            LossSpec::GilbertElliott(channels.len() as u32 - 1),
                            dir,
                            t.shared.unwrap_or(true),
                        )
                    }
                    other => {
                        return self.err(
                            span,
                            format!("{key}.model"),
                            format!("unknown loss model `{other}` (bernoulli, gilbert-elliott)"),
                        )
                    }
                }
            }
        };
        // One Gilbert-Elliott state per direction unless shared.
        let rev = match (spec, shared) {
            (LossSpec::GilbertElliott(c), false) if dir == Direction::Both => {
                channels.push(channels[c as usize]);
                LossSpec::GilbertElliott(channels.len() as u32 - 1)
            }
            _ => spec,
        };
        Ok(match dir {
            Direction::Both => (spec, rev),
            Direction::Forward => (spec, LossSpec::None),
            Direction::Reverse => (LossSpec::None, spec),
        })
    }

    /// A flow's `traffic` table: a Pareto on/off application.
    pub(super) fn onoff(
        &self,
        t: &TrafficTable,
        span: std::ops::Range<usize>,
        i: usize,
    ) -> Result<OnOffSpec, ScenarioError> {
        if t.kind != "pareto-onoff" {
            return self.err(
                Some(span),
                format!("flow[{i}].traffic.kind"),
                format!(
                    "unknown traffic kind `{}` (expected `pareto-onoff`)",
                    t.kind
                ),
            );
        }
        let shape = t.shape.unwrap_or(1.5);
        if shape.is_nan() || shape <= 1.0 {
            return self.err(
                Some(span),
                format!("flow[{i}].traffic.shape"),
                "Pareto shape must exceed 1".into(),
            );
        }
        let packet_size = t.packet_size.unwrap_or(1000);
        if packet_size == 0 || t.rate.0.bps() == 0 {
            return self.err(
                Some(span),
                format!("flow[{i}].traffic"),
                "`rate` and `packet_size` must be positive".into(),
            );
        }
        Ok(OnOffSpec {
            rate: t.rate.0,
            on: t.on.0,
            off: t.off.0,
            shape,
            packet_size,
        })
    }

    pub(super) fn tcp_config(
        &self,
        variant: TcpVariant,
        t: &TcpTable,
        key: &str,
    ) -> Result<TcpConfig, ScenarioError> {
        let mut c = TcpConfig::ns2(variant);
        let positive = |v: u64, k: &str| -> Result<u64, ScenarioError> {
            if v == 0 {
                self.err(None, format!("{key}.{k}"), "must be positive".into())
            } else {
                Ok(v)
            }
        };
        if let Some(v) = t.packet_size {
            c.mss = positive(v, "packet_size")?;
            c.cc.mss = c.mss;
        }
        if let Some(v) = t.window {
            c.window = positive(v, "window")?;
        }
        c.cc.initial_ssthresh = c.window * c.mss;
        if let Some(v) = t.initial_window {
            c.cc.initial_window = positive(v, "initial_window")?;
        }
        if let Some(v) = t.min_rto {
            c.rtt.min_rto = v.0;
        }
        if let Some(v) = t.max_rto {
            c.rtt.max_rto = v.0;
        }
        if let Some(v) = t.initial_rto {
            c.rtt.initial_rto = v.0;
        }
        if c.mss > MAX_PACKET_SIZE {
            return self.err(
                self.key_span("packet_size"),
                format!("{key}.packet_size"),
                format!(
                    "{} bytes: a segment and its 40 bytes of TCP/IP headers must fit the \
                     largest IPv4 packet ({MAX_PACKET_SIZE} bytes at most)",
                    c.mss
                ),
            );
        }
        if c.window.saturating_mul(c.mss) > MAX_WINDOW_BYTES {
            return self.err(
                self.key_span("window"),
                format!("{key}.window"),
                format!(
                    "{} segments of {} bytes are more than TCP's largest window, 2^30 bytes \
                     with window scaling (RFC 7323 §2.3): at most {} segments",
                    c.window,
                    c.mss,
                    MAX_WINDOW_BYTES / c.mss
                ),
            );
        }
        if let Some(v) = t.initial_rto {
            if v.0 < c.rtt.min_rto || v.0 > c.rtt.max_rto {
                return self.err(
                    self.key_span("initial_rto"),
                    format!("{key}.initial_rto"),
                    format!(
                        "initial_rto ({} s) is outside min_rto to max_rto ({} to {} s)",
                        v.0.as_secs_f64(),
                        c.rtt.min_rto.as_secs_f64(),
                        c.rtt.max_rto.as_secs_f64()
                    ),
                );
            }
        }
        if c.rtt.max_rto < c.rtt.min_rto {
            return self.err(
                self.key_span("max_rto"),
                format!("{key}.max_rto"),
                format!(
                    "max_rto ({} s) is below min_rto ({} s)",
                    c.rtt.max_rto.as_secs_f64(),
                    c.rtt.min_rto.as_secs_f64()
                ),
            );
        }
        if c.rtt.min_rto.is_zero() {
            return self.err(
                self.key_span("min_rto"),
                format!("{key}.min_rto"),
                "min_rto must be positive".into(),
            );
        }
        if let Some(v) = t.tick {
            c.rtt.tick = v.0.max(Duration::from_nanos(1));
        }
        if let Some(v) = t.max_burst {
            c.max_burst = v;
        }
        if let Some(v) = t.dupthresh {
            c.dupthresh = positive(u64::from(v), "dupthresh")? as u32;
        }
        if let Some(v) = t.reordering {
            c.reordering = v;
        }
        if let Some(v) = t.sack_blocks {
            c.max_sack_blocks = v.min(radial_core::wire::tcp::MAX_SACK_BLOCKS);
        }
        if let Some(v) = t.handshake {
            c.handshake = v;
        }
        c.send_buffer = c.send_buffer.max(2 * (c.window * c.mss) as usize);
        Ok(c)
    }

    /// An R²CP flow's `policy` table: redundant striping and a target rate.
    pub(super) fn policy(
        &self,
        protocol: &mut FlowProtocol,
        policy: &Spanned<schema::PolicyTable>,
        i: usize,
        pipes: usize,
    ) -> Result<(), ScenarioError> {
        let span = policy.span();
        let key = format!("flow[{i}].policy");
        let policy = policy.get_ref();
        if let FlowProtocol::Prism(c) = protocol {
            return self.prism_policy(c, policy, span, &key);
        }
        if let Some(rpc) = &policy.rpc {
            return self.err(
                Some(rpc.span()),
                format!("{key}.rpc"),
                "`rpc` applies to PRISM flows only".into(),
            );
        }
        if let (Some(name), FlowProtocol::R2cp(_)) = (&policy.scheduler, &*protocol) {
            return self.err(
                Some(name.span()),
                format!("{key}.scheduler"),
                "`scheduler` applies to MPTCP flows only".into(),
            );
        }
        if let Some(without) = &policy.without {
            let FlowProtocol::R2cp(c) = &mut *protocol else {
                return self.err(
                    Some(without.span()),
                    format!("{key}.without"),
                    "`without` applies to R²CP flows only (`r2cp`, `r2cp-s`, `r2cp-coupled`)"
                        .into(),
                );
            };
            for name in without.get_ref() {
                let Some(rule) = Rules::LIST.iter().find(|r| r.name == name) else {
                    let known: Vec<&str> = Rules::LIST.iter().map(|r| r.name).collect();
                    return self.err(
                        Some(without.span()),
                        format!("{key}.without"),
                        format!("unknown rule `{name}` (known: {})", known.join(", ")),
                    );
                };
                *(rule.switch)(&mut c.rules) = false;
            }
        }
        if let Some(flow) = &policy.flow {
            let FlowProtocol::R2cp(c) = &mut *protocol else {
                return self.err(
                    Some(flow.span()),
                    format!("{key}.flow"),
                    "`flow` applies to R²CP flows only".into(),
                );
            };
            let Some(f) = FlowControl::from_name(flow.get_ref()) else {
                return self.err(
                    Some(flow.span()),
                    format!("{key}.flow"),
                    format!("unknown flow control `{}` (reserve, span)", flow.get_ref()),
                );
            };
            c.flow = f;
        }
        let (redundant_striping, target) = match protocol {
            FlowProtocol::R2cp(c) => (&mut c.rules.redundant_striping, &mut c.target),
            FlowProtocol::Ptcp(c) => {
                if let Some(name) = &policy.scheduler {
                    let (Some(m), Some(s)) = (
                        c.mptcp.as_mut(),
                        radial_core::mptcp::Scheduler::from_name(name.get_ref()),
                    ) else {
                        return self.err(
                            Some(name.span()),
                            format!("{key}.scheduler"),
                            format!(
                                "unknown scheduler `{}` (min-rtt, ecf; MPTCP flows only)",
                                name.get_ref()
                            ),
                        );
                    };
                    m.scheduler = s;
                }
                (&mut c.redundant_striping, &mut c.target)
            }
            _ => {
                return self.err(
                    Some(span),
                    key,
                    "`policy` applies to multipath flows only (`r2cp`, `r2cp-s`, `r2cp-coupled`, `ptcp`, `mptcp-*`)".into(),
                )
            }
        };
        *redundant_striping = policy.redundant_striping.unwrap_or(*redundant_striping);
        *target = match (policy.target, &policy.prefer) {
            (None, None) if policy.period.is_none() => None,
            (Some(rate), Some(prefer)) => {
                let j = *prefer.get_ref();
                if j < 0 || j as usize >= pipes {
                    return self.err(
                        Some(prefer.span()),
                        format!("{key}.prefer"),
                        format!(
                            "`prefer` names a pipe by its index in `pipes`, 0 to {}",
                            pipes - 1
                        ),
                    );
                }
                let period = policy.period.map_or(TargetRate::DEFAULT_PERIOD, |t| t.0);
                if period.is_zero() || rate.0.bps() == 0 {
                    return self.err(
                        Some(span),
                        format!("{key}.target"),
                        "the target rate and its `period` must be above zero".into(),
                    );
                }
                Some(TargetRate {
                    rate: rate.0,
                    prefer: PathId(j as u16),
                    period,
                })
            }
            _ => {
                return self.err(
                    Some(span),
                    format!("{key}.target"),
                    "a target-rate policy needs `target` and `prefer` (and may set `period`)"
                        .into(),
                )
            }
        };
        Ok(())
    }

    /// RCP takes the same transport parameters as the TCP baselines (it is a
    /// TCP clone, §3.3.3), plus `open`.
    pub(super) fn rcp_config(
        &self,
        variant: RcpVariant,
        t: &TcpTable,
        key: &str,
    ) -> Result<RcpConfig, ScenarioError> {
        let tcp = self.tcp_config(TcpVariant::Sack, t, key)?;
        let opener = match t.open.as_deref() {
            None | Some("receiver") => Opener::Receiver,
            Some("sender") => Opener::Sender,
            Some(other) => {
                return self.err(
                    None,
                    format!("{key}.open"),
                    format!("unknown opener `{other}` (receiver, sender)"),
                )
            }
        };
        Ok(RcpConfig {
            variant,
            mss: tcp.mss,
            window: tcp.window,
            cc: radial_core::cc::CcConfig {
                algorithm: variant.algorithm(),
                ..tcp.cc
            },
            rtt: tcp.rtt,
            dupthresh: tcp.dupthresh,
            opener,
            send_buffer: tcp.send_buffer,
            unsent_limit: tcp.send_buffer,
            power_save: t.power_save.unwrap_or(false),
            conn_id: 0,
            isn: tcp.isn,
        })
    }
}

impl Resolver<'_> {
    /// A pTCP pipe: from the flow's own server (pTCP stripes one sender's
    /// stream; R²CP's replicas have no counterpart), at most
    /// [`MAX_PIPES`](radial_core::ptcp::MAX_PIPES), with a TCP controller
    /// of its own if it names one (§5.4).
    pub(super) fn ptcp_pipe(
        &self,
        config: &mut radial_core::ptcp::PtcpConfig,
        p: &schema::PipeTable,
        j: usize,
        server: u32,
        from: u32,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if server != from {
            return self.err(
                Some(p.via.span()),
                format!("{key}.from"),
                format!("`{}` pipes all come from the flow's `from`: the sender's engine stripes one stream", config.name()),
            );
        }
        if j >= radial_core::ptcp::MAX_PIPES {
            return self.err(
                Some(p.via.span()),
                format!("{key}.via"),
                format!(
                    "a `{}` flow has at most {} pipes",
                    config.name(),
                    radial_core::ptcp::MAX_PIPES
                ),
            );
        }
        if let Some(c) = &p.controller {
            match TcpVariant::from_name(c.get_ref()) {
                Some(v @ (TcpVariant::NewReno | TcpVariant::Sack | TcpVariant::Eln)) => {
                    config.pipe_variants[j] = Some(v);
                }
                _ => {
                    return self.err(
                        Some(c.span()),
                        format!("{key}.controller"),
                        format!(
                            "unknown `{}` pipe controller `{}` (tcp-sack, tcp-newreno, tcp-eln)",
                            config.name(),
                            c.get_ref()
                        ),
                    )
                }
            }
        }
        Ok(())
    }
}
