//! Quake II's entity effects, each on against off: powerup shells, planar
//! shadows, translucency, fullbright and minlight; and the draw count that
//! stays flat however many instances carry them.

use crate::common::*;
use glam::{Mat4, Vec3, Vec4};
use md2_wgpu::{
    Camera, CrowdMember, DepthState, GpuModel, Light, Md2Crowd, Md2Instance, Md2Renderer,
    Md2RendererOptions, Quake2Player,
    anim::{ClipClock, FrameLerp, reference},
    demo,
    gpu::{Md2Batch, SetupError},
    scene::{Effects, PlanarShadow, ShadowStencil, quake_flags, stand_on_ground},
};

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const SIZE: u32 = 160;

fn stencil_options() -> Md2RendererOptions {
    Md2RendererOptions::DEFAULT.with_depth(DepthState::standard(
        wgpu::TextureFormat::Depth24PlusStencil8,
    ))
}

#[test]
fn a_shell_stands_off_the_silhouette_in_its_colour_at_alpha_0_3() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let model = demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let camera = frames_camera(&model, &[0], 1.0);
    let plain = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0));
    let red = Effects::from_quake_flags(quake_flags::RF_SHELL_RED);
    let shelled = plain.with_effects(red);
    let mut draw = |instance: Md2Instance| {
        render_instances(&gpu, &mut renderer, &camera, &gpu_model, &[instance], SIZE)
    };
    let a = draw(plain);
    let b = draw(shelled);
    save_picture(&a, "shell-off.png");
    save_picture(&b, "shell-red.png");

    // Past the silhouette, over the cleared (transparent black) target:
    // the shell's red blended at 0.3 by every layer of shell in front of
    // the pixel (front and back of a limb give two): after k layers, red
    // and alpha are 1 − 0.7^k in linear light. (wgpu's ALPHA_BLENDING
    // composites alpha "over".)
    let layers = |k: i32| {
        let c = 1.0 - 0.7f32.powi(k);
        [srgb_byte(c), 0, 0, (c * 255.0).round() as u8]
    };
    let outside: Vec<[u8; 4]> = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0[3] == 0 && q.0[3] > 0)
        .map(|(_, q)| q.0)
        .collect();
    assert!(
        outside.len() > 300,
        "the shell extends past the silhouette ({} pixels)",
        outside.len()
    );
    // Each layer rounds to 8 bits in the target, so allow a little drift.
    let close = |p: &[u8; 4], want: [u8; 4]| p.iter().zip(want).all(|(&c, w)| c.abs_diff(w) <= 3);
    let mut by_layers = [0usize; 13];
    for p in &outside {
        let k = (1..=12)
            .find(|&k| close(p, layers(k)))
            .unwrap_or_else(|| panic!("shell pixel {p:?} is no number of layers of red at 0.3"));
        by_layers[k as usize] += 1;
    }
    assert!(
        by_layers[1] * 4 > outside.len(),
        "one layer of shell covers a good share of the outline: {by_layers:?}"
    );

    // Over the model: each layer keeps 0.7 of what was there (in linear
    // light) and adds 0.3 red; every visible point of the model lies behind
    // at least one layer of its shell.
    let ratios: Vec<f32> = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, _)| p.0[3] > 0 && p.0[1] > 60)
        .map(|(p, q)| srgb_to_linear(q.0[1]) / srgb_to_linear(p.0[1]))
        .collect();
    let one = ratios.iter().filter(|r| (*r - 0.7).abs() < 0.03).count();
    assert!(
        one * 10 > ratios.len(),
        "one layer (0.7 of the green kept) over {one} of {} model pixels",
        ratios.len()
    );
    let unshelled = ratios.iter().filter(|&&r| r > 0.75).count();
    assert_eq!(unshelled, 0, "model pixels the shell does not cover");

    // Any colour a user picks, and Quake II's combinations.
    let gold = plain.with_effects(Effects::from_quake_flags(quake_flags::RF_SHELL_DOUBLE));
    let c = draw(gold);
    let gold_pixel = c
        .pixels()
        .zip(a.pixels())
        .find(|(q, p)| p.0[3] == 0 && q.0[3] > 0)
        .map(|(q, _)| q.0)
        .unwrap();
    assert!(gold_pixel[0] > gold_pixel[1] && gold_pixel[1] > 0 && gold_pixel[2] == 0);
}

