//! The renderer in a real wgpu app: several views in one submission, the
//! app's depth conventions (reverse-Z), depth-only passes (shadow maps),
//! linear output, bright tints, a per-instance error policy, mirrored
//! instances.

use crate::common::*;
use glam::{Mat4, Vec3};
use image::RgbaImage;
use md2_wgpu::{
    Camera, DepthState, GpuModel, Light, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::FrameLerp,
    demo,
    gpu::{ColorOutput, Md2Batch, Md2Cache, SetupError},
    scene::{InstanceError, InstancePolicy},
};

const SIZE: u32 = 128;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A few demo models in different poses, one behind another, so depth
/// decides what shows.
fn overlapping_demo_instances() -> Vec<Md2Instance> {
    let clips = [Quake2Player::Run, Quake2Player::Attack, Quake2Player::Wave];
    (0..3)
        .map(|i| {
            let at = Vec3::new(i as f32 * 14.0 - 14.0, 0.0, -(i as f32) * 20.0);
            Md2Instance::from_clip(Mat4::from_translation(at), &clips[i].clip(), 0.3 * i as f64)
        })
        .collect()
}

#[test]
fn two_views_prepared_before_one_submit_show_their_own_cameras() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let options = Md2RendererOptions::WITH_DEPTH;
    let view = || Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
    let (mut left, mut right) = (view(), view());
    let gpu_model = demo_gpu_model(&gpu, &cache);
    let instances = overlapping_demo_instances();
    let batch = [Md2Batch::new(&gpu_model, &instances)];
    let target = Vec3::new(0.0, 28.0, -20.0);
    let camera_a = Camera::look_at(Vec3::new(-60.0, 40.0, 80.0), target, 0.9, 1.0, 1.0, 500.0);
    let camera_b = Camera::look_at(Vec3::new(90.0, 60.0, -10.0), target, 0.9, 1.0, 1.0, 500.0);

    // Both prepared, then both drawn, then one submit.
    left.prepare(&gpu.device, &gpu.queue, &camera_a, &batch)
        .unwrap();
    right
        .prepare(&gpu.device, &gpu.queue, &camera_b, &batch)
        .unwrap();
    let targets = [
        Target::for_renderer(&gpu, &left, SIZE, SIZE),
        Target::for_renderer(&gpu, &right, SIZE, SIZE),
    ];
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    for (target, renderer) in targets.iter().zip([&left, &right]) {
        let mut pass = target.begin(&mut encoder, options.depth);
        renderer.render(&mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
    let read =
        |target: &Target| target.read(&gpu, gpu.device.create_command_encoder(&Default::default()));
    let (a, b) = (read(&targets[0]), read(&targets[1]));

    // Each equals its camera drawn alone.
    let mut alone = view();
    let only_a = render(&gpu, &mut alone, &camera_a, &batch, SIZE, SIZE);
    let only_b = render(&gpu, &mut alone, &camera_b, &batch, SIZE, SIZE);
    save_picture(&a, "views-a.png");
    save_picture(&b, "views-b.png");
    assert_eq!(differing_pixels(&a, &only_a, 0), 0, "view A shows camera A");
    assert_eq!(differing_pixels(&b, &only_b, 0), 0, "view B shows camera B");
    let differ = differing_pixels(&a, &b, 8);
    assert!(differ > 500, "the two views differ ({differ} pixels)");
}

#[test]
fn reverse_z_draws_the_same_picture_as_standard_depth() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let mut standard =
        Md2Renderer::with_cache(&gpu.device, &cache, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let reverse_options = Md2RendererOptions::DEFAULT
        .with_depth(DepthState::reverse_z(wgpu::TextureFormat::Depth32Float));
    let mut reverse = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, reverse_options).unwrap();
    let gpu_model = demo_gpu_model(&gpu, &cache);
    let instances = overlapping_demo_instances();
    let batch = [Md2Batch::new(&gpu_model, &instances)];
    let (eye, target) = (Vec3::new(20.0, 45.0, 70.0), Vec3::new(0.0, 25.0, -20.0));
    let near_far = Camera::look_at(eye, target, 0.9, 1.0, 1.0, 400.0);
    let reverse_finite = Camera::perspective_reverse_z(eye, target, 0.9, 1.0, 1.0, 400.0);
    let reverse_infinite = Camera::perspective_reverse_z(eye, target, 0.9, 1.0, 1.0, f32::INFINITY);
    let want = render(&gpu, &mut standard, &near_far, &batch, SIZE, SIZE);
    assert!(coverage(&want) > 2000);
    for (name, camera) in [("finite", reverse_finite), ("infinite", reverse_infinite)] {
        let got = render(&gpu, &mut reverse, &camera, &batch, SIZE, SIZE);
        save_picture(&got, &format!("reverse-z-{name}.png"));
        let differ = differing_pixels(&want, &got, 2);
        assert!(
            differ <= 6,
            "reverse-Z ({name} far plane): {differ} pixels differ from standard depth"
        );
    }
    // Standard depth state with a reverse-Z camera draws nothing right: the
    // test can tell the conventions apart.
    let wrong = render(&gpu, &mut standard, &reverse_finite, &batch, SIZE, SIZE);
    assert!(differing_pixels(&want, &wrong, 2) > 100);
}

