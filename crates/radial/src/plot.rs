//! Line plots in the papers' style, as PNG and SVG (plotters with an embedded
//! DejaVu Sans, so no system fonts are needed).

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::error::CliError;

static FONT: Once = Once::new();

pub(crate) fn ensure_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        if register_font("sans-serif", FontStyle::Normal, bytes).is_err() {
            // Without the font plotters draws no text; the curves still come out.
        }
    });
}

/// One curve.
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points, x ascending.
    pub points: Vec<(f64, f64)>,
}

/// A figure: title, axis labels, curves.
pub struct Figure<'a> {
    /// Title above the plot.
    pub title: &'a str,
    /// X-axis label.
    pub x_label: &'a str,
    /// Y-axis label.
    pub y_label: &'a str,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Curves.
    pub series: &'a [Series],
}

/// How one curve is drawn.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Its colour.
    pub color: RGBColor,
    /// Dashed instead of solid.
    pub dashed: bool,
}

/// What a figure shows beyond its curves.
#[derive(Default)]
pub struct Decor<'a> {
    /// Spans of x (start, end, label): shaded in turn, labelled at the top.
    pub spans: &'a [(f64, f64, &'a str)],
    /// Moments marked by a vertical dashed line.
    pub marks: &'a [f64],
    /// Each curve's style, by index (curves beyond take the palette).
    pub styles: &'a [Style],
    /// The legend in a column right of the plot, off the data.
    pub legend_right: bool,
}

/// Protocols' colours: the same protocol has the same colour in every
/// figure, the CLI's and the Python package's (`radial.COLOURS`).
pub fn protocol_color(name: &str) -> RGBColor {
    let [r, g, b] = radial_sim::metrics::protocol_colour(name).unwrap_or([60, 60, 60]);
    RGBColor(r, g, b)
}

pub(crate) const COLORS: [RGBColor; 8] = [
    RGBColor(0, 90, 181),
    RGBColor(220, 50, 32),
    RGBColor(0, 150, 80),
    RGBColor(150, 60, 170),
    RGBColor(230, 140, 0),
    RGBColor(60, 60, 60),
    RGBColor(0, 170, 190),
    RGBColor(140, 90, 40),
];

