//! Triangles ordered for the post-transform vertex cache: the order the GPU
//! uploads must make the vertex shader run less than the file's order,
//! while drawing exactly the model's triangles with their winding.
//!
//! Runs on the demo model and on every model in ../shared/md2 (skipped,
//! saying why, where that folder is absent). `cargo test --test
//! vertex_cache -- --nocapture` prints each model's figures.

use md2_wgpu_tests as common;

use std::collections::VecDeque;

use common::real_files;
use md2_wgpu::{
    Md2Model,
    mesh::{MeshError, RenderMesh, TriangleOrder, VertexCacheStats},
};

/// The cache the issue measures with: a 16-entry FIFO.
const CACHE: u32 = 16;

/// The most misses per triangle the cache order may leave...
const MAX_ACMR: f64 = 0.9;

/// ...or, where the model's corners put the least possible ACMR near that,
/// how far above the least possible it may be.
const FLOOR_SLACK: f64 = 1.05;

/// The demo model and every real model, by name.
fn models() -> Vec<(String, Md2Model)> {
    let mut out = vec![("demo".to_string(), md2_wgpu::demo::demo_model())];
    for (path, bytes) in real_files() {
        let model = Md2Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        out.push((path, model));
    }
    out
}

/// A corner by value: vertex index and the bits of its uv.
type Corner = (u32, [u32; 2]);

/// The triangles a mesh draws, by value, sorted (a multiset).
fn mesh_triangles(mesh: &RenderMesh) -> Vec<[Corner; 3]> {
    common::sorted_triangles(mesh.indices().chunks_exact(3).map(|t| {
        std::array::from_fn(|k| {
            let c = mesh.corners()[t[k] as usize];
            (c.xyz, c.uv.map(f32::to_bits))
        })
    }))
}

/// The model's own triangles, by value, with the texel-centre uv
/// `(st + 0.5) / skin size` computed here rather than by the crate.
fn model_triangles(model: &Md2Model) -> Vec<[Corner; 3]> {
    let (w, h) = model.skin_size();
    common::model_triangles_by(model, |xyz, c| {
        let u = (c.s as f32 + 0.5) / w as f32;
        let v = (c.t as f32 + 0.5) / h as f32;
        (xyz, [u.to_bits(), v.to_bits()])
    })
}

/// Vertex-shader runs of `indices` through a FIFO cache of `size`, simulated
/// here independently of the crate: a hit leaves the cache as it is, a miss
/// enters at the back and pushes out the front once full.
fn fifo_runs(indices: &[u32], size: usize) -> usize {
    let mut cache = VecDeque::with_capacity(size);
    let mut runs = 0;
    for &i in indices {
        if !cache.contains(&i) {
            runs += 1;
            if cache.len() == size {
                cache.pop_front();
            }
            cache.push_back(i);
        }
    }
    runs
}

fn stats(mesh: &RenderMesh) -> VertexCacheStats {
    mesh.vertex_cache_stats(CACHE).unwrap()
}

#[test]
fn the_cache_order_runs_the_vertex_shader_less_than_the_file_order() {
    let mut table = vec![format!(
        "{:<40} {:>5} {:>7} | {:>9} {:>9} | {:>9} {:>9}",
        "model (FIFO of 16)", "tris", "corners", "file ACMR", "file ATVR", "opt ACMR", "opt ATVR"
    )];
    let mut failures = Vec::new();
    for (name, model) in models() {
        let file = stats(&RenderMesh::new(&model, TriangleOrder::File));
        let ordered = stats(&RenderMesh::new(&model, TriangleOrder::VertexCache));
        table.push(format!(
            "{name:<40} {:>5} {:>7} | {:>9.3} {:>9.3} | {:>9.3} {:>9.3}",
            file.triangles,
            file.corners,
            file.acmr(),
            file.atvr(),
            ordered.acmr(),
            ordered.atvr()
        ));
        assert_eq!(
            (ordered.triangles, ordered.corners),
            (file.triangles, file.corners),
            "{name}"
        );
        if ordered.vertex_shader_runs > file.vertex_shader_runs {
            failures.push(format!(
                "{name}: the cache order ({ordered}) is worse than the file's ({file})"
            ));
        }
        // No order runs a corner less than once, so corners / triangles is
        // a floor under the ACMR; where a model's seams put that floor
        // near or above the bound (a lone triangle: 3; weapons with about a
        // corner per triangle) the order must come within 5% of it instead.
        let floor = ordered.corners as f64 / ordered.triangles as f64;
        let bound = MAX_ACMR.max(FLOOR_SLACK * floor);
        if ordered.acmr() > bound {
            failures.push(format!("{name}: {ordered}: ACMR above {bound:.3}"));
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn both_orders_draw_exactly_the_models_triangles_with_their_winding() {
    for (name, model) in models() {
        let want = model_triangles(&model);
        for order in [TriangleOrder::File, TriangleOrder::VertexCache] {
            let mesh = RenderMesh::new(&model, order);
            assert_eq!(mesh.order(), order);
            assert_eq!(
                mesh.triangle_count(),
                model.triangles().len(),
                "{name} {order:?}"
            );
            assert!(
                mesh_triangles(&mesh) == want,
                "{name}: the {order:?} order draws other triangles than the model's"
            );
            // Every corner is used, and used in order of first use (the
            // file's order for File, the cache order's for VertexCache), so
            // vertex fetches walk the corner buffer forward.
            let mut next = 0u32;
            for &i in mesh.indices() {
                assert!(i <= next, "{name} {order:?}: corner {i} used before {next}");
                next = next.max(i + 1);
            }
            assert_eq!(next as usize, mesh.corners().len(), "{name} {order:?}");
        }
    }
}

#[test]
fn two_builds_give_identical_buffers() {
    for (name, model) in models() {
        for order in [TriangleOrder::File, TriangleOrder::VertexCache] {
            let a = RenderMesh::new(&model, order);
            let b = RenderMesh::new(&model, order);
            let bytes = |m: &RenderMesh| bytemuck::cast_slice::<_, u8>(m.corners()).to_vec();
            assert_eq!(bytes(&a), bytes(&b), "{name} {order:?} corners");
            assert_eq!(a.indices(), b.indices(), "{name} {order:?} indices");
        }
    }
}

#[test]
fn the_statistics_match_an_independent_fifo_simulation() {
    for (name, model) in models() {
        for order in [TriangleOrder::File, TriangleOrder::VertexCache] {
            let mesh = RenderMesh::new(&model, order);
            for size in [3, 4, 8, 16, 32, 1000] {
                let s = mesh.vertex_cache_stats(size).unwrap();
                assert_eq!(
                    s.vertex_shader_runs,
                    fifo_runs(mesh.indices(), size as usize),
                    "{name} {order:?} FIFO of {size}"
                );
                assert_eq!(s.cache_size, size);
                assert_eq!(s.corners, mesh.corners().len());
                assert_eq!(s.triangles, model.triangles().len());
                assert_eq!(s.acmr(), s.vertex_shader_runs as f64 / s.triangles as f64);
                assert_eq!(s.atvr(), s.vertex_shader_runs as f64 / s.corners as f64);
            }
            assert!(matches!(
                mesh.vertex_cache_stats(2),
                Err(MeshError::CacheTooSmall {
                    cache_size: 2,
                    min: 3
                })
            ));
        }
    }
}

#[test]
fn the_default_order_is_the_cache_order() {
    assert_eq!(TriangleOrder::default(), TriangleOrder::VertexCache);
}
