//! A model made through the model seam alone (no MD2 file or parts: the
//! way another keyframe format comes in) draws, in every pose, where the
//! CPU reference puts it: uploaded, posed and rasterised by the crate's
//! unchanged paths, the immediate one and a resident crowd.

use glam::{Mat4, Vec3};
use md2_wgpu::Clip;
use md2_wgpu::model::{Animation, KeyframeModel};
use md2_wgpu::{
    Camera, GpuModel, Light, Md2Instance, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
};

use crate::common::*;

const SIZE: u32 = 128;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A seamed box moving over six frames, as two clips of three frames that
/// its frame names (`box01` to `box06`) would not make: the animations
/// come with the parts.
fn seam_model() -> KeyframeModel {
    seamed_box(6).keyframes(Some(vec![
        Animation {
            name: "spin".into(),
            first: 0,
            last: 2,
        },
        Animation {
            name: "tumble".into(),
            first: 3,
            last: 5,
        },
    ]))
}

fn camera() -> Camera {
    let mut camera = square_camera(Vec3::new(18.0, 22.0, 40.0), Vec3::ZERO, 0.9, 1.0, 200.0);
    camera.light = Light::ambient_only(1.0);
    camera
}

#[test]
fn a_model_made_through_the_seam_draws_where_the_cpu_reference_puts_it() {
    let Some(gpu) = gpu() else { return };
    let model = seam_model();
    assert_eq!(model.animations()[1].name, "tumble");
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let skin = solid_skin(4, 4, [200, 180, 120, 255]);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[skin]).unwrap();
    assert_eq!(gpu_model.frame_count(), 6);
    let poses = [
        Pose::from(FrameLerp::still(0)),
        Pose::from(FrameLerp {
            frame_a: 1,
            frame_b: 2,
            t: 0.4,
        }),
        Pose {
            primary: FrameLerp::still(2),
            secondary: FrameLerp::still(4),
            weight: 0.5,
        },
    ];
    let draw = |renderer: &mut Md2Renderer, instances: &[Md2Instance]| {
        render_instances(&gpu, renderer, &camera(), &gpu_model, instances, SIZE)
    };
    let mut pictures = Vec::new();
    for pose in &poses {
        let picture = draw(&mut renderer, &[Md2Instance::new(Mat4::IDENTITY, *pose)]);
        let triangles = cpu_triangles(&model, pose, Mat4::IDENTITY);
        let (decided, wrong) = coverage_against(&picture, &camera(), &triangles);
        eprintln!("{pose:?}: {decided} pixels decided, {wrong} disagree");
        assert!(coverage(&picture) > 500, "it draws");
        assert!(decided > SIZE as usize * SIZE as usize / 2);
        assert_eq!(wrong, 0, "{pose:?}");
        pictures.push(picture);
    }
    save_picture(&pictures[1], "seam-model.png");
    assert!(
        differing_pixels(&pictures[0], &pictures[2], 0) > 100,
        "the poses differ"
    );

    // A resident crowd of it plays its clips by name, as the crate's own
    // clock samples them: the immediate path given the same words draws
    // the same pixels.
    let clip = Clip::for_model(&model)
        .into_iter()
        .find(|c| &*c.name == "tumble")
        .expect("the seam's clip");
    let (from_crowd, drawn) = crowd_of_one(
        &gpu,
        renderer.as_ref(),
        &gpu_model,
        clip,
        &camera(),
        0.15,
        SIZE,
    );
    assert!((3..=5).contains(&drawn.pose.primary.frame_a));
    let instances = [drawn];
    let immediate = draw(&mut renderer, &instances);
    assert_same_drawing(
        &from_crowd,
        &immediate,
        "the seam model, resident and immediate",
    );
}
