//! The same inputs give the same pixels: translucent members and shells of
//! a resident crowd blend in member order (or sorted back to front) every
//! frame, exactly as the immediate path draws the same instances; mirrored
//! translucent instances keep the order given.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::ClipClock,
    gpu::Md2Batch,
    scene::{Effects, PlanarShadow, TranslucentOrder},
};

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const SIZE: u32 = 256;
/// The crowd's time. Every clip plays once at 8 fps from a start a multiple
/// of 1/16 s before it. A one-shot clip's GPU clock gains exactly
/// 8 / 2^20 frames a tick (a looping one gains 8 / (length × 2^20), which
/// is not exact for most lengths, so its t can land 2^-24 below a whole
/// frame where the CPU's is 0), so each pose's t is 0 or 0.5 exactly on the
/// CPU and the GPU alike: the two paths get bit-identical records.
const NOW: f64 = 1000.0;

fn options(order: TranslucentOrder) -> Md2RendererOptions {
    Md2RendererOptions::WITH_DEPTH_STENCIL.with_translucent_order(order)
}

fn renderer(
    gpu: &Gpu,
    cache: &impl AsRef<md2_wgpu::gpu::Md2Cache>,
    order: TranslucentOrder,
) -> Md2Renderer {
    let mut renderer = Md2Renderer::with_cache(&gpu.device, cache, SRGB, options(order)).unwrap();
    renderer
        .set_shadow(Some(PlanarShadow::on_ground(
            -24.0,
            Vec3::new(0.3, 1.0, 0.2),
        )))
        .unwrap();
    renderer
}

fn camera() -> Camera {
    square_camera(Vec3::new(0.0, 110.0, 300.0), Vec3::ZERO, 0.9, 10.0, 2000.0)
}

/// `count` demo soldiers crowded into a 240-unit square so that they
/// overlap many times over: most translucent, a quarter mirrored, a tenth
/// in shells.
fn members(count: usize) -> Vec<CrowdMember> {
    let mut rng = Rng::new(16);
    let clips = Quake2Player::clips();
    (0..count)
        .map(|i| {
            let at = Vec3::new(rng.range(-120.0, 120.0), 0.0, rng.range(-120.0, 120.0));
            let mirror = if i % 4 == 1 { -1.0 } else { 1.0 };
            let transform = Mat4::from_translation(at)
                * Mat4::from_rotation_y(rng.range(0.0, std::f32::consts::TAU))
                * Mat4::from_scale(Vec3::new(mirror, 1.0, 1.0));
            let mut clip = clips[rng.below(clips.len())].clone().with_fps(8.0);
            clip.looping = false;
            let start = NOW - rng.below(64) as f64 / 16.0;
            let alpha = if i % 5 == 0 { 1.0 } else { 0.5 };
            let tint = [
                rng.range(0.3, 1.0),
                rng.range(0.3, 1.0),
                rng.range(0.3, 1.0),
                alpha,
            ];
            let mut effects = Effects::NONE;
            if i % 10 == 3 {
                effects = effects.with_shell([rng.unit(), rng.unit(), 1.0]);
            }
            CrowdMember::new(transform, ClipClock::new(clip, start))
                .with_tint(tint)
                .with_effects(effects)
        })
        .collect()
}

fn instances(members: &[CrowdMember]) -> Vec<Md2Instance> {
    members
        .iter()
        .map(|m| {
            Md2Instance::from_playback(m.transform, &m.playback, NOW)
                .with_skin(m.skin)
                .with_tint(m.tint)
                .with_effects(m.effects)
        })
        .collect()
}

fn crowd_frame(gpu: &Gpu, renderer: &mut Md2Renderer, crowd: &mut Md2Crowd) -> image::RgbaImage {
    draw_crowd(gpu, renderer, &camera(), &[], crowd, NOW, SIZE).unwrap()
}

fn immediate_frame(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    model: &GpuModel,
    instances: &[Md2Instance],
) -> image::RgbaImage {
    render_instances(gpu, renderer, &camera(), model, instances, SIZE)
}

