//! The scale probe: the largest crowd the crate draws in one frame on this
//! adapter, doubling from 1,000 up to a cap, errors caught (error scopes
//! and the uncaptured-error handler), never a panic.

use std::time::Instant;

use md2_wgpu::contract::InstanceRecord;
use md2_wgpu::support::block_on;

use crate::Bench;
use crate::figures::say;
use crate::measure;
use crate::scene::BenchModel;
use crate::strategies::{Immediate, upload};

/// Bytes of one instance record.
pub const RECORD: u64 = size_of::<InstanceRecord>() as u64;

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

/// Probes with `model`: a renderer per count, one frame each, every member
/// in view.
pub fn run(bench: &Bench, model: &BenchModel, max: usize, seconds: f64) -> Probe {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let mut steps = Vec::new();
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
        let validation = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = gpu
            .device()
            .push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let mut drawn = model
            .crowd(n)
            .and_then(|scene| {
                upload(gpu, cache, model).and_then(|m| Immediate::new(gpu, cache, m, &scene))
            })
            .and_then(|mut strategy| {
                let start = Instant::now();
                measure::draw_once(gpu, &bench.target, &mut strategy, 0)?;
                Ok((strategy, start.elapsed().as_secs_f64() * 1000.0))
            });
        let scoped = block_on(oom.pop())
            .or_else(|| block_on(validation.pop()))
            .map(|e| e.to_string());
        if let Some(e) = scoped.or_else(|| gpu.take_uncaptured()) {
            drawn = Err(e);
        }
        match drawn {
            Ok((strategy, frame_ms)) => steps.push(Step {
                instances: n,
                frame_ms,
                instance_buffer_bytes: strategy.renderer().instance_capacity() * RECORD,
                model_bytes: strategy.model().gpu_bytes(),
            }),
            Err(e) => {
                return Probe {
                    steps,
                    end: End::Failed(n, e),
                };
            }
        }
    }
    Probe {
        steps,
        end: End::ReachedCap,
    }
}

/// Prints the probe's table and how it ended.
pub fn print(probe: &Probe, model: &str, max: usize, max_seconds: f64) {
    say!("## Scale probe ({model}, gpu strategy, one frame per count)\n");
    say!(
        "Doubling from 1,000 up to {}; each count draws one frame, errors caught by \
         error scopes and the uncaptured-error handler.\n",
        max
    );
    say!(
        "| instances | frame (CPU + GPU) ms | instance data | instance buffer | model (all GPU bytes) \
         | total GPU bytes |"
    );
    say!("|---:|---:|---:|---:|---:|---:|");
    for s in &probe.steps {
        say!(
            "| {} | {:.0} | {} | {} | {} | {} |",
            s.instances,
            s.frame_ms,
            crate::report::bytes(s.instances as u64 * RECORD),
            crate::report::bytes(s.instance_buffer_bytes),
            crate::report::bytes(s.model_bytes),
            crate::report::bytes(s.gpu_bytes())
        );
    }
    say!();
    let largest = probe.steps.last();
    match (&probe.end, largest) {
        (End::ReachedCap, Some(s)) => say!(
            "Largest count rendered: {} (the cap), using {} of GPU memory \
             ({} instance buffer + {} model).",
            s.instances,
            crate::report::bytes(s.gpu_bytes()),
            crate::report::bytes(s.instance_buffer_bytes),
            crate::report::bytes(s.model_bytes)
        ),
        (End::Failed(n, e), _) => {
            say!("Failed at {n} instances: {e}");
            if let Some(s) = largest {
                say!(
                    "Largest count rendered: {}, using {} of GPU memory.",
                    s.instances,
                    crate::report::bytes(s.gpu_bytes())
                );
            }
        }
        (End::OutOfTime(n), Some(s)) => say!(
            "Largest count rendered: {} (using {} of GPU memory); stopped before {n}: \
             the last frame took over {} s (--probe-seconds) and the next is twice \
             the work. Raise --probe-seconds to go further.",
            s.instances,
            crate::report::bytes(s.gpu_bytes()),
            max_seconds
        ),
        (_, None) => say!("Nothing rendered."),
    }
}