/// A flat white square on the ground (y = 0), `half` units each way,
/// drawn opaque and casting no shadow.
fn ground(gpu: &Gpu, renderer: &Md2Renderer, half: f32) -> (GpuModel, Md2Instance) {
    let model = white_square(gpu, renderer);
    // The square faces +Z; laid down it faces +Y.
    let transform = Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2)
        * Mat4::from_scale(Vec3::new(2.0 * half, 2.0 * half, 1.0));
    let instance = Md2Instance::new(transform, FrameLerp::still(0)).with_effects(Effects {
        fullbright: true,
        no_shadow: true,
        ..Effects::NONE
    });
    (model, instance)
}

/// From high above, looking down, in ambient light alone: the ground and
/// the shadows on it.
fn from_above() -> Camera {
    let mut camera = square_camera(Vec3::new(0.0, 160.0, 1.0), Vec3::ZERO, 0.7, 10.0, 1000.0);
    camera.light = Light::ambient_only(1.0);
    camera
}

#[test]
fn a_planar_shadow_lies_where_the_projection_puts_it_with_one_darkness() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, stencil_options()).unwrap();
    let model = demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let (floor, floor_instance) = ground(&gpu, &renderer, 150.0);
    let towards_light = Vec3::new(0.8, 1.5, 0.4);
    let shadow = PlanarShadow::on_ground(0.0, towards_light);
    let lerp = Quake2Player::Run.clip().sample(0.25);
    let frames = lerp.frame_a..=lerp.frame_b;
    let place = stand_on_ground(&model, frames, Vec3::ZERO);
    // From high above, looking down: the shadow falls beside the model.
    let camera = from_above();
    // The figure on the floor, drawn with the shadow on, then off.
    let mut on_and_off = |figure: Md2Instance| {
        let (floors, figures) = ([floor_instance], [figure]);
        let batches = [
            Md2Batch::new(&floor, &floors),
            Md2Batch::new(&gpu_model, &figures),
        ];
        renderer.set_shadow(Some(shadow)).unwrap();
        let on = render_square(&gpu, &mut renderer, &camera, &batches, SIZE);
        renderer.set_shadow(None).unwrap();
        let off = render_square(&gpu, &mut renderer, &camera, &batches, SIZE);
        (on, off)
    };
    let figure = Md2Instance::new(place, lerp);
    let (with, without) = on_and_off(figure);
    save_picture(&with, "shadow-on.png");
    save_picture(&without, "shadow-off.png");

    // Shadow pixels: the white ground darkened. Every one the same: half the
    // ground's light, once, however often the model overlaps itself.
    let white = without.get_pixel(2, 2).0;
    assert_eq!(&white[..3], &[255, 255, 255], "the ground is white");
    let half = srgb_byte(0.5);
    let mut shadow_px = Vec::new();
    for (x, y, p) in with.enumerate_pixels() {
        let q = without.get_pixel(x, y).0;
        if q == white && p.0 != white {
            shadow_px.push((x, y));
            for c in 0..3 {
                assert!(
                    p.0[c].abs_diff(half) <= 1,
                    "shadow pixel ({x}, {y}) is {:?}: one darkness is {half}",
                    p.0
                );
            }
        }
    }
    assert!(
        shadow_px.len() > 100,
        "a shadow is seen ({} pixels)",
        shadow_px.len()
    );

    // Its extent: the CPU's projection of the posed vertices.
    let n = model.keyframes().vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    reference::interpolate(&model, lerp, &mut p, &mut nrm).unwrap();
    let world = place * md2_wgpu::scene::QUAKE_TO_Y_UP;
    let onto = shadow.projection();
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for v in &p {
        let w = onto * world * Vec4::new(v[0], v[1], v[2], 1.0);
        let clip = camera.view_proj * w;
        let x = (clip.x / clip.w * 0.5 + 0.5) * SIZE as f32;
        let y = (0.5 - clip.y / clip.w * 0.5) * SIZE as f32;
        lo = [lo[0].min(x), lo[1].min(y)];
        hi = [hi[0].max(x), hi[1].max(y)];
    }
    let inside = |&(x, y): &(u32, u32)| {
        let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
        x >= lo[0] - 1.5 && x <= hi[0] + 1.5 && y >= lo[1] - 1.5 && y <= hi[1] + 1.5
    };
    let stray = shadow_px.iter().filter(|p| !inside(p)).count();
    assert_eq!(
        stray, 0,
        "{stray} shadow pixels outside the projected box {lo:?}..{hi:?}"
    );
    // And it reaches the far end of the box (the end away from the model).
    let (sx, sy): (Vec<u32>, Vec<u32>) = shadow_px.iter().copied().unzip();
    let reach = [
        *sx.iter().min().unwrap() as f32,
        *sy.iter().min().unwrap() as f32,
        *sx.iter().max().unwrap() as f32 + 1.0,
        *sy.iter().max().unwrap() as f32 + 1.0,
    ];
    let box_size = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let covered_side = (reach[2] - reach[0]).max(reach[3] - reach[1]);
    assert!(
        covered_side > box_size * 0.6,
        "the shadow spans {covered_side} px of the projected {box_size}"
    );

    // Translucent and no-shadow instances cast none: the picture is the one
    // without shadows.
    for (what, instance) in [
        ("translucent", figure.with_tint([1.0, 1.0, 1.0, 0.5])),
        (
            "no_shadow",
            figure.with_effects(Effects {
                no_shadow: true,
                ..Effects::NONE
            }),
        ),
    ] {
        let (on, off) = on_and_off(instance);
        let differ = differing_pixels(&on, &off, 0);
        assert_eq!(differ, 0, "a {what} instance casts no shadow");
    }
}

