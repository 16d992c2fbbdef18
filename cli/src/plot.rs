//! SVG charts with `plotters` (its SVG backend only).

use std::collections::BTreeMap;
use std::path::Path;

use hrwhash::{RampPlan, View};
use plotters::chart::SeriesLabelStyle;
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::CliError;
use crate::output::show;

/// Most node lines drawn; with more nodes, the ones whose weight changes most are drawn.
const MAX_LINES: usize = 12;

fn failed(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("{}: cannot draw the plot: {e}", path.display()))
}

/// Draws the legend, boxed alike in every plot, and writes the file.
fn finish<'a, CT: CoordTranslate>(
    legend: &mut SeriesLabelStyle<'a, '_, SVGBackend<'a>, CT>,
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    path: &Path,
) -> Result<(), CliError> {
    legend
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| failed(path, e))?;
    root.present().map_err(|e| failed(path, e))
}

/// Top: the share of keys each step moves, against the limit. Bottom: every node's weight per step.
pub fn ramp(plan: &RampPlan, from: &View, path: &Path) -> Result<(), CliError> {
    let steps = plan.steps();
    // Weight of every id at step 0 (the old view) and after each step (0 when not listed).
    let mut lines: BTreeMap<Vec<u8>, Vec<f64>> = BTreeMap::new();
    let columns = steps.len() + 1;
    for n in from.placement().node_specs() {
        lines.entry(n.id().to_vec()).or_insert(vec![0.0; columns])[0] = n.weight().to_f64();
    }
    for i in 0..steps.len() {
        for (id, w) in plan.weights(i).unwrap_or_default() {
            lines.entry(id.to_vec()).or_insert(vec![0.0; columns])[i + 1] = w.to_f64();
        }
    }
    let mut drawn: Vec<(Vec<u8>, Vec<f64>)> = lines.into_iter().collect();
    let change = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        hi - lo
    };
    if drawn.len() > MAX_LINES {
        drawn.sort_by(|a, b| change(&b.1).total_cmp(&change(&a.1)));
        drawn.truncate(MAX_LINES);
        drawn.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let max_weight = drawn
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        .max(1e-9);
    let max_moved = steps
        .iter()
        .map(|s| s.moved)
        .fold(plan.max_move(), f64::max);

    let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(path, e))?;
    let (top, bottom) = root.split_vertically(300);
    let last = steps.len().max(1) as f64;

    let mut moved = ChartBuilder::on(&top)
        .caption(
            format!(
                "keys moved per step (limit {:.2}%, total {:.2}%, direct {:.2}%)",
                100.0 * plan.max_move(),
                100.0 * plan.total_moved(),
                100.0 * plan.direct_moved()
            ),
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5f64..last + 0.5, 0f64..100.0 * max_moved * 1.1)
        .map_err(|e| failed(path, e))?;
    moved
        .configure_mesh()
        .x_desc("step")
        .y_desc("% of keys")
        .draw()
        .map_err(|e| failed(path, e))?;
    moved
        .draw_series(steps.iter().enumerate().map(|(i, s)| {
            let x = (i + 1) as f64;
            Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, 100.0 * s.moved)],
                BLUE.filled(),
            )
        }))
        .map_err(|e| failed(path, e))?;
    moved
        .draw_series(LineSeries::new(
            [
                (0.5, 100.0 * plan.max_move()),
                (last + 0.5, 100.0 * plan.max_move()),
            ],
            RED.stroke_width(1),
        ))
        .map_err(|e| failed(path, e))?;

    let mut weights = ChartBuilder::on(&bottom)
        .caption(
            "node weights per step (0: the current view)",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..last, 0f64..max_weight * 1.1)
        .map_err(|e| failed(path, e))?;
    weights
        .configure_mesh()
        .x_desc("step")
        .y_desc("weight")
        .draw()
        .map_err(|e| failed(path, e))?;
    for (n, (id, values)) in drawn.iter().enumerate() {
        let color = Palette99::pick(n).to_rgba();
        weights
            .draw_series(LineSeries::new(
                values.iter().enumerate().map(|(i, &w)| (i as f64, w)),
                color.stroke_width(2),
            ))
            .map_err(|e| failed(path, e))?
            .label(show(id))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    finish(&mut weights.configure_series_labels(), &root, path)
}

/// Series colours of [`node_loads`], in series order.
const SERIES: [RGBColor; 3] = [
    RGBColor(70, 110, 200),
    RGBColor(230, 140, 40),
    RGBColor(80, 170, 90),
];

/// Height of one bar, and the gap between two nodes' groups of bars, in pixels.
const BAR: usize = 9;
const GAP: usize = 8;
/// Ids longer than this are cut, so the label column keeps its width.
const MAX_LABEL: usize = 40;

/// A node id as its label: the text, cut to [`MAX_LABEL`] characters.
fn label(id: &[u8]) -> String {
    let text = show(id);
    match text.char_indices().nth(MAX_LABEL) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// One row of bars per node (`rows`: id and one count per series), the node's id at its left,
/// with a legend: how many keys (or replicas) each node holds before and after a change. The
/// chart grows in height with the nodes, so every node is named at any fleet size and no two
/// labels overlap. Every node gets one bar per series, also a bar of length 0, so no node
/// silently disappears from the chart.
pub fn node_loads<const S: usize>(
    path: &Path,
    caption: &str,
    unit: &str,
    series: &[&str; S],
    rows: &[(Vec<u8>, [u64; S])],
) -> Result<(), CliError> {
    let n = rows.len().max(1);
    let top = rows
        .iter()
        .flat_map(|(_, c)| c.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let labels: Vec<String> = rows.iter().map(|(id, _)| label(id)).collect();
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let label_area = (7 * widest + 20).clamp(60, 320) as u32;
    let height = (120 + n * (S * BAR + GAP)).clamp(400, 60_000) as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(path, e))?;
    // Node i is the row from n - i - 1 to n - i, so the first node is at the top.
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(label_area)
        .build_cartesian_2d(0f64..top * 1.3, 0f64..n as f64)
        .map_err(|e| failed(path, e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc(unit)
        .draw()
        .map_err(|e| failed(path, e))?;
    let row = |i: usize| (n - i - 1) as f64;
    let style =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    chart
        .draw_series(
            labels
                .iter()
                .enumerate()
                .map(|(i, l)| Text::new(l.clone(), (-0.01 * top, row(i) + 0.5), style.clone())),
        )
        .map_err(|e| failed(path, e))?;
    let bar = 0.8 / S as f64;
    for (s, name) in series.iter().enumerate() {
        let color = SERIES[s % SERIES.len()];
        chart
            .draw_series(rows.iter().enumerate().map(|(i, (_, counts))| {
                let y = row(i) + 0.9 - s as f64 * bar;
                Rectangle::new([(0.0, y - bar), (counts[s] as f64, y)], color.filled())
            }))
            .map_err(|e| failed(path, e))?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    let mut legend = chart.configure_series_labels();
    finish(
        legend.position(SeriesLabelPosition::UpperRight),
        &root,
        path,
    )
}
