//! Grouped bar charts, for categorical comparisons (the league's cases):
//! one group of bars per case, named on the axis, one bar per series, as
//! PNG and SVG.

use std::path::Path;

use plotters::prelude::*;

use crate::error::CliError;
use crate::plot::{ensure_font, number, wrap, COLORS};

/// A grouped bar chart.
pub struct Bars<'a> {
    /// Title above the chart.
    pub title: &'a str,
    /// Y-axis label.
    pub y_label: &'a str,
    /// The groups, left to right, named under the axis.
    pub groups: &'a [String],
    /// Each series: its legend label and its value in each group (none
    /// leaves a gap).
    pub series: &'a [(String, Vec<Option<f64>>)],
    /// A dashed horizontal reference line (e.g. 1.0 for Ideal), if any.
    pub reference: Option<f64>,
}

/// Width of the chart per group, in pixels.
const GROUP_PX: u32 = 130;

/// Writes `stem.png` and `stem.svg`.
pub fn bar_plot(stem: &Path, bars: &Bars<'_>) -> Result<(), CliError> {
    ensure_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let width = 260 + GROUP_PX * bars.groups.len().max(1) as u32;
    let size = (width, 600);
    draw(BitMapBackend::new(&png, size).into_drawing_area(), bars)
        .map_err(|e| CliError::Failed(format!("{}: {e}", png.display())))?;
    draw(SVGBackend::new(&svg, size).into_drawing_area(), bars)
        .map_err(|e| CliError::Failed(format!("{}: {e}", svg.display())))?;
    Ok(())
}

/// Series `k`'s colour: its protocol's, else the palette's.
fn colour(bars: &Bars<'_>, k: usize) -> RGBColor {
    radial_sim::metrics::protocol_colour(&bars.series[k].0)
        .map_or(COLORS[k % COLORS.len()], |[r, g, b]| RGBColor(r, g, b))
}

fn draw<DB: DrawingBackend>(
    whole: DrawingArea<DB, plotters::coord::Shift>,
    bars: &Bars<'_>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    whole.fill(&WHITE)?;
    let (w, _) = whole.dim_in_pixel();
    let (area, legend) = whole.split_horizontally(w - 180);
    let n = bars.groups.len().max(1) as f64;
    let top = bars
        .series
        .iter()
        .flat_map(|s| s.1.iter().flatten())
        .chain(bars.reference.iter())
        .fold(0.0_f64, |a, &b| a.max(b));
    let top = if top > 0.0 { top * 1.08 } else { 1.0 };
    let mut chart = ChartBuilder::on(&area)
        .caption(bars.title, ("sans-serif", 22))
        .margin(18)
        .x_label_area_size(70)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..n, 0.0..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(bars.y_label)
        .y_label_formatter(&|v| number(*v))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let k = bars.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (s, (_, values)) in bars.series.iter().enumerate() {
        let c = colour(bars, s);
        chart.draw_series(values.iter().enumerate().filter_map(|(g, v)| {
            let v = (*v)?;
            let x0 = g as f64 + 0.1 + s as f64 * width;
            Some(Rectangle::new([(x0, 0.0), (x0 + width, v)], c.filled()))
        }))?;
    }
    if let Some(r) = bars.reference {
        chart.draw_series(DashedLineSeries::new(
            vec![(0.0, r), (n, r)],
            6,
            4,
            RGBColor(90, 90, 90).stroke_width(1),
        ))?;
    }
    // The groups' names under the axis, wrapped, centred on each group.
    let font = ("sans-serif", 13).into_font();
    for (g, name) in bars.groups.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
        for (i, line) in wrap(name, 16).into_iter().enumerate() {
            let dx = (line.chars().count() as i32 * 7) / 2;
            area.draw(&Text::new(
                line,
                (x - dx, y + 8 + 16 * i as i32),
                font.clone(),
            ))?;
        }
    }
    let font = ("sans-serif", 14).into_font();
    for (s, (label, _)) in bars.series.iter().enumerate() {
        let y = 70 + 24 * s as i32;
        legend.draw(&Rectangle::new(
            [(4, y + 2), (18, y + 14)],
            colour(bars, s).filled(),
        ))?;
        legend.draw(&Text::new(label.clone(), (26, y), font.clone()))?;
    }
    whole.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_group_is_named_and_each_series_in_the_legend() {
        let dir = std::env::temp_dir().join(format!("radial-bars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let groups = vec![
            "two 20 Mbit/s, 300 seg.".to_string(),
            "three paths".to_string(),
        ];
        let series = vec![
            ("r2cp".to_string(), vec![Some(0.5), Some(0.9)]),
            ("ptcp".to_string(), vec![Some(0.8), None]),
        ];
        bar_plot(
            &dir.join("b"),
            &Bars {
                title: "t",
                y_label: "goodput / Ideal",
                groups: &groups,
                series: &series,
                reference: Some(1.0),
            },
        )
        .unwrap();
        let svg = std::fs::read_to_string(dir.join("b.svg")).unwrap();
        for text in ["two 20 Mbit/s,", "300 seg.", "three paths", "r2cp", "ptcp"] {
            assert!(svg.contains(text), "{text}");
        }
        // Three bars and the two legend swatches, in the series' colours.
        assert_eq!(svg.matches("fill=\"#005AB5\"").count(), 3, "{svg}");
        assert!(std::fs::metadata(dir.join("b.png")).unwrap().len() > 1000);
        let _ = std::fs::copy(
            dir.join("b.png"),
            std::env::temp_dir().join("radial-bars.png"),
        );
    }
}
