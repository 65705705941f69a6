//! A scenario's `[[schedule]]`: timed changes of links, repeated where
//! asked.

use super::repeat;
use super::schema::{File, ScheduleTable};
use super::{Resolver, ScenarioError};
use crate::spec::{LinkAction, LinkSpec, ScheduleSpec};

impl Resolver<'_> {
    /// The schedule's entries, each repetition its own, in the file's order.
    pub(super) fn schedule(
        &self,
        file: &File,
        links: &[LinkSpec],
    ) -> Result<Vec<ScheduleSpec>, ScenarioError> {
        let mut schedule = Vec::new();
        for (i, s) in file.schedule.iter().enumerate() {
            let Some(link) = links.iter().position(|l| &l.name == s.link.get_ref()) else {
                return self.err(
                    Some(s.link.span()),
                    format!("schedule[{i}].link"),
                    format!("unknown link `{}`", s.link.get_ref()),
                );
            };
            let action = self.link_action(s, i)?;
            let direction = self.direction(
                s.direction.as_deref(),
                &format!("schedule[{i}].direction"),
                Some(s.action.span()),
            )?;
            let signal = s.signal.unwrap_or(false);
            if signal && !matches!(action, LinkAction::Down | LinkAction::Up) {
                return self.err(
                    Some(s.action.span()),
                    format!("schedule[{i}].signal"),
                    "only `down` and `up` can be signalled to the hosts".into(),
                );
            }
            let until = s.until.map_or(file.scenario.duration.0, |t| t.0);
            let times = repeat::times(s.at.0, s.every.map(|t| t.0), until)
                .or_else(|m| self.err(Some(s.action.span()), format!("schedule[{i}].every"), m))?;
            for at in times {
                schedule.push(ScheduleSpec {
                    at,
                    link: link as u32,
                    direction,
                    action,
                    signal,
                });
            }
        }
        Ok(schedule)
    }

    /// What schedule entry `i` does to its link.
    fn link_action(&self, s: &ScheduleTable, i: usize) -> Result<LinkAction, ScenarioError> {
        let action = match s.action.get_ref().as_str() {
            "down" => LinkAction::Down,
            "up" => LinkAction::Up,
            "rate" => match s.rate {
                Some(r) => LinkAction::Rate(r.0),
                None => {
                    return self.err(
                        Some(s.action.span()),
                        format!("schedule[{i}].rate"),
                        "action `rate` needs `rate`".into(),
                    )
                }
            },
            "delay" => match s.delay {
                Some(d) => LinkAction::Delay(d.0),
                None => {
                    return self.err(
                        Some(s.action.span()),
                        format!("schedule[{i}].delay"),
                        "action `delay` needs `delay`".into(),
                    )
                }
            },
            other => {
                return self.err(
                    Some(s.action.span()),
                    format!("schedule[{i}].action"),
                    format!("unknown action `{other}` (down, up, rate, delay)"),
                )
            }
        };
        Ok(action)
    }
}
