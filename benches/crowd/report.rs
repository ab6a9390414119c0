//! Summaries of the measured frames, the markdown table, the targets, and
//! the JSON rows.

use std::fmt::Write as _;

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
}

/// What one (model, strategy, instance count) run measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Submit to GPU done.
    pub frame_ms: Summary,
    /// CPU time of everything the application thread did for the frame,
    /// submit included (the thread's own clock: time it was preempted does
    /// not count; wall-clock time where the platform has no such clock).
    pub cpu_ms: Summary,
    /// The same span in wall-clock time.
    pub cpu_wall_ms: Summary,
    /// The submit call alone, wall-clock (part of `cpu_wall_ms`).
    pub submit_ms: Summary,
    /// CPU time all of the process's threads ran from the submit to GPU
    /// done: on a software adapter, the rasteriser's work, which (unlike
    /// the frame time) a busy machine does not inflate.
    pub frame_cpu_ms: Option<Summary>,
    pub upload_bytes_per_frame: u64,
    pub gpu_model_bytes: u64,
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub model: String,
    pub strategy: &'static str,
    pub instances: usize,
    pub outcome: Result<Measured, String>,
}

impl Row {
    fn measured(&self) -> Option<&Measured> {
        self.outcome.as_ref().ok()
    }
}

/// The rows, as the JSON list `--json` writes.
pub fn json(rows: &[Row], adapter: &str) -> serde_json::Value {
    let list = rows
        .iter()
        .map(|row| match &row.outcome {
            Ok(m) => json!({
                "strategy": row.strategy,
                "instances": row.instances,
                "frame_ms_median": m.frame_ms.median,
                "frame_ms_min": m.frame_ms.min,
                "frame_ms_max": m.frame_ms.max,
                "cpu_ms_median": m.cpu_ms.median,
                "upload_bytes_per_frame": m.upload_bytes_per_frame,
                "gpu_model_bytes": m.gpu_model_bytes,
                "cpu_wall_ms_median": m.cpu_wall_ms.median,
                "submit_ms_median": m.submit_ms.median,
                "frame_cpu_ms_median": m.frame_cpu_ms.map(|s| s.median),
                "model": row.model,
                "adapter": adapter,
            }),
            Err(e) => json!({
                "strategy": row.strategy,
                "instances": row.instances,
                "model": row.model,
                "adapter": adapter,
                "error": e,
            }),
        })
        .collect();
    serde_json::Value::Array(list)
}

/// What the columns mean, printed under the tables.
pub const LEGEND: &str = "\
- frame ms: from the submit to the GPU having finished (wall clock), median, \
min and max over the measured frames.
- CPU ms: the application thread's CPU time for the frame: animation sampling, \
the CPU decode and interpolation (cpu), packing, buffer writes, encoding, submit. \
CPU wall ms: the same span by the wall clock.
- frame CPU-work ms: CPU time of all the process's threads during the frame time: \
on a software adapter the rasteriser's own work (steadier than the frame time on \
a busy machine); on a hardware GPU only driver overhead.
- upload / frame: bytes written to the GPU per frame (the camera, unchanged, is \
written once).
- GPU vertex data: gpu, the file's packed frames (4 bytes per vertex per frame); \
static, float position and normal (24 bytes per vertex per frame); cpu, the \
posed float positions and normals of every instance (24 bytes per vertex per \
instance), with as much again in the staging memory it uploads them from.
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

fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "—".into()
    }
}

