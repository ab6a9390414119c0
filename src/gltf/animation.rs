//! Clips as glTF animations of the node's morph weights: one key per frame
//! the clip plays, each key all zeros but a 1 on that frame's target.
//!
//! With `LINEAR` interpolation the weights between two keys are `1 − t` on
//! one frame and `t` on the next, so a renderer that adds weighted morph
//! deltas to the base computes `base + (1 − t)(a − base) + t(b − base)`,
//! which is MD2's `a + (b − a)t`. A looping clip gets one more key, back on
//! its first frame, `len / fps` seconds in: the blend from the last frame
//! into the first, and the loop's length for players that repeat a clip
//! over its keys (three.js's `LoopRepeat`). A one-shot clip ends on its
//! last frame; glTF holds the last key's value after it, as the crate's
//! [`Clip`] holds its last frame.
//!
//! The weights are written as sparse accessors over zeros (one non-zero
//! value per key), so they take a few bytes per key, not one `f32` per key
//! per frame of the model.

use ::gltf::json;
use json::accessor::IndexComponentType;
use json::accessor::sparse::{Indices, Sparse, Values};
use json::accessor::{ComponentType, Type};
use json::animation::{Channel, Interpolation, Property, Sampler, Target};
use json::validation::{Checked, USize64};
use json::{Index, Node};

use super::buffer::{AccessorSpec, Builder, float_bounds, put_f32s};
use super::error::GltfError;
use super::options::{GltfOptions, KeyInterpolation};
use crate::anim::Clip;
use crate::model::KeyframeModel;

/// A clip's keys: when, and which frame.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Keys {
    pub clip: Clip,
    pub times: Vec<f32>,
    pub frames: Vec<u32>,
}

/// The clips the options ask for, checked against the model, with their
/// keys.
pub(super) fn keys(model: &KeyframeModel, options: &GltfOptions) -> Result<Vec<Keys>, GltfError> {
    let clips = match &options.clips {
        Some(clips) => clips.clone(),
        None => Clip::for_model(model)
            .into_iter()
            .map(|c| c.with_fps(options.fps))
            .collect(),
    };
    clips
        .into_iter()
        .map(|clip| clip_keys(model.frame_count(), clip))
        .collect()
}

/// `clip`'s keys on a model of `frame_count` frames, checked against them.
pub(super) fn clip_keys(frame_count: u32, clip: Clip) -> Result<Keys, GltfError> {
    let frames = clip.frames();
    if *frames.end() >= frame_count {
        return Err(GltfError::ClipOutOfRange {
            clip: clip.name.to_string(),
            first: clip.first,
            last: clip.last,
            frame_count,
        });
    }
    let fps = f64::from(clip.fps);
    let bad_fps = || GltfError::InvalidFps {
        clip: clip.name.to_string(),
        fps: clip.fps,
    };
    if !(fps.is_finite() && fps > 0.0) {
        return Err(bad_fps());
    }
    let mut key_frames: Vec<u32> = frames.clone().collect();
    if clip.looping {
        key_frames.push(*frames.start());
    }
    let mut times = Vec::with_capacity(key_frames.len());
    for k in 0..key_frames.len() {
        let t = (k as f64 / fps) as f32;
        // A rate so high or low that f32 times collapse or overflow cannot
        // say when each frame is shown.
        if !t.is_finite() || times.last().is_some_and(|&last| t <= last) {
            return Err(bad_fps());
        }
        times.push(t);
    }
    Ok(Keys {
        clip,
        times,
        frames: key_frames,
    })
}

/// The bytes the keys take in the buffer (times, sparse indices, and the
/// ones the sparse values share), each part padded to 4 bytes.
pub(super) fn bin_size(keys: &[Keys], targets: u32) -> u64 {
    let mut size = 0u64;
    let mut most = 0u64;
    for k in keys {
        let n = k.times.len() as u64;
        let index_size = index_type(n, targets).size() as u64;
        size = size
            .saturating_add(4 * n)
            .saturating_add((n * index_size).next_multiple_of(4));
        most = most.max(n);
    }
    size.saturating_add(4 * most)
}

/// The sparse index type for `keys` keys over `targets` targets: the index
/// of the last weight must fit.
fn index_type(keys: u64, targets: u32) -> ComponentType {
    if keys.saturating_mul(u64::from(targets)) <= u64::from(u16::MAX) + 1 {
        ComponentType::U16
    } else {
        ComponentType::U32
    }
}

/// Whether every clip's weights can be indexed by a sparse accessor's
/// 32-bit indices; the first that cannot, as an error.
pub(super) fn check_weight_counts(keys: &[Keys], targets: u32) -> Result<(), GltfError> {
    for k in keys {
        let count = (k.times.len() as u64).saturating_mul(u64::from(targets));
        if count > u64::from(u32::MAX) {
            return Err(GltfError::TooManyWeights {
                clip: k.clip.name.to_string(),
                count,
            });
        }
    }
    Ok(())
}