#[test]
fn a_depth_only_pass_makes_a_shadow_map_with_the_model_silhouette() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let depth = DepthState::LESS.with_bias(2, 1.5, 0.0);
    let options = Md2RendererOptions::DEFAULT.with_depth(depth);
    let mut shadow_map = Md2Renderer::depth_only(&gpu.device, &cache, options).unwrap();
    assert_eq!(
        Md2Renderer::depth_only(&gpu.device, &cache, Md2RendererOptions::DEFAULT).unwrap_err(),
        SetupError::NothingToDraw
    );
    let mut colour =
        Md2Renderer::with_cache(&gpu.device, &cache, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let model = demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &cache);
    let instances = [Md2Instance::from_clip(
        Mat4::IDENTITY,
        &Quake2Player::Run.clip(),
        0.15,
    )];
    let batch = [Md2Batch::new(&gpu_model, &instances)];
    // The light's view: from above and to the side.
    let light = Camera::framing_model(&model, 1.0);
    shadow_map
        .prepare(&gpu.device, &gpu.queue, &light, &batch)
        .unwrap();
    let map = attachment(&gpu, wgpu::TextureFormat::Depth32Float, SIZE, SIZE);
    draw_into(&gpu, &[], Some(&map), |pass| shadow_map.render(pass));
    let depths: Vec<f32> = texels(&gpu, &map);
    let mask = RgbaImage::from_fn(SIZE, SIZE, |x, y| {
        let d = depths[(y * SIZE + x) as usize];
        image::Rgba(if d < 1.0 { [255; 4] } else { [0; 4] })
    });
    save_picture(&mask, "shadow-map-silhouette.png");
    // The colour view from the same camera covers the same pixels.
    let seen = render(&gpu, &mut colour, &light, &batch, SIZE, SIZE);
    let silhouette = RgbaImage::from_fn(SIZE, SIZE, |x, y| {
        image::Rgba(if seen.get_pixel(x, y).0[3] > 0 {
            [255; 4]
        } else {
            [0; 4]
        })
    });
    let covered = coverage(&silhouette);
    assert!(covered > 300, "the model is in view ({covered} pixels)");
    let differ = differing_pixels(&mask, &silhouette, 0);
    assert_eq!(
        differ, 0,
        "the shadow map's silhouette differs in {differ} pixels"
    );
    // And depth grows away from the light: the map holds depths, not a mask.
    let mut inside: Vec<f32> = depths.iter().copied().filter(|&d| d < 1.0).collect();
    inside.sort_by(f32::total_cmp);
    assert!(inside[inside.len() - 1] - inside[0] > 0.01, "depths vary");
}

/// An f16 as f32.
fn half(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        _ => (1.0 + mantissa / 1024.0) * 2f32.powi(exponent - 15),
    }
}