#[test]
fn shadows_need_a_stencil_aspect() {
    let Some(gpu) = gpu() else { return };
    let shadow = PlanarShadow::on_ground(0.0, Vec3::Y);
    for options in [Md2RendererOptions::DEFAULT, Md2RendererOptions::WITH_DEPTH] {
        let mut renderer = Md2Renderer::new(&gpu.device, SRGB, options).unwrap();
        let err = renderer.set_shadow(Some(shadow)).unwrap_err();
        assert_eq!(
            err,
            SetupError::ShadowsNeedStencil {
                depth_format: options.depth.map(|d| d.format)
            }
        );
        assert!(err.to_string().contains("stencil"), "{err}");
    }
}

#[test]
fn a_translucent_instance_shows_what_is_behind_it() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let square = front_square(0, 0, (1, 1));
    let skins = [
        solid_skin(1, 1, [255, 0, 0, 255]),
        solid_skin(1, 1, [0, 255, 0, 255]),
    ];
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &square, &skins).unwrap();
    let camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, 1.0);
    let mut draw = |instances: &[Md2Instance]| {
        render_instances(&gpu, &mut renderer, &camera, &gpu_model, instances, 64)
    };
    let behind = Md2Instance::new(
        Mat4::from_translation(Vec3::new(0.0, 0.0, -1.0)),
        FrameLerp::still(0),
    );
    let glass = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0))
        .with_skin(1)
        .with_tint([1.0, 1.0, 1.0, 0.5]);
    // Listed first, drawn after the opaque one all the same.
    let image = draw(&[glass, behind]);
    save_picture(&image, "translucent.png");
    let p = image.get_pixel(32, 32).0;
    let half = srgb_byte(0.5);
    assert!(
        p[0].abs_diff(half) <= 1 && p[1].abs_diff(half) <= 1 && p[2] == 0,
        "green at 0.5 over red gives {p:?}"
    );
    // Opaque, it hides the red one.
    let opaque = glass.with_tint([1.0; 4]);
    let image = draw(&[opaque, behind]);
    assert_eq!(&image.get_pixel(32, 32).0[..3], &[0, 255, 0]);
}

