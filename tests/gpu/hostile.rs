//! Hostile input: frames and skins out of range, no instances, an instance
//! count that jumps around, models bigger than the device allows. Each is a
//! typed error or a correct picture, never a wgpu panic.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::{
    GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
    format::TexCoord,
    gpu::{Md2Batch, PrepareError, SetupError},
    model::{Frame, PackedVertex},
    scene::InstanceError,
};

const SIZE: u32 = 128;

fn renderer(gpu: &Gpu) -> Md2Renderer {
    srgb_renderer_with(gpu, Md2RendererOptions::DEFAULT)
}

/// `frames` frames of a single triangle.
fn many_frames(frames: usize) -> Md2Model {
    one_triangle(
        TexCoord { s: 0, t: 0 },
        [0, 1, 2],
        (0..frames)
            .map(|i| Frame::new(&format!("f{i}"), [1.0; 3], [0.0; 3]))
            .collect(),
        (0..frames * 3)
            .map(|i| PackedVertex {
                position: [(i % 3 * 9) as u8, (i % 5) as u8, 3],
                normal_index: 0,
            })
            .collect(),
    )
}

#[test]
fn frames_and_skins_out_of_range_are_typed_errors() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let model = cube_model();
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[]).unwrap();
    let other = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &many_frames(5), &[]).unwrap();
    let camera = ortho_camera(-2.0, 2.0, -2.0, 2.0, 1.0);
    let good = Md2Instance::default();
    let prepare = |renderer: &mut Md2Renderer, batches: &[Md2Batch<'_>]| {
        renderer.prepare(&gpu.device, &gpu.queue, &camera, batches)
    };

    // A good frame first so the failure is visibly not a leftover.
    let ok_instances = [good];
    prepare(&mut renderer, &[Md2Batch::new(&gpu_model, &ok_instances)]).unwrap();

    let bad_frame = [
        good,
        good,
        Md2Instance::new(
            Mat4::IDENTITY,
            FrameLerp {
                frame_a: 0,
                frame_b: 1,
                t: 0.5,
            },
        ),
    ];
    let batches = [
        Md2Batch::new(&other, &ok_instances),
        Md2Batch::new(&gpu_model, &bad_frame),
    ];
    let err = prepare(&mut renderer, &batches).unwrap_err();
    assert_eq!(
        err,
        PrepareError::Instance(InstanceError::FrameOutOfRange {
            batch: 1,
            instance: 2,
            field: "pose.primary.frame_b",
            frame: 1,
            frame_count: 1,
        })
    );
    assert!(err.to_string().contains("batch 1, instance 2"), "{err}");
    // After a failed prepare nothing is drawn, not the previous frame.
    let image = draw_and_read(&gpu, &[&renderer], SIZE, SIZE);
    assert_eq!(coverage(&image), 0);

    let secondary = [Md2Instance::new(
        Mat4::IDENTITY,
        Pose {
            primary: FrameLerp::still(4),
            secondary: FrameLerp::still(u32::MAX),
            weight: 0.0,
        },
    )];
    let err = prepare(&mut renderer, &[Md2Batch::new(&other, &secondary)]).unwrap_err();
    assert!(
        matches!(
            err,
            PrepareError::Instance(InstanceError::FrameOutOfRange {
                field: "pose.secondary.frame_a",
                frame: u32::MAX,
                frame_count: 5,
                ..
            })
        ),
        "{err}"
    );

    let bad_skin = [good.with_skin(1)];
    let err = prepare(&mut renderer, &[Md2Batch::new(&gpu_model, &bad_skin)]).unwrap_err();
    assert_eq!(
        err,
        PrepareError::Instance(InstanceError::SkinOutOfRange {
            batch: 0,
            instance: 0,
            skin: 1,
            skin_count: 1,
        })
    );

    // And the renderer recovers.
    let image = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &[good], SIZE);
    assert!(coverage(&image) > 0);
}

#[test]
fn zero_instances_draw_nothing_without_error() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &cube_model(), &[]).unwrap();
    let camera = ortho_camera(-2.0, 2.0, -2.0, 2.0, 1.0);
    // Before any prepare, with no batches, and with empty batches.
    let image = draw_and_read(&gpu, &[&renderer], SIZE, SIZE);
    assert_eq!(coverage(&image), 0);
    let image = render_square(&gpu, &mut renderer, &camera, &[], SIZE);
    assert_eq!(coverage(&image), 0);
    let image = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &[], SIZE);
    assert_eq!(coverage(&image), 0);
    assert!(image.pixels().all(|p| p.0 == [0, 0, 0, 0]));
}

/// Instance `i` of a unit square at cell (i % 316, i / 316) of a grid.
fn grid(count: usize) -> Vec<Md2Instance> {
    (0..count)
        .map(|i| {
            let at = Vec3::new((i % 316) as f32 + 0.5, (i / 316) as f32 + 0.5, 0.0);
            Md2Instance::new(Mat4::from_translation(at), FrameLerp::still(0))
        })
        .collect()
}

