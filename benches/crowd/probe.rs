//! The scale probe: the largest crowd the crate draws in one frame on this
//! adapter, doubling from 1,000 up to a cap, errors caught (error scopes
//! and the uncaptured-error handler), never a panic.

use std::time::Instant;

use crate::gpu::{Gpu, Target};
use crate::scene::{BenchModel, Crowd};
use crate::strategies::{GpuStrategy, RENDERER_INSTANCE_BYTES, Strategy};

/// One probed count that rendered.
#[derive(Clone, Debug)]
pub struct Step {
    pub instances: usize,
    /// Submit to GPU done for its single frame.
    pub frame_ms: f64,
    /// What the renderer's instance buffer holds (it grows to powers of two).
    pub instance_buffer_bytes: u64,
    /// Every GPU byte of the model (vertex data, frame parameters, corners,
    /// indices, skins).
    pub model_bytes: u64,
}

impl Step {
    pub fn gpu_bytes(&self) -> u64 {
        self.instance_buffer_bytes + self.model_bytes
    }
}

/// How the probe ended.
#[derive(Clone, Debug)]
pub enum End {
    /// Every count up to the cap rendered.
    ReachedCap,
    /// This count failed, with this error.
    Failed(usize, String),
    /// Stopped before this count: the last frame already took longer than
    /// the time allowed per frame, and the next is twice the work.
    OutOfTime(usize),
}

pub struct Probe {
    pub steps: Vec<Step>,
    pub end: End,
}

/// 1,000, 2,000, 4,000, ... and `max` itself last.
pub fn counts(max: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut n = 1000usize;
    while n < max {
        out.push(n);
        n *= 2;
    }
    out.push(max);
    out
}

/// Probes with `model`, one renderer and one target throughout (the
/// instance buffer grows as an application's would).
pub fn run(gpu: &Gpu, target: &Target, model: &BenchModel, max: usize, seconds: f64) -> Probe {
    let mut steps = Vec::new();
    let mut strategy = match GpuStrategy::new(gpu, model) {
        Ok(s) => s,
        Err(e) => {
            return Probe {
                steps,
                end: End::Failed(0, e),
            };
        }
    };
    let skins = model.skins.len().max(1) as u32;
    for n in counts(max) {
        if steps
            .last()
            .is_some_and(|s: &Step| s.frame_ms / 1000.0 > seconds)
        {
            return Probe {
                steps,
                end: End::OutOfTime(n),
            };
        }
        eprintln!("probe: {n} instances ...");
        let crowd = Crowd::new(&model.model, skins, n, crate::SEED);
        let validation = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = gpu.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let start = Instant::now();
        let drawn = strategy
            .frame(gpu, target, &crowd, 0)
            .and_then(|commands| gpu.submit_and_wait(commands));
        let elapsed = start.elapsed().as_secs_f64() * 1000.0;
        let scoped = pollster::block_on(oom.pop())
            .or_else(|| pollster::block_on(validation.pop()))
            .map(|e| e.to_string());
        let error = drawn.err().or(scoped).or_else(|| gpu.take_uncaptured());
        if let Some(e) = error {
            return Probe {
                steps,
                end: End::Failed(n, e),
            };
        }
        steps.push(Step {
            instances: n,
            frame_ms: elapsed,
            instance_buffer_bytes: strategy.renderer().instance_capacity()
                * RENDERER_INSTANCE_BYTES,
            model_bytes: strategy.model().gpu_bytes(),
        });
    }
    Probe {
        steps,
        end: End::ReachedCap,
    }
}
