//! Loading a scenario file and its sweep: parameters, zip groups, seeds,
//! and the points they make.

use super::*;

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: file.clone(),
            line: None,
            key: "-".into(),
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&file, &text)
    }

    /// Validates scenario text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self, ScenarioError> {
        let err = |line: Option<usize>, key: &str, message: String| ScenarioError {
            file: file.to_string(),
            line,
            key: key.to_string(),
            message,
        };
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            err(
                e.span().map(|s| line_of(text, s.start)),
                "-",
                e.message().to_string(),
            )
        })?;
        let sweep_line = text
            .lines()
            .position(|l| l.trim() == "[sweep]")
            .map(|i| i + 1);
        let at = SweepTable {
            file,
            line: sweep_line,
        };
        let (mut params, mut seeds, mut zip) = (Vec::new(), Vec::new(), Vec::new());
        if let Some(sweep) = table.get("sweep") {
            let sweep = sweep
                .as_table()
                .ok_or_else(|| at.err("sweep", "must be a table".into()))?;
            for (k, v) in sweep {
                match k.as_str() {
                    "seeds" => seeds.extend(at.seeds(v)?),
                    "params" => params.extend(at.params(v)?),
                    "zip" => zip.extend(at.zip(v)?),
                    other => {
                        return Err(at.err(
                            &format!("sweep.{other}"),
                            "unknown key (expected `seeds`, `params` or `zip`)".into(),
                        ))
                    }
                }
            }
        }
        let name = table
            .get("scenario")
            .and_then(|s| s.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        at.check_zip(&zip, &params)?;
        let figure = FigureText::read(file, text, &table)?;
        let mut sc = Scenario {
            file: file.to_string(),
            text: text.to_string(),
            name,
            params,
            zip,
            seeds,
            figure,
        };
        if sc.seeds.is_empty() {
            let seed = table
                .get("scenario")
                .and_then(|s| s.get("seed"))
                .and_then(|s| s.as_integer())
                .unwrap_or(1);
            sc.seeds.push(seed.max(0) as u64);
        }
        // Every point must build.
        for p in sc.points() {
            sc.build(&p, sc.seeds[0])?;
        }
        Ok(sc)
    }

    /// Every combination of the swept parameters (the first parameter varies
    /// slowest); zipped parameters advance together as one.
    pub fn points(&self) -> Vec<Point> {
        let mut points = vec![Point { values: Vec::new() }];
        for (name, values) in &self.params {
            let zip = self.zip.iter().find(|g| g.contains(name));
            let zipped = zip.is_some();
            if zip.is_some_and(|g| g.first() != Some(name)) {
                continue; // expanded with the first of its group
            }
            let group: Vec<&(String, Vec<toml::Value>)> = zip
                .into_iter()
                .flatten()
                .filter_map(|z| self.params.iter().find(|(n, _)| n == z))
                .collect();
            let mut next = Vec::new();
            for p in &points {
                for (i, v) in values.iter().enumerate() {
                    let mut q = p.clone();
                    if zipped {
                        for (n, vs) in &group {
                            q.values.push((n.clone(), vs[i].clone()));
                        }
                    } else {
                        q.values.push((name.clone(), v.clone()));
                    }
                    next.push(q);
                }
            }
            points = next;
        }
        // Report values in declaration order whatever the zip order.
        for p in &mut points {
            p.values
                .sort_by_key(|(n, _)| self.params.iter().position(|(m, _)| m == n));
        }
        points
    }

    /// The point that sets `overrides` and the first value of every other
    /// parameter. A zipped parameter set to one of its listed values brings
    /// its group's others along (their values at the same place in their
    /// lists) unless they are set too; set to a value not in its list, the
    /// others of its group must be set as well, since none of their values
    /// goes with it. Unknown names are errors.
    pub fn point_with(&self, overrides: &[(String, String)]) -> Result<Point, ScenarioError> {
        let err = |key: &str, message: String| ScenarioError {
            file: self.file.clone(),
            line: None,
            key: key.to_string(),
            message,
        };
        let mut p = Point { values: Vec::new() };
        for (name, values) in &self.params {
            p.values.push((name.clone(), values[0].clone()));
        }
        let set = |p: &mut Point, name: &str, v: toml::Value| {
            if let Some(slot) = p.values.iter_mut().find(|(n, _)| n == name) {
                slot.1 = v;
            }
        };
        let explicit = |name: &str| overrides.iter().any(|(k, _)| k == name);
        // The group partners first, so an explicit value always wins.
        for (k, v) in overrides {
            let Some((_, values)) = self.params.iter().find(|(n, _)| n == k) else {
                return Err(err(k, self.unknown_parameter()));
            };
            let Some(group) = self.zip.iter().find(|g| g.contains(k)) else {
                continue;
            };
            let value = value_of(v);
            match values.iter().position(|x| same_value(x, &value)) {
                Some(i) => {
                    for partner in group.iter().filter(|n| !explicit(n)) {
                        if let Some((_, vs)) = self.params.iter().find(|(n, _)| n == partner) {
                            set(&mut p, partner, vs[i].clone());
                        }
                    }
                }
                None => {
                    if let Some(missing) = group.iter().find(|n| !explicit(n)) {
                        return Err(err(
                            k,
                            format!(
                                "`{v}` is not one of its listed values ({}), and it is zipped \
                                 with `{missing}`: set every parameter of its group ({}) or pick \
                                 a listed value",
                                values.iter().map(value_text).collect::<Vec<_>>().join(", "),
                                group.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        for (k, v) in overrides {
            set(&mut p, k, value_of(v));
        }
        Ok(p)
    }

    /// The message for a parameter the scenario does not sweep: which it does.
    fn unknown_parameter(&self) -> String {
        if self.params.is_empty() {
            "no such sweep parameter (this scenario sweeps none)".into()
        } else {
            let names: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
            format!("no such sweep parameter (known: {})", names.join(", "))
        }
    }

    /// Sweeps `name` over `values` instead of the file's list (read as
    /// `--set` reads a value); every point must still build. Unknown names,
    /// zipped parameters and empty lists are errors, which leave the
    /// scenario as it was.
    pub fn sweep_over(&mut self, name: &str, values: &[String]) -> Result<(), ScenarioError> {
        let err = |message: &str| ScenarioError {
            file: self.file.clone(),
            line: None,
            key: name.to_string(),
            message: message.into(),
        };
        if values.is_empty() {
            return Err(err("an empty list of values"));
        }
        if self.zip.iter().any(|g| g.iter().any(|n| n == name)) {
            return Err(err(
                "a zipped parameter's values change only with its group's",
            ));
        }
        let Some(k) = self.params.iter().position(|(n, _)| n == name) else {
            return Err(err(&self.unknown_parameter()));
        };
        let new = values.iter().map(|v| value_of(v)).collect();
        let old = std::mem::replace(&mut self.params[k].1, new);
        for p in self.points() {
            if let Err(e) = self.build(&p, self.seeds[0]) {
                self.params[k].1 = old;
                return Err(e);
            }
        }
        Ok(())
    }
}

/// Whether two parameter values are the same: numbers by value (`2` is
/// `2.0`), others exactly.
fn same_value(a: &toml::Value, b: &toml::Value) -> bool {
    let num = |v: &toml::Value| match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    };
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// A parameter's value as given on a command line: an integer, a float, a
/// boolean, or else a string.
fn value_of(v: &str) -> toml::Value {
    v.parse::<i64>()
        .map(toml::Value::Integer)
        .or_else(|_| v.parse::<f64>().map(toml::Value::Float))
        .or_else(|_| v.parse::<bool>().map(toml::Value::Boolean))
        .unwrap_or_else(|_| toml::Value::String(v.to_string()))
}

/// Replaces `"${p}"` by the value and `${p}` inside strings by its text,
/// outside the `[sweep]` section.
pub(super) fn substitute(text: &str, point: &Point) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(text.len());
    let mut in_sweep = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            in_sweep = t.starts_with("[sweep");
        }
        if in_sweep || !line.contains("${") {
            out.push_str(line);
            continue;
        }
        let mut l = line.to_string();
        for (name, v) in &point.values {
            l = l.replace(&format!("\"${{{name}}}\""), &v.to_string());
            l = l.replace(&format!("${{{name}}}"), &value_text(v));
        }
        if let Some(at) = l.find("${") {
            let rest = &l[at + 2..];
            let name = rest.split('}').next().unwrap_or(rest).to_string();
            return Err((i + 1, name));
        }
        out.push_str(&l);
    }
    Ok(out)
}

/// A file's `[sweep]` table: its errors point at its header line.
struct SweepTable<'a> {
    file: &'a str,
    line: Option<usize>,
}

impl SweepTable<'_> {
    fn err(&self, key: &str, message: String) -> ScenarioError {
        ScenarioError {
            file: self.file.to_string(),
            line: self.line,
            key: key.to_string(),
            message,
        }
    }

    /// `seeds = [...]`: non-negative integers.
    fn seeds(&self, v: &toml::Value) -> Result<Vec<u64>, ScenarioError> {
        let list = v
            .as_array()
            .ok_or_else(|| self.err("sweep.seeds", "must be a list of integers".into()))?;
        list.iter()
            .map(|s| match s.as_integer() {
                Some(n) if n >= 0 => Ok(n as u64),
                _ => Err(self.err(
                    "sweep.seeds",
                    format!("`{s}` is not a non-negative integer"),
                )),
            })
            .collect()
    }

    /// `[sweep.params]`: each a non-empty list of values, in file order.
    fn params(&self, v: &toml::Value) -> Result<Vec<(String, Vec<toml::Value>)>, ScenarioError> {
        let t = v
            .as_table()
            .ok_or_else(|| self.err("sweep.params", "must be a table".into()))?;
        t.iter()
            .map(|(name, values)| {
                let list = values.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
                    self.err(
                        &format!("sweep.params.{name}"),
                        "must be a non-empty list".into(),
                    )
                })?;
                Ok((name.clone(), list.clone()))
            })
            .collect()
    }

    /// `zip = [...]`: one group (a list of names) or several (a list of
    /// lists of names); no name in two places.
    fn zip(&self, v: &toml::Value) -> Result<Vec<Vec<String>>, ScenarioError> {
        let list = v
            .as_array()
            .ok_or_else(|| self.err("sweep.zip", "must be a list of parameter names".into()))?;
        let groups: Vec<&toml::Value> = if list.iter().all(|g| g.is_array()) && !list.is_empty() {
            list.iter().collect()
        } else {
            vec![v]
        };
        let mut zip: Vec<Vec<String>> = Vec::new();
        for g in groups {
            let mut group = Vec::new();
            for n in g.as_array().into_iter().flatten() {
                let name = n.as_str().ok_or_else(|| {
                    self.err("sweep.zip", format!("`{n}` is not a parameter name"))
                })?;
                if zip.iter().flatten().any(|z| z == name) || group.iter().any(|z| z == name) {
                    return Err(self.err("sweep.zip", format!("`{name}` is zipped twice")));
                }
                group.push(name.to_string());
            }
            zip.push(group);
        }
        Ok(zip)
    }

    /// Every zipped name is a parameter, and a group's lists have one
    /// length.
    fn check_zip(
        &self,
        zip: &[Vec<String>],
        params: &[(String, Vec<toml::Value>)],
    ) -> Result<(), ScenarioError> {
        for group in zip {
            let mut zip_len = None;
            for z in group {
                let Some((_, values)) = params.iter().find(|(n, _)| n == z) else {
                    return Err(self.err("sweep.zip", format!("`{z}` is not a sweep parameter")));
                };
                if *zip_len.get_or_insert(values.len()) != values.len() {
                    return Err(self.err(
                        "sweep.zip",
                        "zipped parameters must have lists of the same length".into(),
                    ));
                }
            }
        }
        Ok(())
    }
}
