//! GPU equals CPU: the positions and normals the shader computes (captured
//! through `cs_capture`, which calls the vertex shader's own `pose_vertex`)
//! match `md2_wgpu::anim::reference::blend` within the bound WGSL's accuracy
//! rules give each vertex (`common::bounds`: fused or unfused
//! multiply-adds, 2.5-ULP division, `sqrt` as `1 / inverseSqrt`), and bit
//! for bit where every step is exact.

use crate::common::bounds::{VertexBound, pose_bounds};
use crate::common::*;
use md2_wgpu::support::{CapturedPose, PoseCapture};
use md2_wgpu::{
    GpuModel, Md2Model, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
    format::{Md2Parts, TexCoord, Triangle},
    gpu::PrepareError,
    model::{Frame, KeyframeModel, PackedVertex, nearest_normal_index},
    scene::{InstanceError, SHELL_OFFSET},
};

/// The vertex whose difference is largest against its bound, as (how much
/// of the bound it takes, the vertex): above 1 breaks the bound (NaN
/// counts as infinitely far).
fn worst_against(
    gpu: &[[f32; 3]],
    cpu: &[[f32; 3]],
    bounds: &[VertexBound],
    bound: fn(&VertexBound) -> f32,
) -> (f32, usize) {
    assert_eq!(gpu.len(), cpu.len());
    let mut worst = (0.0f32, 0);
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let limit = bound(&bounds[i]);
        for k in 0..3 {
            let d = (g[k] - c[k]).abs();
            let share = if d == 0.0 {
                0.0
            } else if d.is_nan() || limit == 0.0 {
                f32::INFINITY
            } else {
                d / limit
            };
            if share > worst.0 {
                worst = (share, i);
            }
        }
    }
    worst
}

/// Asserts the GPU's pose within each vertex's bound of the CPU's.
fn assert_within(
    what: &str,
    (gp, gn): (&[[f32; 3]], &[[f32; 3]]),
    (cp, cn): (&[[f32; 3]], &[[f32; 3]]),
    bounds: &[VertexBound],
) -> (f32, f32) {
    // The largest share of a bound `got` takes against `want`, asserted
    // within it.
    let within = |name: &str,
                  got: &[[f32; 3]],
                  want: &[[f32; 3]],
                  bound: fn(&VertexBound) -> f32| {
        let (share, i) = worst_against(got, want, bounds, bound);
        assert!(
            share <= 1.0,
            "{what}: {name} {i} is {:?} on the GPU, {:?} on the CPU: {share} times its bound {}",
            got[i],
            want[i],
            bound(&bounds[i])
        );
        share
    };
    (
        within("position", gp, cp, |b| b.position),
        within("normal", gn, cn, |b| b.normal),
    )
}

fn poses_for(frame_count: u32) -> Vec<Pose> {
    let last = frame_count - 1;
    let f = |k: u32| k.min(last);
    let lerp = |a: u32, b: u32, t: f32| FrameLerp {
        frame_a: f(a),
        frame_b: f(b),
        t,
    };
    let mut poses: Vec<Pose> = vec![
        lerp(0, 0, 0.0).into(),
        lerp(0, 1, 0.0).into(),
        lerp(0, 1, 1.0).into(),
        lerp(0, 1, 0.5).into(),
        lerp(2, 3, 0.25).into(),
        lerp(last, 0, 0.7).into(),
        lerp(40, 45, 0.999).into(),
        lerp(1, 2, f32::NAN).into(),
        lerp(3, 4, 3.0).into(),
    ];
    let fades = [0.0, 0.3, 0.5, 1.0, f32::NAN, -1.0];
    for weight in fades {
        poses.push(Pose {
            primary: lerp(2, 3, 0.25),
            secondary: lerp(frame_count / 2, frame_count / 2 + 1, 0.75),
            weight,
        });
    }
    poses.push(Pose {
        primary: lerp(last, 0, 1.0),
        secondary: lerp(100, 170, 0.0),
        weight: 0.8,
    });
    poses
}