#[test]
fn linear_targets_hold_linear_light_and_bright_tints_exceed_one() {
    let Some(gpu) = gpu() else { return };
    let format = wgpu::TextureFormat::Rgba16Float;
    let mut renderer = Md2Renderer::new(&gpu.device, format, Md2RendererOptions::DEFAULT).unwrap();
    assert_eq!(
        renderer.options().output.resolve(format),
        ColorOutput::Linear
    );
    let skin_byte = [255u8, 64, 200];
    let square = front_square(0, 0, (1, 1));
    let gpu_model = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &square,
        &[solid_skin(
            1,
            1,
            [skin_byte[0], skin_byte[1], skin_byte[2], 255],
        )],
    )
    .unwrap();
    let mut camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, 0.8);
    camera.light = Light {
        towards_light: Vec3::Z,
        color: Vec3::new(0.25, 0.5, 0.5),
        ambient: Vec3::splat(0.5),
    };
    // A flash: four times as bright in red, twice in green, half in blue.
    let tint = [4.0, 2.0, 0.5, 1.0];
    let instances = [Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0)).with_tint(tint)];
    renderer
        .prepare(
            &gpu.device,
            &gpu.queue,
            &camera,
            &[Md2Batch::new(&gpu_model, &instances)],
        )
        .unwrap();
    let target = attachment(&gpu, format, 8, 8);
    draw_into(&gpu, &[&target], None, |pass| renderer.render(pass));
    let halves: Vec<u16> = texels(&gpu, &target);
    let pixel: Vec<f32> = halves[4 * (4 * 8 + 4)..][..4]
        .iter()
        .map(|&h| half(h))
        .collect();
    // The CPU's shading of that pixel: the skin in linear light, times
    // ambient + light × max(n·l, 0) (the square faces the light), times the
    // tint.
    for c in 0..3 {
        let light = camera.light.ambient[c] + camera.light.color[c];
        let want = srgb_to_linear(skin_byte[c]) * light * tint[c];
        assert!(
            (pixel[c] - want).abs() <= want * 2e-3 + 2e-3,
            "channel {c}: the target holds {}, the CPU shades {want} (pixel {pixel:?})",
            pixel[c]
        );
    }
    assert!(pixel[0] > 1.0, "a bright tint exceeds 1 on a float target");
    assert_eq!(pixel[3], 1.0);

    // On a unorm target, Linear writes the same linear values (clamped),
    // where Auto encodes sRGB for display.
    let unorm = wgpu::TextureFormat::Rgba8Unorm;
    let mut linear = Md2Renderer::new(
        &gpu.device,
        unorm,
        Md2RendererOptions::DEFAULT.with_output(ColorOutput::Linear),
    )
    .unwrap();
    let mut encoded = Md2Renderer::new(&gpu.device, unorm, Md2RendererOptions::DEFAULT).unwrap();
    assert_eq!(
        encoded.options().output.resolve(unorm),
        ColorOutput::SrgbEncoded
    );
    let plain = [Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0))];
    let batch = [Md2Batch::new(&gpu_model, &plain)];
    let a = render(&gpu, &mut linear, &camera, &batch, 8, 8);
    let b = render(&gpu, &mut encoded, &camera, &batch, 8, 8);
    for (c, &byte) in skin_byte.iter().enumerate() {
        let light = camera.light.ambient[c] + camera.light.color[c];
        let value = (srgb_to_linear(byte) * light).min(1.0);
        let (linear_byte, encoded_byte) = (a.get_pixel(4, 4).0[c], b.get_pixel(4, 4).0[c]);
        assert!(
            linear_byte.abs_diff((value * 255.0).round() as u8) <= 1,
            "channel {c}: Linear wrote {linear_byte} for {value}"
        );
        assert!(
            encoded_byte.abs_diff(srgb_byte(value)) <= 1,
            "channel {c}: SrgbEncoded wrote {encoded_byte} for {value}"
        );
    }
    assert_eq!(
        Md2Renderer::new(
            &gpu.device,
            SRGB,
            Md2RendererOptions::DEFAULT.with_output(ColorOutput::SrgbEncoded),
        )
        .unwrap_err(),
        SetupError::EncodedTwice { format: SRGB }
    );
}

/// A row of ten squares, the bad ones at 2, 5 and 9.
fn row_with_bad_instances() -> Vec<Md2Instance> {
    (0..10)
        .map(|i| {
            let at = Mat4::from_translation(Vec3::new(i as f32 + 0.5, 0.5, 0.0))
                * Mat4::from_scale(Vec3::splat(0.8));
            let instance = Md2Instance::new(at, FrameLerp::still(0));
            match i {
                2 => Md2Instance::new(at, FrameLerp::still(3)),
                5 => instance.with_skin(7),
                9 => Md2Instance::new(
                    at,
                    FrameLerp {
                        frame_a: 0,
                        frame_b: 1,
                        t: 0.5,
                    },
                ),
                _ => instance,
            }
        })
        .collect()
}

