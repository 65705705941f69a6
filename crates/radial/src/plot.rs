//! Line plots in the papers' style, as PNG and SVG (plotters with an embedded
//! DejaVu Sans, so no system fonts are needed).

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::cli::CliError;

static FONT: Once = Once::new();

fn ensure_font() {
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

const COLORS: [RGBColor; 8] = [
    RGBColor(0, 90, 181),
    RGBColor(220, 50, 32),
    RGBColor(0, 150, 80),
    RGBColor(150, 60, 170),
    RGBColor(230, 140, 0),
    RGBColor(60, 60, 60),
    RGBColor(0, 170, 190),
    RGBColor(140, 90, 40),
];

/// Writes `stem.png` and `stem.svg`.
pub fn line_plot(stem: &Path, fig: &Figure<'_>) -> Result<(), CliError> {
    ensure_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    draw(
        BitMapBackend::new(&png, (900, 560)).into_drawing_area(),
        fig,
    )
    .map_err(|e| CliError::Failed(format!("{}: {e}", png.display())))?;
    draw(SVGBackend::new(&svg, (900, 560)).into_drawing_area(), fig)
        .map_err(|e| CliError::Failed(format!("{}: {e}", svg.display())))?;
    Ok(())
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
    area: DrawingArea<DB, plotters::coord::Shift>,
    fig: &Figure<'_>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (x0, x1, y1) = bounds(fig);
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
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(RGBColor(235, 235, 235))
                .draw()?;
            for (i, s) in fig.series.iter().enumerate() {
                let c = COLORS[i % COLORS.len()];
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| !fig.log_x || p.0 > 0.0)
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                    .label(s.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                    });
                if pts.len() <= 60 {
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                }
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 15))
                .position(SeriesLabelPosition::LowerLeft)
                .draw()?;
        }};
    }
    if fig.log_x {
        finish!(builder.build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)?);
    } else {
        finish!(builder.build_cartesian_2d(x0..x1, 0.0..y1)?);
    }
    area.present()?;
    Ok(())
}