/// `model`'s every pose of [`poses_for`], plain and pushed out as a shell,
/// captured from the GPU and held to the CPU reference within each
/// vertex's derived bound; the largest shares of the bounds printed.
pub(crate) fn compare(
    gpu: &Gpu,
    capture: &PoseCapture,
    renderer: &Md2Renderer,
    name: &str,
    model: &KeyframeModel,
) {
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, renderer, model, &[]).unwrap();
    let n = model.vertex_count();
    let mut positions = vec![[0.0f32; 3]; n];
    let mut normals = vec![[0.0f32; 3]; n];
    let poses = poses_for(model.frame_count());
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    let (mut exact, mut widest) = (0usize, 0.0f32);
    // Every pose plain, and pushed out as a powerup shell.
    let cases = poses.iter().flat_map(|p| [(p, 0.0), (p, SHELL_OFFSET)]);
    for (pose, push) in cases {
        md2_wgpu::anim::reference::blend(model, pose, &mut positions, &mut normals).unwrap();
        md2_wgpu::anim::reference::push_along_normals(&mut positions, &normals, push);
        let captured = capture
            .capture(&gpu.device, &gpu.queue, &gpu_model, pose, push)
            .unwrap();
        let bounds = pose_bounds(model, pose, push);
        exact += bounds.iter().filter(|b| b.position == 0.0).count();
        widest = bounds.iter().map(|b| b.position).fold(widest, f32::max);
        let (sp, sn) = assert_within(
            &format!("{name} {pose:?} pushed {push}"),
            (&captured.positions, &captured.normals),
            (&positions, &normals),
            &bounds,
        );
        worst_p = worst_p.max(sp);
        worst_n = worst_n.max(sn);
    }
    eprintln!(
        "{name}: {} poses × {n} vertices, plain and shelled, within their derived bounds \
         (largest share of a bound: positions {worst_p:.3}, normals {worst_n:.3}; widest \
         position bound {widest:e}; {exact} positions exact by the arithmetic)",
        poses.len()
    );
}

pub(crate) fn setup(gpu: &Gpu) -> (PoseCapture, Md2Renderer) {
    let renderer = Md2Renderer::new(
        &gpu.device,
        wgpu::TextureFormat::Rgba8UnormSrgb,
        Md2RendererOptions::DEFAULT,
    )
    .unwrap();
    (PoseCapture::new(&gpu.device, &renderer), renderer)
}

#[test]
fn gpu_matches_the_cpu_reference_on_the_demo_model() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let model = md2_wgpu::demo::demo_model();
    compare(&gpu, &capture, &renderer, "demo", &model);
}

#[test]
fn gpu_matches_the_cpu_reference_on_real_models() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let mut tested = 0;
    for file in [
        "yohko/tris.md2",
        "ogro/ogros.MD2",
        "yohko/weapon.md2",
        "edge/bug_weapon_1tri.md2",
        "edge/infantry_weapon_1frame.md2",
    ] {
        if let Some((model, _)) = shared_model(file, None) {
            compare(&gpu, &capture, &renderer, file, &model);
            tested += 1;
        }
    }
    eprintln!("{tested} real models compared");
}

/// Three vertices over three frames whose normals exercise the edge cases:
/// indices past the table (read as index 5, straight up), and normals that
/// cancel exactly halfway between two frames (up and down), where the
/// contract falls back to frame a's table normal.
fn normal_edge_model() -> Md2Model {
    let up = nearest_normal_index([0.0, 0.0, 1.0]);
    let down = nearest_normal_index([0.0, 0.0, -1.0]);
    let normals = [[255, down, up], [161, 162, 0], [up, down, 200]];
    let mut vertices = Vec::new();
    for frame in 0..3 {
        for (i, n) in normals.iter().enumerate() {
            vertices.push(PackedVertex {
                position: [
                    (40 * i + 7 * frame) as u8,
                    (255 - 30 * i) as u8,
                    (90 * frame) as u8,
                ],
                normal_index: n[frame],
            });
        }
    }
    Md2Model::from_parts(Md2Parts {
        skin_size: (8, 8),
        skins: Vec::new(),
        tex_coords: vec![TexCoord { s: 0, t: 0 }, TexCoord { s: 7, t: 7 }],
        triangles: vec![Triangle {
            xyz: [0, 1, 2],
            st: [0, 1, 0],
        }],
        frames: vec![
            Frame::new("a1", [0.1, -0.2, 0.3], [-12.5, 3.0, 100.0]),
            Frame::new("a2", [1.5, 0.25, 0.01], [0.0, -40.0, -7.75]),
            Frame::new("a3", [0.003, 2.0, 0.5], [1000.0, 0.5, -0.25]),
        ],
        vertices,
    })
    .unwrap()
}