#[test]
fn fullbright_and_minlight_change_exactly_the_lighting() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::DEFAULT).unwrap();
    let square = front_square(0, 0, (1, 1));
    let skin = [200u8, 120, 40];
    let gpu_model = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &square,
        &[solid_skin(1, 1, [skin[0], skin[1], skin[2], 255])],
    )
    .unwrap();
    let pixel = |renderer: &mut Md2Renderer, ambient: f32, effects: Effects| {
        let camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, ambient);
        let instance = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0)).with_effects(effects);
        let image = render_instances(&gpu, renderer, &camera, &gpu_model, &[instance], 16);
        image.get_pixel(8, 8).0
    };
    let fullbright = Effects {
        fullbright: true,
        ..Effects::NONE
    };
    let minlight = Effects {
        minlight: true,
        ..Effects::NONE
    };
    let lit = |light: f32| skin.map(|c| srgb_byte(srgb_to_linear(c) * light));
    // In the dark: plain is black, minlight 0.1 of the skin, fullbright the skin.
    assert_eq!(&pixel(&mut renderer, 0.0, Effects::NONE)[..3], &[0, 0, 0]);
    assert_close(pixel(&mut renderer, 0.0, minlight), lit(0.1));
    assert_close(pixel(&mut renderer, 0.0, fullbright), skin);
    // In light above 0.1, minlight changes nothing; fullbright still shows
    // the skin as it is.
    assert_close(pixel(&mut renderer, 0.6, Effects::NONE), lit(0.6));
    assert_close(pixel(&mut renderer, 0.6, minlight), lit(0.6));
    assert_close(pixel(&mut renderer, 0.6, fullbright), skin);
}

fn assert_close(got: [u8; 4], want: [u8; 3]) {
    for c in 0..3 {
        assert!(got[c].abs_diff(want[c]) <= 1, "{got:?} vs {want:?}");
    }
}

/// Every effect at once: opaque and translucent, shelled, mirrored, with
/// shadows on.
fn mixed(i: usize) -> Md2Instance {
    let at = Vec3::new((i % 100) as f32 * 30.0, 0.0, (i / 100) as f32 * 30.0);
    let mirror = if i % 2 == 1 { -1.0 } else { 1.0 };
    let base = Md2Instance::from_clip(
        Mat4::from_translation(at) * Mat4::from_scale(Vec3::new(mirror, 1.0, 1.0)),
        &Quake2Player::Run.clip(),
        i as f64 * 0.01,
    );
    match (i / 2) % 4 {
        0 => base,
        1 => base.with_effects(Effects::NONE.with_shell([0.0, 0.0, 1.0])),
        2 => base.with_tint([1.0, 1.0, 1.0, 0.5]),
        _ => base
            .with_tint([1.0, 1.0, 1.0, 0.5])
            .with_effects(Effects::NONE.with_shell([1.0, 0.0, 0.0])),
    }
}