#[test]
fn a_translucent_crowd_draws_the_same_pixels_every_frame_as_the_immediate_path() {
    let Some(gpu) = gpu_at_limits() else { return };
    let (cache, model) = demo_cache(&gpu);
    let members = members(1200);
    let mut crowd = Md2Crowd::new(&gpu.device, &cache, &model).unwrap();
    for m in &members {
        crowd.add(m.clone()).unwrap();
    }
    for order in [TranslucentOrder::AsGiven, TranslucentOrder::BackToFront] {
        let mut resident = renderer(&gpu, &cache, order);
        let first = crowd_frame(&gpu, &mut resident, &mut crowd);
        save_picture(&first, &format!("order-crowd-{order:?}.png"));
        assert!(coverage(&first) > 15_000, "the crowd fills the view");
        let frames = if order == TranslucentOrder::AsGiven {
            100
        } else {
            30
        };
        for frame in 1..frames {
            let again = crowd_frame(&gpu, &mut resident, &mut crowd);
            assert_identical(
                &first,
                &again,
                &format!("{order:?}: frame {frame} and frame 0"),
            );
        }
        // The immediate path, given the members in the crowd's order, or
        // with the translucent ones sorted on the CPU by the documented key,
        // draws the same picture. Opaque members keep member order: where
        // two are at exactly the same depth the first drawn wins, and a
        // crowd this dense has such pixels. (No opaque member has a shell,
        // so the shells follow their translucent members' order.)
        let mut given = instances(&members);
        if order == TranslucentOrder::BackToFront {
            let depth = |i: &Md2Instance| {
                resident
                    .options()
                    .view_depth(&camera(), i.transform.w_axis.truncate())
            };
            let translucent = |i: &Md2Instance| i.tint[3] < 1.0;
            // Stable: opaque members, then translucent ones farthest first,
            // equal depths in member order.
            given.sort_by(|a, b| {
                translucent(a)
                    .cmp(&translucent(b))
                    .then_with(|| match translucent(a) {
                        true => depth(b).total_cmp(&depth(a)),
                        false => std::cmp::Ordering::Equal,
                    })
            });
            assert!(
                !given
                    .iter()
                    .any(|i| !translucent(i) && i.effects.shell.is_some())
            );
        }
        let mut immediate = renderer(&gpu, &cache, TranslucentOrder::AsGiven);
        let reference = immediate_frame(&gpu, &mut immediate, &model, &given);
        // The same words, two pipelines: the same pixels covered, and
        // colours within one step (`assert_same_drawing`); a blend in
        // another order would be off by far more.
        assert_same_drawing(
            &first,
            &reference,
            &format!("{order:?}: resident and immediate"),
        );
        // The immediate path sorts the same way itself.
        let mut sorting = renderer(&gpu, &cache, order);
        let own = immediate_frame(&gpu, &mut sorting, &model, &instances(&members));
        let own_order = format!("{order:?}: the immediate path's own order and the reference");
        assert_identical(&own, &reference, &own_order);
    }
    // The two orders do differ, so the comparisons above can fail.
    let mut given = renderer(&gpu, &cache, TranslucentOrder::AsGiven);
    let mut sorted = renderer(&gpu, &cache, TranslucentOrder::BackToFront);
    let a = crowd_frame(&gpu, &mut given, &mut crowd);
    let b = crowd_frame(&gpu, &mut sorted, &mut crowd);
    let differ = differing_pixels(&a, &b, 0);
    eprintln!("member order and back to front differ in {differ} pixels");
    assert!(
        differ > 1000,
        "sorting changes the picture ({differ} pixels)"
    );
}

/// Two overlapping translucent soldiers: `a` mirrored, `b` not.
fn overlapping_pair() -> [Md2Instance; 2] {
    let run = Quake2Player::Run.clip();
    let a = Md2Instance::from_clip(
        Mat4::from_translation(Vec3::new(-6.0, 0.0, 0.0))
            * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        &run,
        0.05,
    )
    .with_tint([1.0, 0.2, 0.1, 0.6]);
    let b = Md2Instance::from_clip(Mat4::from_translation(Vec3::new(6.0, 0.0, 10.0)), &run, 0.3)
        .with_tint([0.1, 0.3, 1.0, 0.6]);
    [a, b]
}

#[test]
fn mirrored_and_plain_translucent_instances_blend_in_the_order_given() {
    let Some(gpu) = gpu() else { return };
    let (cache, model) = demo_cache(&gpu);
    let camera = square_camera(Vec3::new(0.0, 20.0, 90.0), Vec3::ZERO, 0.9, 1.0, 500.0);
    let options = Md2RendererOptions::WITH_DEPTH;
    let view = || Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
    let [a, b] = overlapping_pair();
    // One at a time, each by its own view, in the pass one after the other.
    let one_by_one = |first: Md2Instance, second: Md2Instance| {
        let [r1, r2] = [first, second].map(|instance| {
            let mut renderer = view();
            let instances = [instance];
            let batch = [Md2Batch::new(&model, &instances)];
            renderer
                .prepare(&gpu.device, &gpu.queue, &camera, &batch)
                .unwrap();
            renderer
        });
        draw_and_read(&gpu, &[&r1, &r2], SIZE, SIZE)
    };
    let a_then_b = one_by_one(a, b);
    let b_then_a = one_by_one(b, a);
    let swapped = differing_pixels(&a_then_b, &b_then_a, 0);
    assert!(swapped > 500, "the order shows ({swapped} pixels)");

    let mut batch = view();
    let together = render_instances(&gpu, &mut batch, &camera, &model, &[a, b], SIZE);
    save_picture(&together, "order-mirrored-pair.png");
    assert_identical(&together, &a_then_b, "the batch [a, b] and a then b");
    assert_eq!(
        md2_wgpu::gpu::low_level::recorded_draws(&batch),
        1,
        "one translucent draw for both windings"
    );

    // The resident path keeps member order the same way.
    let mut crowd = Md2Crowd::new(&gpu.device, &cache, &model).unwrap();
    for instance in [a, b] {
        let playback = ClipClock::new(Quake2Player::Run.clip(), 0.0);
        crowd
            .add(CrowdMember::new(instance.transform, playback).with_tint(instance.tint))
            .unwrap();
    }
    let mut resident = view();
    let crowd_picture =
        draw_crowd(&gpu, &mut resident, &camera, &[], &mut crowd, 0.05, SIZE).unwrap();
    // Member b plays from 0 too, so it shows the pose at 0.05, not 0.3:
    // compare with the immediate path given exactly the poses the crowd
    // drew.
    let mut posed: Vec<Md2Instance> = crowd
        .iter()
        .map(|(_, m)| Md2Instance::from_playback(m.transform, &m.playback, 0.05).with_tint(m.tint))
        .collect();
    assert_eq!(with_drawn_poses(&gpu, &resident, 0, &mut posed), 2);
    let mut immediate = view();
    let reference = render_instances(&gpu, &mut immediate, &camera, &model, &posed, SIZE);
    assert_same_drawing(
        &crowd_picture,
        &reference,
        "the crowd [a, b] and the batch [a, b]",
    );
}