/// A number as an axis or a table shows it: no trailing zeros (`20`, not
/// `20.0`; `0.5`, not `0.500000`), at most six decimals.
pub fn number(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// Writes `stem.png` and `stem.svg`.
pub fn line_plot(stem: &Path, fig: &Figure<'_>) -> Result<(), CliError> {
    line_plot_with(stem, fig, &Decor::default())
}

/// Writes `stem.png` and `stem.svg`, with `decor`.
pub fn line_plot_with(stem: &Path, fig: &Figure<'_>, decor: &Decor<'_>) -> Result<(), CliError> {
    ensure_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let size = if decor.legend_right {
        (1060, 560)
    } else {
        (900, 560)
    };
    draw(
        BitMapBackend::new(&png, size).into_drawing_area(),
        fig,
        decor,
    )
    .map_err(|e| CliError::Failed(format!("{}: {e}", png.display())))?;
    draw(SVGBackend::new(&svg, size).into_drawing_area(), fig, decor)
        .map_err(|e| CliError::Failed(format!("{}: {e}", svg.display())))?;
    Ok(())
}

/// Curve `i`'s marker: circles on every point of a short curve; on a long
/// one a dozen, shaped per curve (circle, triangle, cross, square).
fn marker_shape(fig: &Figure<'_>, i: usize) -> usize {
    let long = fig.series.get(i).is_some_and(|s| s.points.len() > 60);
    if long {
        i % 4
    } else {
        0
    }
}

/// Curve `i`'s style: the decor's, else its protocol's colour when the
/// curve is named for one, else the palette's.
fn style_of(fig: &Figure<'_>, decor: &Decor<'_>, i: usize) -> Style {
    decor.styles.get(i).copied().unwrap_or_else(|| {
        let label = fig.series.get(i).map_or("", |s| s.label.as_str());
        let color = radial_sim::metrics::protocol_colour(label)
            .map_or(COLORS[i % COLORS.len()], |[r, g, b]| RGBColor(r, g, b));
        Style {
            color,
            dashed: false,
        }
    })
}

fn bounds(fig: &Figure<'_>) -> (f64, f64, f64) {
    let xs = fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs {
        if !fig.log_x || x > 0.0 {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if !lo.is_finite() {
        (lo, hi) = (if fig.log_x { 1.0 } else { 0.0 }, 1.0);
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let ymax = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0_f64, f64::max);
    (lo, hi, if ymax > 0.0 { ymax * 1.1 } else { 1.0 })
}

fn draw<DB: DrawingBackend>(
    whole: DrawingArea<DB, plotters::coord::Shift>,
    fig: &Figure<'_>,
    decor: &Decor<'_>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    whole.fill(&WHITE)?;
    let (area, legend) = if decor.legend_right {
        let (w, _) = whole.dim_in_pixel();
        let (a, l) = whole.split_horizontally(w - 200);
        (a, Some(l))
    } else {
        (whole.clone(), None)
    };
    let (x0, x1, mut y1) = bounds(fig);
    if !decor.spans.is_empty() {
        y1 *= 1.08; // room for the spans' labels
    }
    let mut builder = ChartBuilder::on(&area);
    builder
        .caption(fig.title, ("sans-serif", 22))
        .margin(18)
        .x_label_area_size(48)
        .y_label_area_size(64);
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(fig.x_label)
                .y_desc(fig.y_label)
                .x_label_formatter(&|v| number(*v))
                .y_label_formatter(&|v| number(*v))
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(RGBColor(235, 235, 235))
                .draw()?;
            for (k, &(a, b, label)) in decor.spans.iter().enumerate() {
                if k % 2 == 1 {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(a, 0.0), (b, y1)],
                        RGBColor(120, 120, 120).mix(0.10).filled(),
                    )))?;
                }
                chart.draw_series(std::iter::once(Text::new(
                    label.to_string(),
                    (a.max(x0) + (x1 - x0) * 0.006, y1 * 0.985),
                    ("sans-serif", 13).into_font().color(&RGBColor(70, 70, 70)),
                )))?;
            }
            for &m in decor.marks {
                chart.draw_series(DashedLineSeries::new(
                    vec![(m, 0.0), (m, y1 * 0.94)],
                    5,
                    4,
                    RGBColor(110, 110, 110).stroke_width(1),
                ))?;
            }
            for (i, s) in fig.series.iter().enumerate() {
                let st = style_of(fig, decor, i);
                let c = st.color;
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| !fig.log_x || p.0 > 0.0)
                    .collect();
                if st.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(pts.clone(), 8, 5, c.stroke_width(2)))?
                        .label(s.label.clone())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 8, y)], c.stroke_width(2))
                        });
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                        .label(s.label.clone())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                        });
                }
                // Every point of a short curve; on a long one a dozen,
                // shaped per curve and staggered, so curves that lie on
                // each other can still be told apart.
                let marked: Vec<(f64, f64)> = if pts.len() <= 60 {
                    pts.clone()
                } else {
                    let step = pts.len() / 12;
                    let offset = step * i / fig.series.len().max(1);
                    pts.iter().skip(offset).step_by(step).copied().collect()
                };
                match marker_shape(fig, i) {
                    0 => {
                        chart.draw_series(marked.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                    }
                    1 => {
                        chart.draw_series(
                            marked
                                .iter()
                                .map(|&p| TriangleMarker::new(p, 5, c.filled())),
                        )?;
                    }
                    2 => {
                        chart.draw_series(
                            marked.iter().map(|&p| Cross::new(p, 4, c.stroke_width(2))),
                        )?;
                    }
                    _ => {
                        chart.draw_series(marked.iter().map(|&p| {
                            EmptyElement::at(p)
                                + Rectangle::new([(-3, -3), (3, 3)], c.stroke_width(2))
                        }))?;
                    }
                }
            }
            if legend.is_none() {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 15))
                    .position(SeriesLabelPosition::LowerLeft)
                    .draw()?;
            }
        }};
    }
    if fig.log_x {
        finish!(builder.build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)?);
    } else {
        finish!(builder.build_cartesian_2d(x0..x1, 0.0..y1)?);
    }
    if let Some(l) = legend {
        draw_legend(&l, fig, decor)?;
    }
    whole.present()?;
    Ok(())
}

/// The legend as a column of its own: a sample of each curve's line and
/// its label, wrapped to the column's width.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    fig: &Figure<'_>,
    decor: &Decor<'_>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let font = ("sans-serif", 14).into_font();
    let mut y = 70;
    for (i, s) in fig.series.iter().enumerate() {
        let st = style_of(fig, decor, i);
        let sample: Vec<(i32, i32)> = vec![(4, y + 8), (34, y + 8)];
        if st.dashed {
            area.draw(&PathElement::new(
                vec![(4, y + 8), (14, y + 8)],
                st.color.stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(20, y + 8), (30, y + 8)],
                st.color.stroke_width(2),
            ))?;
        } else {
            area.draw(&PathElement::new(sample, st.color.stroke_width(2)))?;
        }
        // The curve's marker, as on the plot.
        let (at, c) = ((19, y + 8), st.color);
        match marker_shape(fig, i) {
            0 => area.draw(&Circle::new(at, 3, c.filled()))?,
            1 => area.draw(&TriangleMarker::new(at, 5, c.filled()))?,
            2 => area.draw(&Cross::new(at, 4, c.stroke_width(2)))?,
            _ => area.draw(
                &(EmptyElement::at(at) + Rectangle::new([(-3, -3), (3, 3)], c.stroke_width(2))),
            )?,
        }
        for line in wrap(&s.label, 20) {
            area.draw(&Text::new(line, (42, y), font.clone()))?;
            y += 18;
        }
        y += 8;
    }
    Ok(())
}

/// `text` cut into lines of at most `width` characters at spaces.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod number_tests {
    use super::number;

    #[test]
    fn ticks_and_table_cells_drop_trailing_zeros() {
        assert_eq!(number(20.0), "20");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(0.01 * 100.0), "1");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(2.25), "2.25");
    }
}