#[test]
fn draw_calls_per_frame_do_not_grow_with_the_instances_or_their_effects() {
    let Some(gpu) = gpu_at_limits() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, stencil_options()).unwrap();
    renderer
        .set_shadow(Some(PlanarShadow::on_ground(0.0, Vec3::new(1.0, 2.0, 0.0))))
        .unwrap();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let camera = square_camera(Vec3::new(0.0, 3000.0, 10.0), Vec3::ZERO, 0.1, 10.0, 5000.0);
    let count_draws = |renderer: &mut Md2Renderer, instances: &[Md2Instance]| {
        render_instances(&gpu, renderer, &camera, &gpu_model, instances, 32);
        md2_wgpu::gpu::low_level::recorded_draws(renderer)
    };
    // One instance with a shell and a shadow: opaque, shadow, shell.
    let shelled = |i: usize| {
        Md2Instance::from_clip(
            Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0)),
            &Quake2Player::Run.clip(),
            0.1,
        )
        .with_effects(Effects::NONE.with_shell([0.0, 1.0, 0.0]))
    };
    let one: Vec<Md2Instance> = (0..1).map(shelled).collect();
    let many: Vec<Md2Instance> = (0..10_000).map(shelled).collect();
    let a = count_draws(&mut renderer, &one);
    let b = count_draws(&mut renderer, &many);
    assert_eq!((a, b), (3, 3), "opaque, shadow and shell: one draw each");
    // Every kind at once (each kind on both windings): the same count for
    // eight instances and for ten thousand.
    let few: Vec<Md2Instance> = (0..8).map(mixed).collect();
    let lots: Vec<Md2Instance> = (0..10_000).map(mixed).collect();
    let a = count_draws(&mut renderer, &few);
    let b = count_draws(&mut renderer, &lots);
    assert_eq!(a, b, "draw calls with 8 and with 10,000 instances");
    // Opaque ×2 windings, one shadow draw, one translucent draw and one
    // shell draw whatever the windings (they blend in one order).
    assert_eq!(a, 5);

    // The resident crowd: the same for one member and for ten thousand.
    let mut counts = Vec::new();
    for members in [1usize, 10_000] {
        let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
        for i in 0..members {
            let member = CrowdMember::new(
                Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0)),
                ClipClock::new(Quake2Player::Run.clip(), 0.0),
            )
            .with_effects(Effects::NONE.with_shell([0.0, 1.0, 0.0]));
            crowd.add(member).unwrap();
        }
        draw_crowd(&gpu, &mut renderer, &camera, &[], &mut crowd, 1.0, 32).unwrap();
        counts.push(md2_wgpu::gpu::low_level::recorded_draws(&renderer));
    }
    assert_eq!(counts, [3, 3], "resident: opaque, shadow and shell");
}

#[test]
fn shadows_and_shells_on_the_resident_crowd_match_the_immediate_path() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, stencil_options()).unwrap();
    let shadow = PlanarShadow::on_ground(0.0, Vec3::new(0.7, 1.5, 0.3));
    renderer.set_shadow(Some(shadow)).unwrap();
    let model = demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let (floor, floor_instance) = ground(&gpu, &renderer, 200.0);
    let clip = Quake2Player::Run.clip();
    let now = 2.0;
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    let mut instances = Vec::new();
    for i in 0..9 {
        let feet = Vec3::new(
            (i % 3) as f32 * 60.0 - 60.0,
            0.0,
            (i / 3) as f32 * 60.0 - 60.0,
        );
        let place = stand_on_ground(&model, clip.frames(), feet);
        let effects = if i % 3 == 0 {
            Effects::from_quake_flags(quake_flags::RF_SHELL_BLUE)
        } else {
            Effects::NONE
        };
        let clock = ClipClock::new(clip.clone(), i as f64 * 0.125);
        instances.push(Md2Instance::new(place, clock.sample(now)).with_effects(effects));
        crowd
            .add(CrowdMember::new(place, clock).with_effects(effects))
            .unwrap();
    }
    let camera = square_camera(Vec3::new(40.0, 260.0, 200.0), Vec3::ZERO, 0.9, 10.0, 1000.0);
    let floors = [floor_instance];
    let floor_batch = Md2Batch::new(&floor, &floors);
    let resident = draw_crowd(
        &gpu,
        &mut renderer,
        &camera,
        &[floor_batch],
        &mut crowd,
        now,
        SIZE,
    )
    .unwrap();
    // The immediate path again, in the poses the crowd drew: the same
    // words on both paths (a one-shot clip's GPU t may sit a few ULP off
    // the CPU's, which crowd.rs bounds).
    assert_eq!(with_drawn_poses(&gpu, &renderer, 0, &mut instances), 9);
    let mut immediate_view = Md2Renderer::new(&gpu.device, SRGB, stencil_options()).unwrap();
    immediate_view.set_shadow(Some(shadow)).unwrap();
    let batches = [floor_batch, Md2Batch::new(&gpu_model, &instances)];
    let immediate = render_square(&gpu, &mut immediate_view, &camera, &batches, SIZE);
    save_picture(&immediate, "effects-immediate.png");
    save_picture(&resident, "effects-resident.png");
    assert_same_drawing(&immediate, &resident, "shadows and shells, both paths");
    let half = srgb_byte(0.5);
    let dark = resident
        .pixels()
        .filter(|p| p.0[..3].iter().all(|c| c.abs_diff(half) <= 1))
        .count();
    assert!(dark > 200, "the crowd casts shadows ({dark} pixels)");
}