/// glTF's name for `interpolation`.
pub(super) fn gltf_interpolation(interpolation: KeyInterpolation) -> Interpolation {
    match interpolation {
        KeyInterpolation::Linear => Interpolation::Linear,
        KeyInterpolation::Step => Interpolation::Step,
    }
}

/// One animation per clip, on `node`'s weights, with `targets` morph
/// targets.
pub(super) fn write(
    builder: &mut Builder,
    node: Index<Node>,
    keys: &[Keys],
    targets: u32,
    interpolation: KeyInterpolation,
) -> Result<(), GltfError> {
    if keys.is_empty() {
        return Ok(());
    }
    let targets64 = u64::from(targets);
    // Times of every clip, one after another.
    let mut time_offsets = Vec::with_capacity(keys.len());
    let times_view = builder.view(None, None, |bin| {
        let start = bin.len();
        for k in keys {
            time_offsets.push(bin.len() - start);
            put_f32s(bin, &k.times);
        }
    });
    // The sparse indices: key k's one non-zero weight is at k × targets + frame.
    let mut index_offsets = Vec::with_capacity(keys.len());
    let indices_view = builder.view(None, None, |bin| {
        let start = bin.len();
        for k in keys {
            super::buffer::pad_to_four(bin);
            index_offsets.push(bin.len() - start);
            let n = k.times.len() as u64;
            let wide = index_type(n, targets) == ComponentType::U32;
            for (key, &frame) in k.frames.iter().enumerate() {
                let index = key as u64 * targets64 + u64::from(frame);
                if wide {
                    bin.extend_from_slice(&(index as u32).to_le_bytes());
                } else {
                    bin.extend_from_slice(&(index as u16).to_le_bytes());
                }
            }
        }
    });
    // Every non-zero weight is 1: one run of ones that every clip shares.
    let most = keys.iter().map(|k| k.times.len()).max().unwrap_or(0);
    let ones_view = builder.view(None, None, |bin| put_f32s(bin, &vec![1.0; most]));
    let glb_interpolation = gltf_interpolation(interpolation);
    for (i, k) in keys.iter().enumerate() {
        let n = k.times.len();
        let first = k.times.first().copied().unwrap_or(0.0);
        let last = k.times.last().copied().unwrap_or(0.0);
        let input = builder.accessor(
            AccessorSpec::dense(
                times_view,
                time_offsets[i],
                n,
                ComponentType::F32,
                Type::Scalar,
            )
            .bounds(float_bounds(&[first]), float_bounds(&[last])),
        );
        let index_component = index_type(n as u64, targets);
        let output = builder.accessor(AccessorSpec {
            view: None,
            offset: 0,
            count: n * targets as usize,
            component: ComponentType::F32,
            kind: Type::Scalar,
            normalized: false,
            min: None,
            max: None,
            sparse: Some(Sparse {
                count: USize64::from(n),
                indices: Indices {
                    buffer_view: indices_view,
                    byte_offset: USize64::from(index_offsets[i]),
                    component_type: Checked::Valid(IndexComponentType(index_component)),
                    extensions: None,
                    extras: None,
                },
                values: Values {
                    buffer_view: ones_view,
                    byte_offset: USize64(0),
                    extensions: None,
                    extras: None,
                },
                extensions: None,
                extras: None,
            }),
        });
        let extras = serde_json::value::to_raw_value(&serde_json::json!({
            "looping": k.clip.looping,
            "fps": f64::from(k.clip.fps),
            "frames": [k.clip.first, k.clip.last.max(k.clip.first)],
        }))
        .map_err(|e| GltfError::Write {
            reason: e.to_string(),
        })?;
        builder.root.push(json::Animation {
            extensions: None,
            extras: Some(extras),
            channels: vec![Channel {
                sampler: Index::new(0),
                target: Target {
                    extensions: None,
                    extras: None,
                    node,
                    path: Checked::Valid(Property::MorphTargetWeights),
                },
                extensions: None,
                extras: None,
            }],
            name: Some(k.clip.name.to_string()),
            samplers: vec![Sampler {
                extensions: None,
                extras: None,
                input,
                interpolation: Checked::Valid(glb_interpolation),
                output,
            }],
        });
    }
    Ok(())
}

/// Adds to `animation` a sampler from `input` (key times) to `output` (key
/// values) and the channel that moves `target`'s node and property by it.
pub(super) fn add_channel(
    animation: &mut json::Animation,
    target: (Index<Node>, Property),
    input: Index<json::Accessor>,
    output: Index<json::Accessor>,
    interpolation: Interpolation,
) {
    let sampler = Index::new(animation.samplers.len() as u32);
    animation.samplers.push(Sampler {
        extensions: None,
        extras: None,
        input,
        interpolation: Checked::Valid(interpolation),
        output,
    });
    animation.channels.push(Channel {
        sampler,
        target: Target {
            extensions: None,
            extras: None,
            node: target.0,
            path: Checked::Valid(target.1),
        },
        extensions: None,
        extras: None,
    });
}