#[test]
fn skip_and_clamp_policies_draw_the_good_and_report_the_bad() {
    let Some(gpu) = gpu() else { return };
    let square = front_square(0, 0, (1, 1));
    let white = solid_skin(1, 1, [255, 255, 255, 255]);
    let camera = ortho_camera(0.0, 10.0, 0.0, 1.0, 1.0);
    let instances = row_with_bad_instances();
    let drawn = |image: &RgbaImage| -> Vec<bool> {
        (0..10)
            .map(|i| image.get_pixel(i * 32 + 16, 16).0[3] > 0)
            .collect()
    };
    for policy in [InstancePolicy::Skip, InstancePolicy::Clamp] {
        let mut renderer = Md2Renderer::new(
            &gpu.device,
            SRGB,
            Md2RendererOptions::DEFAULT.with_policy(policy),
        )
        .unwrap();
        let gpu_model = GpuModel::new(
            &gpu.device,
            &gpu.queue,
            &renderer,
            &square,
            std::slice::from_ref(&white),
        )
        .unwrap();
        let batch = [Md2Batch::new(&gpu_model, &instances)];
        let report = renderer
            .prepare(&gpu.device, &gpu.queue, &camera, &batch)
            .unwrap();
        let image = draw_and_read(&gpu, &[&renderer], 320, 32);
        save_picture(&image, &format!("policy-{policy:?}.png"));
        let bad: Vec<usize> = report
            .first
            .iter()
            .map(|e| match e {
                InstanceError::FrameOutOfRange { instance, .. }
                | InstanceError::SkinOutOfRange { instance, .. } => *instance,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(bad, [2, 5, 9], "{policy:?}: the report names the bad ones");
        match policy {
            InstancePolicy::Skip => {
                assert_eq!((report.skipped, report.clamped), (3, 0));
                let want: Vec<bool> = (0..10).map(|i| ![2, 5, 9].contains(&i)).collect();
                assert_eq!(drawn(&image), want, "skip draws the good ones only");
            }
            _ => {
                assert_eq!((report.skipped, report.clamped), (0, 3));
                assert_eq!(drawn(&image), vec![true; 10], "clamp draws them all");
            }
        }
    }
}

#[test]
fn mirrored_instances_draw_their_outside() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let culled = Md2RendererOptions::DEFAULT;
    let by_depth = Md2RendererOptions {
        cull_back_faces: false,
        ..Md2RendererOptions::WITH_DEPTH
    };
    let mut culling = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, culled).unwrap();
    let mut depth = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, by_depth).unwrap();
    let gpu_model = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &cache,
        &cube_model(),
        &[cube_skin()],
    )
    .unwrap();
    let camera = Camera::look_at(Vec3::new(3.0, 2.5, 4.0), Vec3::ZERO, 0.8, 1.0, 0.5, 20.0);
    // Mirrored across each axis, and not, side by side in one batch.
    let mirrors = [
        Vec3::ONE,
        Vec3::new(-1.0, 1.0, 1.0),
        Vec3::new(1.0, -1.0, 1.0),
        Vec3::new(1.0, 1.0, -1.0),
    ];
    for scale in mirrors {
        let instances = [Md2Instance::new(
            Mat4::from_scale(scale * 0.9),
            FrameLerp::still(0),
        )];
        let batch = [Md2Batch::new(&gpu_model, &instances)];
        let a = render(&gpu, &mut culling, &camera, &batch, SIZE, SIZE);
        let b = render(&gpu, &mut depth, &camera, &batch, SIZE, SIZE);
        save_picture(
            &a,
            &format!("mirror-{}-{}-{}.png", scale.x, scale.y, scale.z),
        );
        assert!(coverage(&a) > 1000);
        let differ = differing_pixels(&a, &b, 2);
        assert!(
            differ <= 8,
            "mirrored by {scale}: culling shows {differ} pixels that depth testing hides"
        );
    }
}