#[test]
fn instance_count_can_grow_and_shrink() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let gpu_model = white_square(&gpu, &renderer);
    // 16 × 16 cells of 16 pixels in view.
    let camera = ortho_camera(0.0, 16.0, 0.0, 16.0, 1.0);
    let draw = |renderer: &mut Md2Renderer, count: usize| {
        render_instances(&gpu, renderer, &camera, &gpu_model, &grid(count), 256)
    };

    let image = draw(&mut renderer, 1);
    assert_eq!(coverage(&image), 16 * 16);

    let image = draw(&mut renderer, 100_000);
    assert_eq!(
        coverage(&image),
        256 * 256,
        "100,000 instances cover the view"
    );
    let capacity = renderer.instance_capacity();
    assert!(capacity >= 100_000);

    let image = draw(&mut renderer, 10);
    save_picture(&image, "ten-instances.png");
    assert_eq!(
        coverage(&image),
        10 * 16 * 16,
        "exactly the 10 instances remain"
    );
    assert_eq!(
        renderer.instance_capacity(),
        capacity,
        "shrinking keeps the buffer"
    );
    // Every one of the ten cells is covered, at the bottom of the view.
    for i in 0..10u32 {
        assert_eq!(image.get_pixel(i * 16 + 8, 256 - 8).0[3], 255, "cell {i}");
    }
}

#[test]
fn a_model_over_the_storage_limit_is_a_clear_error() {
    let Some(gpu) = gpu_with(
        |_| wgpu::Limits {
            max_storage_buffer_binding_size: 8192,
            ..md2_wgpu::gpu::required_limits()
        },
        wgpu::Features::empty(),
    ) else {
        return;
    };
    let renderer = renderer(&gpu);
    // 700 frames × 3 vertices × 4 bytes = 8,400 bytes of vertex data.
    let err =
        GpuModel::new(&gpu.device, &gpu.queue, &renderer, &many_frames(700), &[]).unwrap_err();
    assert_eq!(
        err,
        SetupError::ModelTooLarge {
            buffer: "vertex data",
            bytes: 8400,
            limit_name: "max_storage_buffer_binding_size",
            limit: 8192,
        }
    );
    assert!(err.to_string().contains("8400 bytes"), "{err}");
    // 200 frames: 2,400 bytes of vertex data, and the normal table and
    // frame parameters, 4,096 + 6,400, over the limit.
    let err =
        GpuModel::new(&gpu.device, &gpu.queue, &renderer, &many_frames(200), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            SetupError::ModelTooLarge {
                buffer: "frame parameters",
                bytes: 10496,
                ..
            }
        ),
        "{err}"
    );
    // Within the limit works (100 frames: 1,200 bytes of vertex data,
    // 4,096 + 3,200 of normal table and frame parameters).
    GpuModel::new(&gpu.device, &gpu.queue, &renderer, &many_frames(100), &[]).unwrap();

    // A real model on the same device.
    if let Some((model, skins)) = shared_model("yohko/tris.md2", Some("yohko/Yohko.pcx")) {
        let err = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins).unwrap_err();
        assert!(
            matches!(err, SetupError::ModelTooLarge { bytes, .. } if bytes == 4 * 411 * 198),
            "{err}"
        );
    }
}

#[test]
fn too_many_frames_or_skins_are_clear_errors() {
    let Some(gpu) = gpu() else { return };
    let renderer = renderer(&gpu);
    let frames = md2_wgpu::contract::MAX_GPU_FRAMES + 1;
    let err = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &many_frames(frames as usize),
        &[],
    )
    .unwrap_err();
    assert_eq!(
        err,
        SetupError::TooManyFrames {
            frames,
            max: md2_wgpu::contract::MAX_GPU_FRAMES,
        }
    );

    let layers = gpu.device.limits().max_texture_array_layers;
    let skins = vec![solid_skin(1, 1, [1, 2, 3, 255]); layers as usize + 1];
    let err = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &cube_model(), &skins).unwrap_err();
    assert_eq!(
        err,
        SetupError::TooManySkins {
            skins: layers as usize + 1,
            max: layers,
        }
    );
}

#[test]
fn gpu_bytes_are_the_files_bytes() {
    let Some(gpu) = gpu() else { return };
    let renderer = renderer(&gpu);
    let model = many_frames(7);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[]).unwrap();
    let bytes = gpu_model.gpu_bytes_breakdown();
    assert_eq!(bytes.vertex_data, 4 * 3 * 7);
    // The normal table, then 32 bytes a frame.
    assert_eq!(bytes.frame_params, 4096 + 32 * 7);
    assert_eq!(gpu_model.gpu_bytes(), bytes.total());
    assert_eq!(gpu_model.mesh().corners().len(), 3);
    assert_eq!(gpu_model.mesh().triangle_count(), 1);
    if let Some((model, skins)) = shared_model("yohko/tris.md2", Some("yohko/Yohko.pcx")) {
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins).unwrap();
        let bytes = gpu_model.gpu_bytes_breakdown();
        assert_eq!(bytes.vertex_data, 4 * 411 * 198);
        // DESIGN.md: a real player model welds to 638 corners.
        assert_eq!(gpu_model.mesh().corners().len(), 638);
        assert_eq!(gpu_model.mesh().triangle_count(), 772);
        assert_eq!(gpu_model.skin_size(), (256, 256));
    }
}
