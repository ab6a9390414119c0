//! Summaries of the measured frames, the markdown tables, verdicts, and
//! the JSON rows.

use std::fmt::Write as _;

use crate::figures::say;
use serde_json::json;

/// Median, min and max of some samples, in milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// `None` for no samples.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        };
        Some(Summary {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }

    fn json(&self) -> serde_json::Value {
        json!({ "median": self.median, "min": self.min, "max": self.max })
    }
}

/// What one run of one strategy measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Submit to GPU done.
    pub frame_ms: Summary,
    /// CPU time of everything the application thread did for the frame,
    /// submit included (the thread's own clock: time it was preempted does
    /// not count; wall-clock time where the platform has no such clock).
    pub cpu_ms: Summary,
    /// The renderer's part of it: `prepare` and `draw` (for the crate's
    /// strategies: `prepare`, `prepare_crowds` and `render`), without the
    /// application's animation, the encoder, the pass, `finish` and submit.
    pub renderer_cpu_ms: Summary,
    /// The whole span in wall-clock time.
    pub cpu_wall_ms: Summary,
    /// `CommandEncoder::finish` alone (part of `cpu_ms`): wgpu validates
    /// the recorded passes and encodes them for the driver here.
    pub finish_ms: Summary,
    /// The submit call alone (part of `cpu_ms`).
    pub submit_ms: Summary,
    /// CPU time all of the process's threads ran from the submit to GPU
    /// done: on a software adapter, the rasteriser's work, which (unlike
    /// the frame time) a busy machine does not inflate.
    pub frame_cpu_ms: Option<Summary>,
    /// GPU time of what the encoder recorded before the render pass (the
    /// resident crowds' compute passes), by timestamps, where the adapter
    /// writes them between passes.
    pub gpu_compute_ms: Option<Summary>,
    /// GPU time of the render pass, by timestamps at its ends, where the
    /// adapter has timestamp queries.
    pub gpu_draws_ms: Option<Summary>,
    /// The most bytes any measured frame wrote to the GPU.
    pub upload_bytes: u64,
    pub gpu_model_bytes: u64,
    /// GPU bytes held for the members (records, views' records and work),
    /// where the strategy keeps members on the GPU.
    pub member_gpu_bytes: Option<u64>,
    /// Vertex-shader invocations of one frame's render pass, where the
    /// adapter has pipeline statistics.
    pub vs_invocations: Option<u64>,
    /// Members in view, where the strategy culls.
    pub visible: Option<u32>,
    /// Members (instances) drawn at each level of detail, where the
    /// strategy says.
    pub per_level: Option<[u32; md2_wgpu::contract::MAX_LEVELS]>,
    /// Frame time and CPU time of each measured round, in order: every
    /// strategy of a table draws round k in turn, under the same load, so
    /// ratios are taken round by round (see [`spread`]).
    pub frame_rounds: Vec<f64>,
    pub cpu_rounds: Vec<f64>,
}

/// The ratio `a / b` taken round by round (same-load frames), summarised:
/// its median and its spread over the rounds.
pub fn spread(a: &[f64], b: &[f64]) -> Option<Summary> {
    let ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|&(_, &y)| y > 0.0)
        .map(|(x, y)| x / y)
        .collect();
    Summary::of(&ratios)
}

/// "1.97× (1.85–2.10)": a round-by-round ratio with its spread, or —.
pub fn ratio_spread(a: &[f64], b: &[f64]) -> String {
    match spread(a, b) {
        Some(s) => format!("{:.2}× ({:.2}–{:.2})", s.median, s.min, s.max),
        None => "—".into(),
    }
}

/// One row of a table.
#[derive(Clone, Debug)]
pub struct Row {
    pub section: &'static str,
    pub model: String,
    pub instances: usize,
    pub strategy: String,
    pub outcome: Result<Measured, String>,
}

impl Row {
    pub fn measured(&self) -> Option<&Measured> {
        self.outcome.as_ref().ok()
    }
}

