//! A scenario file's `[figure]` table: the words `radial repro` writes
//! beside the figure the scenario reproduces (its title, the paper's
//! claim, the x axis, our notes), kept with the scenario as data.

use super::{line_of, ScenarioError};

/// The words of a reproduced figure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FigureText {
    /// The figure's title.
    pub title: String,
    /// The paper's claim, quoted or summarised with its section.
    pub claim: String,
    /// The x axis's label (empty for figures against time, which say so
    /// themselves).
    pub x_label: String,
    /// Where our setup or numbers differ from the paper's, and why.
    pub notes: String,
}

impl FigureText {
    /// The `[figure]` table of scenario text, if it has one (the rest of
    /// the file is not validated here: [`super::Scenario::parse`] does).
    pub fn of(file: &str, text: &str) -> Result<Option<Self>, ScenarioError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ScenarioError {
            file: file.to_string(),
            line: e.span().map(|s| line_of(text, s.start)),
            key: "-".to_string(),
            message: e.message().to_string(),
        })?;
        Self::read(file, text, &table)
    }

    /// Reads `[figure]` from `table` (the file's top level), if there is
    /// one: every key a string, `title`, `claim` and `notes` required.
    pub(super) fn read(
        file: &str,
        text: &str,
        table: &toml::Table,
    ) -> Result<Option<Self>, ScenarioError> {
        let Some(value) = table.get("figure") else {
            return Ok(None);
        };
        let line = text
            .lines()
            .position(|l| l.trim() == "[figure]")
            .map(|i| i + 1)
            .or_else(|| text.find("figure").map(|at| line_of(text, at)));
        let err = |key: &str, message: &str| ScenarioError {
            file: file.to_string(),
            line,
            key: key.to_string(),
            message: message.to_string(),
        };
        let figure = value
            .as_table()
            .ok_or_else(|| err("figure", "must be a table"))?;
        let mut out = FigureText::default();
        for (k, v) in figure {
            let slot = match k.as_str() {
                "title" => &mut out.title,
                "claim" => &mut out.claim,
                "x_label" => &mut out.x_label,
                "notes" => &mut out.notes,
                other => {
                    return Err(err(
                        &format!("figure.{other}"),
                        "unknown key (expected `title`, `claim`, `x_label` or `notes`)",
                    ))
                }
            };
            *slot = v
                .as_str()
                .ok_or_else(|| err(&format!("figure.{k}"), "must be a string"))?
                .to_string();
        }
        for (key, value) in [
            ("title", &out.title),
            ("claim", &out.claim),
            ("notes", &out.notes),
        ] {
            if value.is_empty() {
                return Err(err(
                    &format!("figure.{key}"),
                    "missing (a non-empty string)",
                ));
            }
        }
        Ok(Some(out))
    }
}
