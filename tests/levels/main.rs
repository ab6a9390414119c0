//! Levels of detail (issue 18): every level draws only the model's corners,
//! keeps the winding and the texture seams, and its reported error bounds
//! what an independent, dense measurement finds in every frame; drawn at
//! the distance where a 1-pixel error budget first picks it, a level looks
//! like full detail.
//!
//! Runs on the demo model and on every model in ../shared/md2 (skipped,
//! saying why, where that folder is absent); the GPU part on any adapter
//! (lavapipe in CI). `cargo test --test levels -- --nocapture` prints the
//! levels of each model, what they cost at upload, and why they weigh
//! more frames than the first.

use md2_wgpu_tests as common;

mod cpu;
mod file;
#[cfg(feature = "gpu")]
mod gpu;
mod measure;

use std::sync::OnceLock;
use std::time::Duration;

use common::real_files;
use md2_wgpu::{
    Md2Model,
    mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder},
};

/// A model with its mesh and levels (built once for every test: in a debug
/// build, levels take seconds per player model).
pub struct Subject {
    pub name: String,
    pub model: Md2Model,
    pub mesh: RenderMesh,
    pub lods: Levels,
    pub build_time: Duration,
}

impl Subject {
    /// A level's triangles as vertex ids, in the level's winding.
    pub fn xyz(&self, level: usize) -> Vec<[u32; 3]> {
        let indices = self.lods.level_indices(level).expect("a level");
        indices
            .chunks_exact(3)
            .map(|t| std::array::from_fn(|k| self.mesh.corners()[t[k] as usize].xyz))
            .collect()
    }
}

/// The demo model and every real model, with `LevelOptions::DEFAULT`'s
/// levels over the vertex-cache order.
pub fn subjects() -> &'static [Subject] {
    static SUBJECTS: OnceLock<Vec<Subject>> = OnceLock::new();
    SUBJECTS.get_or_init(|| {
        let mut models = vec![("demo".to_string(), md2_wgpu::demo::demo_model())];
        for (path, bytes) in real_files() {
            let model = Md2Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
            models.push((path, model));
        }
        models
            .into_iter()
            .map(|(name, model)| {
                let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
                let started = std::time::Instant::now();
                let lods = Levels::new(&model, &mesh, &LevelOptions::DEFAULT)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                Subject {
                    name,
                    model,
                    mesh,
                    lods,
                    build_time: started.elapsed(),
                }
            })
            .collect()
    })
}

/// The subject with this name, if present.
pub fn subject(name: &str) -> Option<&'static Subject> {
    subjects().iter().find(|s| s.name == name)
}