/// The measurements table and, per (model, instances), the ratios.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str(
        "| model | instances | strategy | frame ms median | frame ms min | frame ms max \
         | CPU ms median | CPU wall ms median | frame CPU-work ms median | upload / frame \
         | GPU vertex data |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        match &row.outcome {
            Ok(m) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    row.model,
                    row.instances,
                    row.strategy,
                    ms(m.frame_ms.median),
                    ms(m.frame_ms.min),
                    ms(m.frame_ms.max),
                    ms(m.cpu_ms.median),
                    ms(m.cpu_wall_ms.median),
                    m.frame_cpu_ms.map_or("—".into(), |s| ms(s.median)),
                    bytes(m.upload_bytes_per_frame),
                    bytes(m.gpu_model_bytes),
                );
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | failed: {} | | | | | | | |",
                    row.model,
                    row.instances,
                    row.strategy,
                    e.replace('|', "/")
                );
            }
        }
    }

    out.push_str(
        "\n| model | instances | CPU time cpu/gpu | frame time cpu/gpu | frame time gpu/static \
         | frame CPU-work gpu/static | vertex data static/gpu | upload cpu/gpu |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (model, instances) in groups(rows) {
        let find = |strategy| find(rows, &model, instances, strategy);
        let (gpu, cpu, stat) = (find("gpu"), find("cpu"), find("static"));
        let pair = |a: Option<&Measured>,
                    b: Option<&Measured>,
                    f: &dyn Fn(&Measured, &Measured) -> String| {
            a.zip(b).map_or_else(|| "—".to_string(), |(a, b)| f(a, b))
        };
        let _ = writeln!(
            out,
            "| {model} | {instances} | {} | {} | {} | {} | {} | {} |",
            pair(cpu, gpu, &|c, g| ratio(c.cpu_ms.median, g.cpu_ms.median)),
            pair(cpu, gpu, &|c, g| ratio(
                c.frame_ms.median,
                g.frame_ms.median
            )),
            pair(gpu, stat, &|g, s| ratio(
                g.frame_ms.median,
                s.frame_ms.median
            )),
            pair(gpu, stat, &|g, s| match (g.frame_cpu_ms, s.frame_cpu_ms) {
                (Some(g), Some(s)) => ratio(g.median, s.median),
                _ => "—".into(),
            }),
            pair(stat, gpu, &|s, g| ratio(
                s.gpu_model_bytes as f64,
                g.gpu_model_bytes as f64
            )),
            pair(cpu, gpu, &|c, g| ratio(
                c.upload_bytes_per_frame as f64,
                g.upload_bytes_per_frame as f64
            )),
        );
    }
    out
}

/// The targets at `instances` instances, each met or missed.
pub fn targets(rows: &[Row], instances: usize, bytes_per_vertex_frame: &[(String, f64)]) -> String {
    let mut out = String::new();
    let mut any = false;
    for (model, n) in groups(rows) {
        if n != instances {
            continue;
        }
        any = true;
        let find = |strategy| find(rows, &model, n, strategy);
        let (gpu, cpu, stat) = (find("gpu"), find("cpu"), find("static"));
        let _ = writeln!(out, "Targets at {n} instances, {model}:");
        let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
        if let Some((c, g)) = cpu.zip(gpu) {
            let r = c.cpu_ms.median / g.cpu_ms.median;
            let _ = writeln!(
                out,
                "- CPU time per frame >= 50× below cpu: {r:.1}× ({} ms vs {} ms): {}",
                ms(g.cpu_ms.median),
                ms(c.cpu_ms.median),
                verdict(r >= 50.0)
            );
        }
        if let Some((g, s)) = gpu.zip(stat) {
            let r = g.frame_ms.median / s.frame_ms.median;
            let _ = writeln!(
                out,
                "- frame time within 1.25× of static: {r:.2}× ({} ms vs {} ms): {}",
                ms(g.frame_ms.median),
                ms(s.frame_ms.median),
                verdict(r <= 1.25)
            );
        }
        if let Some((g, s)) = gpu.zip(stat) {
            let per = bytes_per_vertex_frame
                .iter()
                .find(|(m, _)| *m == model)
                .map_or(f64::NAN, |(_, b)| *b);
            let r = s.gpu_model_bytes as f64 / g.gpu_model_bytes as f64;
            let _ = writeln!(
                out,
                "- vertex data 4 bytes per vertex per frame, 6× less than static: \
                 {per} bytes, {r:.2}× less ({} vs {}): {}",
                bytes(g.gpu_model_bytes),
                bytes(s.gpu_model_bytes),
                verdict(per == 4.0 && r >= 6.0)
            );
        }
    }
    if !any {
        let _ = writeln!(
            out,
            "Targets: not evaluated, {instances} instances was not among the measured counts."
        );
    }
    out
}

fn find<'a>(
    rows: &'a [Row],
    model: &str,
    instances: usize,
    strategy: &str,
) -> Option<&'a Measured> {
    rows.iter()
        .find(|r| r.model == model && r.instances == instances && r.strategy == strategy)
        .and_then(Row::measured)
}

/// The (model, instances) pairs in the order they were measured.
fn groups(rows: &[Row]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for row in rows {
        let key = (row.model.clone(), row.instances);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}