/// The row of `strategy` at (`model`, `instances`) in `rows`, if it ran.
pub fn find<'a>(
    rows: &'a [Row],
    model: &str,
    instances: usize,
    strategy: &str,
) -> Option<&'a Measured> {
    rows.iter()
        .find(|r| r.model == model && r.instances == instances && r.strategy == strategy)
        .and_then(Row::measured)
}

/// The rows, as the JSON list `--json` writes.
pub fn json(rows: &[Row], adapter: &str) -> serde_json::Value {
    let list = rows
        .iter()
        .map(|row| {
            let mut value = json!({
                "section": row.section,
                "model": row.model,
                "instances": row.instances,
                "strategy": row.strategy,
                "adapter": adapter,
            });
            let fields = match &row.outcome {
                Ok(m) => json!({
                    "frame_ms": m.frame_ms.json(),
                    "cpu_ms": m.cpu_ms.json(),
                    "renderer_cpu_ms": m.renderer_cpu_ms.json(),
                    "cpu_wall_ms": m.cpu_wall_ms.json(),
                    "finish_ms": m.finish_ms.json(),
                    "submit_ms": m.submit_ms.json(),
                    "frame_cpu_ms": m.frame_cpu_ms.map(|s| s.json()),
                    "gpu_compute_ms": m.gpu_compute_ms.map(|s| s.json()),
                    "gpu_draws_ms": m.gpu_draws_ms.map(|s| s.json()),
                    "upload_bytes_per_frame": m.upload_bytes,
                    "gpu_model_bytes": m.gpu_model_bytes,
                    "vs_invocations_per_frame": m.vs_invocations,
                    "visible_members": m.visible,
                    "members_per_level": m.per_level,
                    "frame_ms_rounds": m.frame_rounds,
                    "cpu_ms_rounds": m.cpu_rounds,
                }),
                Err(e) => json!({ "error": e }),
            };
            if let (Some(v), serde_json::Value::Object(f)) = (value.as_object_mut(), fields) {
                v.extend(f);
            }
            value
        })
        .collect();
    serde_json::Value::Array(list)
}

/// What the columns mean, printed once.
pub const LEGEND: &str = "\
- frame ms: from the submit to the GPU having finished (wall clock), median \
(min–max) over the measured frames.
- CPU ms: the application thread's CPU time for the frame, from animating the \
crowd to the return of `queue.submit`. renderer CPU ms: the renderer's part of \
it (for gpu and resident the crate's `prepare`, `prepare_crowds` and `render` \
recording; for the baselines their equivalent: CPU interpolation, uploads, \
draw recording), without the application's clock sampling, the encoder, the \
pass, `finish` and the submit. CPU wall ms: the whole span by the wall clock.
- frame CPU-work ms: CPU time of all the process's threads during the frame \
time: on a software adapter the rasteriser's own work (steadier than the frame \
time on a busy machine); on a hardware GPU only driver overhead.
- GPU compute ms, GPU draw ms: the frame's GPU time split by timestamp \
queries, medians: what the encoder records before the render pass (the \
resident crowds' compute passes; next to nothing for the other strategies) \
and the render pass itself; — where the adapter has no timestamps (between \
passes, for the first).
- upload / frame: the most bytes any measured frame wrote to the GPU \
(`uploaded_bytes()`, plus the cpu baseline's vertices).
- VS / frame: vertex-shader invocations of one frame's render pass (pipeline \
statistics; — where the adapter has none). visible: members the resident \
crowd's compute pass found in view.
- GPU vertex data: gpu and resident, the file's packed frames (4 bytes per \
vertex per frame); static, float position and normal (24 bytes per vertex per \
frame); cpu, the posed float positions and normals of every instance (24 bytes \
per vertex per instance), with as much again in the staging memory it uploads \
them from.
";

/// "1.23 MiB".
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

/// Milliseconds with three significant digits or so.
pub fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.4}")
    }
}

/// "1.23×", or — where the divisor is not positive.
pub fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "—".into()
    }
}

/// A count with thousands separated: "1,234,567".
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "met" or "MISSED".
pub fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