/// `model` uploaded for `renderer` and captured halfway from frame 0 to
/// `frame_b`, unpushed.
fn capture_halfway(
    gpu: &Gpu,
    capture: &PoseCapture,
    renderer: &Md2Renderer,
    model: &Md2Model,
    frame_b: u32,
) -> Result<CapturedPose, PrepareError> {
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, renderer, model, &[]).unwrap();
    let pose = Pose::from(FrameLerp {
        frame_a: 0,
        frame_b,
        t: 0.5,
    });
    capture.capture(&gpu.device, &gpu.queue, &gpu_model, &pose, 0.0)
}

#[test]
fn gpu_matches_the_cpu_on_bad_and_cancelling_normals() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let model = normal_edge_model();
    compare(&gpu, &capture, &renderer, "normal edge cases", &model);

    // The halfway point between up and down is the case the contract pins:
    // frame a's normal, not NaN.
    let normals = capture_halfway(&gpu, &capture, &renderer, &model, 1)
        .unwrap()
        .normals;
    assert_eq!(
        normals[0],
        [0.0, 0.0, 1.0],
        "index 255 reads as straight up"
    );
    assert_eq!(
        normals[2],
        [0.0, 0.0, 1.0],
        "cancelling normals fall back to frame a's"
    );
}

#[test]
fn capture_rejects_frames_out_of_range() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let model = normal_edge_model();
    let err = capture_halfway(&gpu, &capture, &renderer, &model, 3).unwrap_err();
    assert!(
        matches!(
            err,
            PrepareError::Instance(InstanceError::FrameOutOfRange {
                frame: 3,
                frame_count: 3,
                field: "pose.primary.frame_b",
                ..
            })
        ),
        "{err}"
    );
}

/// The pose WGSL clamps nothing (the crate's paths keep every word in
/// range on the CPU): hostile words handed to it straight (frames far past
/// the model, a vertex past it, factors that are NaN or out of [0, 1]) read
/// nothing outside the model's buffers, as wgpu checks every index: the
/// capture completes without a device error, a vertex gets a result, and
/// words in range still give the CPU's pose: the same bits as the checked
/// capture (one pipeline, the same words), and the reference's within each
/// vertex's derived bound.
#[test]
fn hostile_words_read_nothing_outside_the_buffers() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let model = md2_wgpu::demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let vertices = model.keyframes().vertex_count();
    for (frames, lerp) in [
        ([u32::MAX, u32::MAX - 1, 0, 1], [0.5, 0.0, 0.0]),
        ([5_000_000, 0, 7, 9_999_999], [f32::NAN, 0.5, 0.75]),
        ([0, 1, u32::MAX, 3], [2.0, -1.0, f32::INFINITY]),
    ] {
        let posed = capture
            .capture_raw(&gpu.device, &gpu.queue, &gpu_model, frames, lerp)
            .unwrap_or_else(|e| panic!("{frames:?} {lerp:?}: {e}"));
        assert_eq!(posed.positions.len(), vertices);
    }
    let pose = Pose::from(FrameLerp {
        frame_a: 10,
        frame_b: 11,
        t: 0.25,
    });
    let words = md2_wgpu::contract::PoseWords::of(&pose);
    let raw = capture
        .capture_raw(
            &gpu.device,
            &gpu.queue,
            &gpu_model,
            words.frames,
            words.lerp,
        )
        .unwrap();
    let checked = capture
        .capture(&gpu.device, &gpu.queue, &gpu_model, &pose, 0.0)
        .unwrap();
    // One pipeline given the same words computes the same bits.
    assert_eq!(raw.positions, checked.positions);
    assert_eq!(raw.normals, checked.normals);
    let (mut p, mut n) = (vec![[0.0; 3]; vertices], vec![[0.0; 3]; vertices]);
    md2_wgpu::anim::reference::blend(&model, &pose, &mut p, &mut n).unwrap();
    // An implementation may fuse q · scale + translate and the lerp's
    // multiply-add, or not (NVIDIA's and lavapipe's bits differ by
    // 4e-7 here): the bound says how far that can take each vertex.
    assert_within(
        "frames 10 and 11 at 0.25, raw words",
        (&raw.positions, &raw.normals),
        (&p, &n),
        &pose_bounds(&model, &pose, 0.0),
    );
}
