//! Vertex-shader runs per frame against the triangle order the model was
//! uploaded in: an instance runs the vertex shader once per corner at best
//! (a perfect post-transform cache) and once per index at worst.

use std::fmt::Write as _;

use md2_wgpu::{GpuModel, mesh::TriangleOrder};

use crate::Bench;
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Row, ms};
use crate::scene::BenchModel;
use crate::strategies::{Immediate, upload_in};

/// The name of a triangle order in the tables and on the command line.
pub fn order_name(order: TriangleOrder) -> &'static str {
    match order {
        TriangleOrder::File => "file order",
        _ => "optimised order",
    }
}

/// The triangle orders measured, each with the model uploaded in it.
fn uploads(
    bench: &Bench,
    model: &BenchModel,
    orders: &[TriangleOrder],
) -> Vec<(&'static str, Result<GpuModel, String>)> {
    orders
        .iter()
        .map(|&order| {
            let uploaded = upload_in(&bench.gpu, &bench.cache, model, order);
            (order_name(order), uploaded)
        })
        .collect()
}

/// The gpu path at `n` instances for every model, once per triangle order.
pub fn run(
    bench: &Bench,
    models: &[BenchModel],
    n: usize,
    orders: &[TriangleOrder],
) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let mut shapes = Vec::new();
    let Table { rows, checks } = measure::per_model(bench, "order", models, n, |model, scene| {
        let mut entries = Vec::new();
        for (order, gpu_model) in uploads(bench, model, orders) {
            if let Ok(m) = &gpu_model {
                let simulated = m.mesh().vertex_cache_stats(16).map_err(|e| e.to_string())?;
                shapes.push((
                    model.label.clone(),
                    order,
                    m.mesh().corners().len() as u32,
                    m.mesh().triangle_count() as u32,
                    simulated.acmr(),
                ));
            }
            entries.push(Entry::new(
                format!("gpu, {order}"),
                Some("every member"),
                gpu_model.and_then(|m| Immediate::new(gpu, cache, m, scene)),
            ));
        }
        Ok(entries)
    })?;
    say!("## Triangle order and the post-transform vertex cache\n");
    let mut out = String::from(
        "| model | order | corners | triangles | VS / frame | VS per instance \
         | per instance per corner | per triangle | simulated ACMR (16 FIFO) | frame ms median |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (label, order, corners, triangles, simulated) in &shapes {
        let Some(m) = report::find(&rows, label, n, &format!("gpu, {order}")) else {
            continue;
        };
        let per_instance = m.vs_invocations.map(|v| v as f64 / n as f64);
        let cell = |x: Option<f64>| x.map_or("—".into(), |x| format!("{x:.3}"));
        let _ = writeln!(
            out,
            "| {label} | {order} | {corners} | {triangles} | {} | {} | {} | {} | {simulated:.3} | {} |",
            m.vs_invocations.map_or("—".into(), report::count),
            cell(per_instance),
            cell(per_instance.map(|v| v / f64::from(*corners))),
            cell(per_instance.map(|v| v / f64::from(*triangles))),
            ms(m.frame_ms.median),
        );
    }
    say!(
        "The gpu path, every member in view, {n} instances. Per corner 1.0 is a perfect \
         cache; per triangle is the ACMR (average cache miss ratio): 0.5 at best for a closed \
         mesh, 3.0 without a cache.\n"
    );
    say!("{out}");
    say!("{}", report::markdown(&rows));
    report::print_checks("the order must not change the picture", &checks);
    Ok(rows)
}