/// The measurements table of `rows`.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str(
        "| model | instances | strategy | frame ms median (min–max) | CPU ms | renderer CPU ms \
         | CPU wall ms | frame CPU-work ms | GPU compute ms | GPU draw ms | upload / frame \
         | VS / frame | visible | GPU vertex data |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let _ = write!(
            out,
            "| {} | {} | {} | ",
            row.model,
            count(row.instances as u64),
            row.strategy
        );
        match &row.outcome {
            Ok(m) => {
                let _ = writeln!(
                    out,
                    "{} ({}–{}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    ms(m.frame_ms.median),
                    ms(m.frame_ms.min),
                    ms(m.frame_ms.max),
                    ms(m.cpu_ms.median),
                    ms(m.renderer_cpu_ms.median),
                    ms(m.cpu_wall_ms.median),
                    m.frame_cpu_ms.map_or("—".into(), |s| ms(s.median)),
                    m.gpu_compute_ms.map_or("—".into(), |s| ms(s.median)),
                    m.gpu_draws_ms.map_or("—".into(), |s| ms(s.median)),
                    bytes(m.upload_bytes),
                    m.vs_invocations.map_or("—".into(), count),
                    m.visible.map_or("—".into(), |v| count(v.into())),
                    bytes(m.gpu_model_bytes),
                );
            }
            Err(e) => {
                let _ = writeln!(out, "failed: {} | | | | | | | | | | |", e.replace('|', "/"));
            }
        }
    }
    out
}

/// A cost table's cell: what a variant measured against the same path
/// without it, `None` for a dash.
type CostCell = fn(&Measured, &Measured) -> Option<String>;

/// A markdown table of what each variant costs against the same path
/// without it: per model and path (`gpu`, `resident`), the frame time
/// (round by round, with its spread), the frame CPU-work and the
/// vertex-shader runs of `path + suffix` over those of `path + base`.
/// `variants` are (suffix, name) pairs; `base` is (suffix, name) too.
pub fn cost_table(
    rows: &[Row],
    models: &[&str],
    n: usize,
    base: (&str, &str),
    variants: &[(&str, &str)],
) -> String {
    use std::fmt::Write as _;
    // The measures in the table's order, each with its cell.
    let measures: [(&str, CostCell); 3] = [
        ("frame", |m: &Measured, without: &Measured| {
            Some(ratio_spread(&m.frame_rounds, &without.frame_rounds))
        }),
        ("frame CPU-work", |m: &Measured, without: &Measured| {
            let (a, b) = m.frame_cpu_ms.zip(without.frame_cpu_ms)?;
            Some(ratio(a.median, b.median))
        }),
        ("VS", |m: &Measured, without: &Measured| {
            let (a, b) = m.vs_invocations.zip(without.vs_invocations)?;
            Some(ratio(a as f64, b as f64))
        }),
    ];
    let mut head = String::from("| model | path |");
    let mut rule = String::from("|---|---|");
    for (measure, _) in measures {
        for (_, name) in variants {
            let _ = write!(head, " {measure} {name}/{} |", base.1);
            rule.push_str("---:|");
        }
    }
    let mut out = format!("{head}\n{rule}\n");
    for model in models {
        for path in ["gpu", "resident"] {
            let find = |suffix: &str| find(rows, model, n, &format!("{path}{suffix}"));
            let Some(without) = find(base.0) else {
                continue;
            };
            let _ = write!(out, "| {model} | {path} |");
            for (_, cell_of) in measures {
                for (suffix, _) in variants {
                    let cell = find(suffix)
                        .and_then(|m| cell_of(m, without))
                        .unwrap_or_else(|| "—".into());
                    let _ = write!(out, " {cell} |");
                }
            }
            out.push('\n');
        }
    }
    out
}

/// Prints a section's picture checks under "Picture check (`why`):", where
/// there are any.
pub fn print_checks(why: &str, checks: &[String]) {
    if checks.is_empty() {
        return;
    }
    say!("Picture check ({why}):\n");
    for line in checks {
        say!("{line}");
    }
    say!();
}
