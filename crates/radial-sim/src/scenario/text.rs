//! Text helpers of the loader: readable keys and messages for errors, line
//! numbers, and `{i}` templates.

/// A key path without the segments the span wrapper adds
/// (`link[1].loss.$__serde_spanned_private_value` → `link[1].loss`).
pub(super) fn readable_key(path: &str) -> String {
    path.split('.')
        .filter(|seg| !seg.starts_with("$__"))
        .collect::<Vec<_>>()
        .join(".")
}

/// Says what a value that may take several forms should look like, where
/// the deserializer only says that none matched.
pub(super) fn readable_message(message: &str) -> String {
    let forms = [
        (
            "LossValue",
            "expected a loss probability (`loss = 0.01`) or a loss model table (`loss = { model = \"gilbert-elliott\", ... }`)",
        ),
        (
            "StartValue",
            "expected a time (`start = \"1s\"`) or a random start (`start = { uniform = [\"0s\", \"1s\"] }`)",
        ),
    ];
    forms
        .iter()
        .find(|(name, _)| message.contains("untagged enum") && message.contains(name))
        .map_or_else(|| message.to_string(), |(_, says)| (*says).to_string())
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

pub(super) fn expand(name: &str, count: Option<u32>) -> Vec<String> {
    match count {
        None => vec![name.to_string()],
        Some(n) => (1..=n)
            .map(|i| name.replace("{i}", &i.to_string()))
            .collect(),
    }
}
