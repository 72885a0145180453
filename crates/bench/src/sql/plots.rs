//! PNG plots of a `betula-bench sql` run (cargo feature `plots`: plotters' bitmap backend, text drawn with
//! ab_glyph from a system TrueType font): throughput over time per engine for every workload with a
//! per-second series, latency percentiles (p50 and p99) per engine, and the data directory's size after
//! every workload. Without the feature, or without a font, `write` says why and the report says so.

use super::EngineResult;
use std::path::Path;

/// A drawn file: (file name, caption).
pub type Plot = (String, String);

/// The data of a chart, independent of the drawing library (unit-tested).
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub mod data {
    use super::super::{EngineResult, Workload};

    /// Workloads that have a per-second series on at least one engine, in first-seen order.
    pub fn series_workloads(runs: &[EngineResult]) -> Vec<Workload> {
        let mut out = Vec::new();
        for er in runs {
            for r in &er.results {
                if !r.series.is_empty() && !out.contains(&r.workload) {
                    out.push(r.workload);
                }
            }
        }
        out
    }

    /// Latency labels over all engines, in first-seen order, each prefixed with its workload.
    pub fn latency_labels(runs: &[EngineResult]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for er in runs {
            for r in &er.results {
                for (l, _, _) in &r.latencies {
                    let k = format!("{}: {l}", r.workload.name());
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
            }
        }
        out
    }

    /// (p50, p99) of `label` (as from `latency_labels`) on one engine.
    pub fn latency_of(er: &EngineResult, label: &str) -> Option<(f64, f64)> {
        er.results.iter().find_map(|r| {
            r.latencies.iter().find_map(|(l, a, b)| {
                (format!("{}: {l}", r.workload.name()) == label).then_some((*a, *b))
            })
        })
    }

    /// Workloads with a datadir size on at least one engine.
    pub fn size_workloads(runs: &[EngineResult]) -> Vec<Workload> {
        let mut out = Vec::new();
        for er in runs {
            for r in &er.results {
                if r.datadir_after.is_some() && !out.contains(&r.workload) {
                    out.push(r.workload);
                }
            }
        }
        out
    }
}

/// Where the font comes from (DejaVu Sans, Debian's fonts-dejavu-core), or BETULA_BENCH_FONT.
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub fn font_path() -> Option<std::path::PathBuf> {
    if let Ok(p) = std::env::var("BETULA_BENCH_FONT") {
        return Some(p.into());
    }
    [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
    ]
    .into_iter()
    .map(std::path::PathBuf::from)
    .find(|p| p.exists())
}

#[cfg(not(feature = "plots"))]
pub fn write(_dir: &Path, _stem: &str, _runs: &[EngineResult]) -> Result<Vec<Plot>, String> {
    Err("this betula-bench was built without the `plots` feature (cargo build --release -p betula-bench --features plots)".into())
}

#[cfg(feature = "plots")]
pub fn write(dir: &Path, stem: &str, runs: &[EngineResult]) -> Result<Vec<Plot>, String> {
    draw::register_font()?;
    let mut out = Vec::new();
    for w in data::series_workloads(runs) {
        let file = format!("{stem}-{}-throughput.png", w.name());
        draw::throughput(&dir.join(&file), w, runs).map_err(|e| format!("{file}: {e}"))?;
        out.push((
            file,
            format!(
                "{}: {} per second, per engine",
                w.name(),
                if w == super::Workload::Sysbench {
                    "transactions"
                } else {
                    "rows"
                }
            ),
        ));
    }
    if !data::latency_labels(runs).is_empty() {
        let file = format!("{stem}-latency.png");
        draw::latency(&dir.join(&file), runs).map_err(|e| format!("{file}: {e}"))?;
        out.push((
            file,
            "latency p50 (circle) and p99 (triangle), ms, log scale".into(),
        ));
    }
    if !data::size_workloads(runs).is_empty() {
        let file = format!("{stem}-datadir.png");
        draw::sizes(&dir.join(&file), runs).map_err(|e| format!("{file}: {e}"))?;
        out.push((file, "data directory size after each workload (MiB, cumulative: workloads run one after the other on one server)".into()));
    }
    Ok(out)
}

#[cfg(feature = "plots")]
mod draw {
    use super::super::{EngineResult, Workload};
    use super::data;
    use plotters::prelude::*;
    use std::path::Path;

    type DrawResult = Result<(), Box<dyn std::error::Error>>;

    pub fn register_font() -> Result<(), String> {
        let path = super::font_path().ok_or(
            "no TrueType font found (apt-get install fonts-dejavu-core, or set BETULA_BENCH_FONT)",
        )?;
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{}: not a usable font", path.display()))
    }

    fn color(i: usize) -> RGBColor {
        [
            RGBColor(0x1b, 0x9e, 0x77),
            RGBColor(0xd9, 0x5f, 0x02),
            RGBColor(0x75, 0x70, 0xb3),
            RGBColor(0xe7, 0x29, 0x8a),
        ][i % 4]
    }

    pub fn throughput(path: &Path, w: Workload, runs: &[EngineResult]) -> DrawResult {
        let series: Vec<(&str, Vec<(u64, u64)>)> = runs
            .iter()
            .map(|er| {
                let s = er
                    .results
                    .iter()
                    .find(|r| r.workload == w)
                    .map(|r| r.series.iter().map(|&(t, n, _)| (t, n)).collect())
                    .unwrap_or_default();
                (er.engine.name(), s)
            })
            .collect();
        let max_t = series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.0))
            .max()
            .unwrap_or(1)
            .max(1);
        let max_y = series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.1))
            .max()
            .unwrap_or(1)
            .max(1);
        let root = BitMapBackend::new(path, (1000, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: throughput over time", w.name()),
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(0u64..max_t, 0u64..(max_y + max_y / 10))?;
        chart
            .configure_mesh()
            .x_desc("seconds")
            .y_desc(if w == Workload::Sysbench {
                "transactions/s"
            } else {
                "rows/s"
            })
            .label_style(("sans-serif", 14))
            .draw()?;
        for (i, (name, pts)) in series.into_iter().enumerate() {
            if pts.is_empty() {
                continue;
            }
            let c = color(i);
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        root.present()?;
        Ok(())
    }

    pub fn latency(path: &Path, runs: &[EngineResult]) -> DrawResult {
        let labels = data::latency_labels(runs);
        let n = labels.len();
        let all: Vec<f64> = runs
            .iter()
            .flat_map(|er| labels.iter().filter_map(|l| data::latency_of(er, l)))
            .flat_map(|(a, b)| [a, b])
            .filter(|v| *v > 0.0)
            .collect();
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min).max(1e-3) / 1.5;
        let hi = all.iter().copied().fold(0.0, f64::max).max(lo * 2.0) * 1.5;
        let root = BitMapBackend::new(path, (1200, 40 + 28 * n as u32 + 120)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("latency percentiles (p50 ●, p99 ▲)", ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(360)
            .build_cartesian_2d((lo..hi).log_scale(), -0.5f64..(n as f64 - 0.5))?;
        let labels2 = labels.clone();
        chart
            .configure_mesh()
            .x_desc("milliseconds (log scale)")
            .y_labels(n.max(1))
            .y_label_formatter(&move |y| {
                let i = y.round();
                if (y - i).abs() < 0.01 && i >= 0.0 {
                    labels2.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .label_style(("sans-serif", 13))
            .draw()?;
        let engines = runs.len().max(1) as f64;
        for (ei, er) in runs.iter().enumerate() {
            let c = color(ei);
            let off = (ei as f64 - (engines - 1.0) / 2.0) * 0.2;
            let pts: Vec<(usize, f64, f64)> = labels
                .iter()
                .enumerate()
                .filter_map(|(i, l)| data::latency_of(er, l).map(|(a, b)| (i, a, b)))
                .collect();
            chart.draw_series(pts.iter().map(|&(i, a, b)| {
                PathElement::new(
                    vec![(a.max(lo), i as f64 + off), (b.max(lo), i as f64 + off)],
                    c.stroke_width(1),
                )
            }))?;
            chart.draw_series(pts.iter().map(|&(i, _, b)| {
                TriangleMarker::new((b.max(lo), i as f64 + off), 5, c.filled())
            }))?;
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(i, a, _)| Circle::new((a.max(lo), i as f64 + off), 4, c.filled())),
                )?
                .label(er.engine.name())
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        root.present()?;
        Ok(())
    }

    pub fn sizes(path: &Path, runs: &[EngineResult]) -> DrawResult {
        let ws = data::size_workloads(runs);
        let n = ws.len();
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let max = runs
            .iter()
            .flat_map(|er| er.results.iter().filter_map(|r| r.datadir_after))
            .map(mib)
            .fold(1.0, f64::max);
        let root = BitMapBackend::new(path, (1000, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "bytes on disk: data directory after each workload",
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..max * 1.35)?;
        let names: Vec<&str> = ws.iter().map(|w| w.name()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n.max(1))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 0.01 && i >= 0.0 {
                    names
                        .get(i as usize)
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("MiB")
            .label_style(("sans-serif", 13))
            .draw()?;
        let engines = runs.len().max(1) as f64;
        let width = 0.8 / engines;
        for (ei, er) in runs.iter().enumerate() {
            let c = color(ei);
            let bars: Vec<(f64, f64)> = ws
                .iter()
                .enumerate()
                .filter_map(|(i, w)| {
                    let r = er.results.iter().find(|r| r.workload == *w)?;
                    Some((i as f64 - 0.4 + width * ei as f64, mib(r.datadir_after?)))
                })
                .collect();
            chart
                .draw_series(
                    bars.into_iter()
                        .map(|(x, v)| Rectangle::new([(x, 0.0), (x + width * 0.9, v)], c.filled())),
                )?
                .label(er.engine.name())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EngineResult, Workload, WorkloadResult};
    use super::*;
    use crate::peer::EngineKind;

    fn er(kind: EngineKind) -> EngineResult {
        let mut a = WorkloadResult::new(Workload::SensorStream);
        a.series = vec![(1, 100, None), (2, 120, None)];
        a.datadir_after = Some(1 << 20);
        let mut b = WorkloadResult::new(Workload::HotReads);
        b.latencies = vec![("q1".into(), 1.0, 2.0)];
        EngineResult {
            engine: kind,
            version: String::new(),
            config: String::new(),
            start_error: None,
            results: vec![a, b],
        }
    }

    #[test]
    fn chart_data() {
        let runs = vec![er(EngineKind::Betula), er(EngineKind::Innodb)];
        assert_eq!(data::series_workloads(&runs), vec![Workload::SensorStream]);
        assert_eq!(
            data::latency_labels(&runs),
            vec!["hot-reads: q1".to_string()]
        );
        assert_eq!(
            data::latency_of(&runs[1], "hot-reads: q1"),
            Some((1.0, 2.0))
        );
        assert_eq!(data::latency_of(&runs[1], "nope"), None);
        assert_eq!(data::size_workloads(&runs), vec![Workload::SensorStream]);
    }

    #[cfg(feature = "plots")]
    #[test]
    fn writes_pngs_when_a_font_exists() {
        if font_path().is_none() {
            eprintln!("no font: skipping the drawing check");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let runs = vec![er(EngineKind::Betula), er(EngineKind::Innodb)];
        let plots = write(dir.path(), "t", &runs).unwrap();
        assert_eq!(plots.len(), 3);
        for (f, _) in plots {
            let bytes = std::fs::read(dir.path().join(&f)).unwrap();
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{f}");
        }
    }
}