/// Draws `batches` with `renderer` into a fresh target whose stencil is
/// cleared to `stencil`, and reads the colour and the stencil back.
fn draw_with_stencil(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    stencil: u32,
) -> (image::RgbaImage, Vec<u8>) {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .unwrap();
    let target = Target::for_renderer(gpu, renderer, SIZE, SIZE);
    let depth = target.depth.as_ref().unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let color = target.color.create_view(&Default::default());
        let depth = depth.create_view(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(CLEAR),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(stencil),
                    store: wgpu::StoreOp::Store,
                }),
            }),
            ..Default::default()
        });
        renderer.render(&mut pass);
    }
    let picture = target.read(gpu, encoder);
    let bits = aspect_texels(gpu, depth, wgpu::TextureAspect::StencilOnly);
    (picture, bits)
}

#[test]
fn a_shadow_given_one_stencil_bit_leaves_the_apps_bits_alone() {
    let Some(gpu) = gpu() else { return };
    let mut renderer =
        Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH_STENCIL).unwrap();
    let model = demo::demo_model();
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let (floor, floor_instance) = ground(&gpu, &renderer, 150.0);
    let lerp = Quake2Player::Run.clip().sample(0.25);
    let figure = Md2Instance::new(
        stand_on_ground(&model, lerp.frame_a..=lerp.frame_b, Vec3::ZERO),
        lerp,
    );
    let (floors, figures) = ([floor_instance], [figure]);
    let batches = [
        Md2Batch::new(&floor, &floors),
        Md2Batch::new(&gpu_model, &figures),
    ];
    let camera = from_above();
    let shadow = PlanarShadow::on_ground(0.0, Vec3::new(0.8, 1.5, 0.4));
    // The reference: the whole stencil, cleared to 0.
    renderer.set_shadow(Some(shadow)).unwrap();
    let (whole, _) = draw_with_stencil(&gpu, &mut renderer, &camera, &batches, 0);
    renderer.set_shadow(None).unwrap();
    let (none, _) = draw_with_stencil(&gpu, &mut renderer, &camera, &batches, 0);
    let shadowed = differing_pixels(&whole, &none, 0);
    assert!(shadowed > 100, "a shadow is drawn ({shadowed} pixels)");

    // The app keeps 0b0101 in its own bits; the shadow has bit 7.
    let app_bits = 0b0101;
    renderer
        .set_shadow(Some(shadow.with_stencil(ShadowStencil::bit(7))))
        .unwrap();
    let (own_bit, stencil) = draw_with_stencil(&gpu, &mut renderer, &camera, &batches, app_bits);
    save_picture(&own_bit, "shadow-stencil-bit.png");
    assert_identical(&own_bit, &whole, "the same shadow, once per pixel");
    assert!(
        stencil.iter().all(|&s| u32::from(s) & 0x7f == app_bits),
        "the app's bits are untouched"
    );
    let marked = stencil.iter().filter(|&&s| s & 0x80 != 0).count();
    assert_eq!(marked, shadowed, "bit 7 marks exactly the shadowed pixels");

    // The whole-stencil default would test the app's bits too: with them
    // set, it draws no shadow at all.
    renderer.set_shadow(Some(shadow)).unwrap();
    let (blocked, _) = draw_with_stencil(&gpu, &mut renderer, &camera, &batches, app_bits);
    assert_eq!(differing_pixels(&blocked, &none, 0), 0);
}
