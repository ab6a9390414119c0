//! The app's shading: a material that re-implements the built-in look draws
//! the built-in picture on both paths; a G-buffer material writes the CPU
//! reference's world positions and normals; the material's own bind group
//! reaches it; shadows and depth-only passes keep the animated pose; a bad
//! material is a typed error.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, CrowdMember, Light, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::{ClipClock, FrameLerp, Pose},
    demo,
    gpu::{MaterialError, Md2Batch, Md2Cache, Md2Material, Md2MaterialDescriptor, SetupError},
    scene::{Effects, PlanarShadow},
};

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const SIZE: u32 = 192;

fn blended(format: wgpu::TextureFormat) -> wgpu::ColorTargetState {
    wgpu::ColorTargetState {
        format,
        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
        write_mask: wgpu::ColorWrites::ALL,
    }
}

fn material(gpu: &Gpu, cache: &Md2Cache, source: &str, fragment: &str) -> Md2Material {
    Md2Material::new(
        &gpu.device,
        cache,
        &Md2MaterialDescriptor {
            label: fragment,
            source,
            fragment,
            targets: &[blended(SRGB)],
            bind_group_layout: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn options() -> Md2RendererOptions {
    Md2RendererOptions::WITH_DEPTH_STENCIL
}

fn shadow() -> PlanarShadow {
    PlanarShadow::on_ground(-25.0, Vec3::new(0.4, 1.0, 0.3))
}

fn camera() -> Camera {
    let target = Vec3::new(0.0, -5.0, 0.0);
    square_camera(Vec3::new(30.0, 40.0, 150.0), target, 0.9, 1.0, 600.0)
}

/// Soldiers of every kind: opaque, translucent, mirrored, in shells,
/// fullbright, minlit, crossfading.
fn mixed() -> Vec<Md2Instance> {
    let clips = Quake2Player::clips();
    let mut rng = Rng::new(3);
    (0..12)
        .map(|i| {
            let at = Vec3::new((i % 4) as f32 * 24.0 - 36.0, 0.0, (i / 4) as f32 * -30.0);
            let mirror = if i % 3 == 1 { -1.0 } else { 1.0 };
            let transform = Mat4::from_translation(at)
                * Mat4::from_rotation_y(rng.range(-1.0, 1.0))
                * Mat4::from_scale(Vec3::new(mirror, 1.0, 1.0));
            let clip = &clips[i % clips.len()];
            let mut instance = Md2Instance::from_clip(transform, clip, 0.37 * i as f64);
            instance.pose.secondary = Quake2Player::Run.clip().sample(0.1 * i as f64);
            instance.pose.weight = if i % 5 == 2 { 0.4 } else { 0.0 };
            let alpha = if i % 4 == 3 { 0.6 } else { 1.0 };
            let effects = Effects {
                shell: (i % 3 == 0).then_some([0.2, 1.0, 0.3]),
                fullbright: i == 5,
                minlight: i == 6,
                no_shadow: false,
            };
            instance
                .with_tint([1.0, 0.9, 0.8, alpha])
                .with_effects(effects)
        })
        .collect()
}

#[test]
fn a_material_that_rewrites_the_built_in_look_draws_its_picture_on_both_paths() {
    let Some(gpu) = gpu() else { return };
    let (cache, model) = demo_cache(&gpu);
    let again = material(
        &gpu,
        &cache,
        md2_wgpu::support::QUAKE_AGAIN_WGSL,
        "quake_again",
    );
    let mut builtin = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options()).unwrap();
    let mut custom = Md2Renderer::with_material(&gpu.device, &cache, &again, options()).unwrap();
    for renderer in [&mut builtin, &mut custom] {
        renderer.set_shadow(Some(shadow())).unwrap();
    }
    // The built-in look's picture and the material's: alike to within one
    // step of rounding.
    let assert_alike = |got: &image::RgbaImage, want: &image::RgbaImage, path: &str| {
        assert!(coverage(want) > 3000);
        let differ = differing_pixels(got, want, 1);
        assert_eq!(
            differ, 0,
            "{path}: {differ} pixels differ by more than 1/255"
        );
    };
    let instances = mixed();
    let want = render_instances(&gpu, &mut builtin, &camera(), &model, &instances, SIZE);
    let got = render_instances(&gpu, &mut custom, &camera(), &model, &instances, SIZE);
    save_picture(&got, "material-quake-again.png");
    assert_alike(&got, &want, "immediate");
    // Both draw every pass: the same draw calls.
    assert_eq!(
        md2_wgpu::gpu::low_level::recorded_draws(&custom),
        md2_wgpu::gpu::low_level::recorded_draws(&builtin)
    );

    // The resident path: the same soldiers as crowd members.
    let mut crowd = Md2Crowd::new(&gpu.device, &cache, &model).unwrap();
    for instance in &instances {
        let playback = ClipClock::new(Quake2Player::Stand.clip(), 0.0);
        crowd
            .add(
                CrowdMember::new(instance.transform, playback)
                    .with_tint(instance.tint)
                    .with_effects(instance.effects),
            )
            .unwrap();
    }
    let mut draw = |renderer: &mut Md2Renderer| {
        draw_crowd(&gpu, renderer, &camera(), &[], &mut crowd, 0.25, SIZE).unwrap()
    };
    let want = draw(&mut builtin);
    let got = draw(&mut custom);
    assert_alike(&got, &want, "resident");
}

use md2_wgpu_tests::cases::drawn::{self, GBUFFER};

/// Renders `batches` with `renderer` into two `Rgba32Float` targets and
/// reads them back as floats (the shared cases' drawing, waited for).
pub(crate) fn draw_gbuffer(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
) -> [Vec<[f32; 4]>; 2] {
    md2_wgpu::support::wait(
        &gpu.device,
        drawn::draw_gbuffer((&gpu.device, &gpu.queue), renderer, camera, batches),
    )
}

#[test]
fn a_gbuffer_material_writes_the_cpu_references_positions_and_normals() {
    let Some(gpu) = gpu() else { return };
    // The browser suite runs the same case, awaited, on real models too.
    report(md2_wgpu::support::wait(
        &gpu.device,
        drawn::holds_to_the_reference(&gpu.device, &gpu.queue, "demo", &demo::demo_model()),
    ));
}

#[test]
fn with_a_material_shadows_and_depth_maps_keep_the_animated_pose() {
    let Some(gpu) = gpu() else { return };
    let (cache, gpu_model) = demo_cache(&gpu);
    let model = demo::demo_model();
    // White, and red on the shadow pass: colours say which pass drew.
    let white = material(
        &gpu,
        &cache,
        "fn white(in: Md2Fragment) -> vec4<f32> {
             if in.phase == MD2_PHASE_SHADOWS { return vec4<f32>(1.0, 0.0, 0.0, 1.0); }
             return vec4<f32>(1.0);
         }",
        "white",
    );
    let mut renderer = Md2Renderer::with_material(&gpu.device, &cache, &white, options()).unwrap();
    // The death's last frame lies on the ground: its outline from above is
    // nothing like frame 0's. Stood on y = 0, over ground at y = -1.
    let lying_frame = 197;
    let place = md2_wgpu::scene::stand_on_ground(&model, lying_frame..=lying_frame, Vec3::ZERO);
    let lying = Md2Instance::new(place, FrameLerp::still(lying_frame));
    let standing = Md2Instance::new(place, FrameLerp::still(0));
    let ortho = |eye: Vec3| {
        let mut camera = Camera::orthographic(eye, Vec3::ZERO, 90.0, 90.0, 1.0, 400.0);
        camera.light = Light::ambient_only(1.0);
        camera
    };
    let (above, below) = (
        ortho(Vec3::new(0.0, 200.0, 0.0)),
        ortho(Vec3::new(0.0, -200.0, 0.0)),
    );
    let draw = |renderer: &mut Md2Renderer, camera: &Camera, instance: &Md2Instance| {
        let instances = std::slice::from_ref(instance);
        render_instances(&gpu, renderer, camera, &gpu_model, instances, SIZE)
    };
    let covered =
        |image: &image::RgbaImage| -> Vec<bool> { image.pixels().map(|p| p.0[3] > 0).collect() };
    // How many pixels two masks disagree on.
    let disagree = |a: &[bool], b: &[bool]| a.iter().zip(b).filter(|(a, b)| a != b).count();
    let outline_below = covered(&draw(&mut renderer, &below, &lying));
    // Lit straight from above, the shadow lies under the model: seen from
    // below it hides the model entirely, in red, and its outline is the
    // pose's own.
    renderer
        .set_shadow(Some(PlanarShadow::beside_shadow_maps(-1.0, Vec3::Y)))
        .unwrap();
    let shadowed = draw(&mut renderer, &below, &lying);
    save_picture(&shadowed, "material-shadow-from-below.png");
    let red: Vec<bool> = shadowed
        .pixels()
        .map(|p| p.0[0] == 255 && p.0[1] == 0)
        .collect();
    let differ = disagree(&red, &outline_below);
    assert!(
        red.iter().filter(|&&r| r).count() > 1000,
        "a shadow is seen"
    );
    assert_eq!(
        differ, 0,
        "the shadow's outline differs from the pose's in {differ} pixels"
    );
    let standing_below = covered(&draw(&mut renderer, &below, &standing));
    let moved = disagree(&standing_below, &red);
    assert!(
        moved > 500,
        "frames {lying_frame} and 0 alike from below ({moved} pixels)"
    );
    renderer.set_shadow(None).unwrap();

    // A depth-only renderer (no material needed) draws the pose's outline.
    let outline_above = covered(&draw(&mut renderer, &above, &lying));
    let depth_options = Md2RendererOptions::WITH_DEPTH;
    let mut depth_map = Md2Renderer::depth_only(&gpu.device, &cache, depth_options).unwrap();
    depth_map
        .prepare(
            &gpu.device,
            &gpu.queue,
            &above,
            &[Md2Batch::new(&gpu_model, &[lying])],
        )
        .unwrap();
    let depth = depth_silhouette(&gpu, &depth_map);
    let differ = disagree(&depth, &outline_above);
    assert_eq!(
        differ, 0,
        "the depth map's silhouette differs in {differ} pixels"
    );
}

/// Which pixels a depth-only renderer's last `prepare` covers.
fn depth_silhouette(gpu: &Gpu, renderer: &Md2Renderer) -> Vec<bool> {
    let depth = attachment(gpu, wgpu::TextureFormat::Depth32Float, SIZE, SIZE);
    draw_into(gpu, &[], Some(&depth), |pass| renderer.render(pass));
    let depths: Vec<f32> = texels(gpu, &depth);
    depths.iter().map(|&d| d < 1.0).collect()
}

#[test]
fn a_bad_material_is_a_typed_error_that_names_the_problem() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let make = |source: &str, fragment: &str, targets: &[wgpu::ColorTargetState], layout| {
        Md2Material::new(
            &gpu.device,
            &cache,
            &Md2MaterialDescriptor {
                label: "bad",
                source,
                fragment,
                targets,
                bind_group_layout: layout,
            },
        )
        .map(drop)
    };
    let one = [blended(SRGB)];
    let error = |result: Result<(), SetupError>| match result {
        Err(SetupError::Material { label, error }) => {
            assert_eq!(label, "bad");
            error
        }
        other => panic!("not a material error: {other:?}"),
    };
    let good = "fn shade(in: Md2Fragment) -> vec4<f32> { return in.tint; }";
    assert!(make(good, "shade", &one, None).is_ok());

    let e = error(make(good, "missing", &one, None));
    assert_eq!(
        e,
        MaterialError::FragmentMissing {
            name: "missing".into()
        }
    );
    let entry = "@fragment fn shade(in: Md2Fragment) -> @location(0) vec4<f32> { return in.tint; }";
    assert!(matches!(
        error(make(entry, "shade", &one, None)),
        MaterialError::FragmentIsEntryPoint { .. }
    ));
    let wrong_input = "fn shade(uv: vec2<f32>) -> vec4<f32> { return vec4<f32>(uv, 0.0, 1.0); }";
    let e = error(make(wrong_input, "shade", &one, None));
    assert!(
        matches!(&e, MaterialError::Inputs { found, .. } if found.contains("vec2<f32>")),
        "{e}"
    );
    let typo = "fn shade(in: Md2Fragment) -> vec4<f32> { return in.colour; }";
    let e = error(make(typo, "shade", &one, None));
    assert!(
        matches!(&e, MaterialError::Source { message } if message.contains("colour")),
        "{e}"
    );
    // Three outputs, two targets.
    let three = "struct Out { @location(0) a: vec4<f32>, @location(1) b: vec4<f32>, @location(2) c: vec4<f32> };
                 fn shade(in: Md2Fragment) -> Out { return Out(in.tint, in.tint, in.tint); }";
    let two = [blended(SRGB), blended(SRGB)];
    let e = error(make(three, "shade", &two, None));
    let message = SetupError::Material {
        label: "gbuffer".into(),
        error: e.clone(),
    }
    .to_string();
    eprintln!("{message}");
    assert!(matches!(e, MaterialError::Outputs { .. }));
    assert!(
        message.contains("3 colour outputs (locations 0, 1, 2), but 2 targets were given"),
        "{message}"
    );
    // More targets than the device allows.
    let max = gpu.device.limits().max_color_attachments as usize;
    let many = vec![blended(wgpu::TextureFormat::R8Unorm); max + 1];
    assert_eq!(
        error(make(good, "shade", &many, None)),
        MaterialError::TooManyTargets {
            targets: max + 1,
            max: max as u32
        }
    );
    assert_eq!(
        error(make(good, "shade", &[], None)),
        MaterialError::NoTargets
    );
    // A resource outside the material's group, or without a layout.
    let crate_group = "@group(1) @binding(9) var<uniform> mine: vec4<f32>;
                       fn shade(in: Md2Fragment) -> vec4<f32> { return mine; }";
    assert!(matches!(
        error(make(crate_group, "shade", &one, None)),
        MaterialError::BindGroup { group: 1, .. }
    ));
    let own_group = "@group(2) @binding(0) var<uniform> mine: vec4<f32>;
                     fn shade(in: Md2Fragment) -> vec4<f32> { return mine; }";
    assert!(matches!(
        error(make(own_group, "shade", &one, None)),
        MaterialError::BindGroup { group: 2, .. }
    ));
    // A layout that does not declare what the WGSL binds: wgpu's message,
    // typed, when the renderer builds the pipelines.
    let empty = gpu
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("empty"),
            entries: &[],
        });
    let material = Md2Material::new(
        &gpu.device,
        &cache,
        &Md2MaterialDescriptor {
            label: "bad",
            source: own_group,
            fragment: "shade",
            targets: &one,
            bind_group_layout: Some(&empty),
        },
    )
    .unwrap();
    let e = Md2Renderer::with_material(&gpu.device, &cache, &material, options()).unwrap_err();
    assert!(matches!(error(Err(e)), MaterialError::Device { .. }));
}

/// Materials for the extra-record check: (function, WGSL, whether it reads
/// what the extra record feeds).
const EXTRA_READERS: [(&str, &str, bool); 5] = [
    (
        "lit",
        "fn lit(in: Md2Fragment) -> vec4<f32> { return md2_shade(in); }",
        false,
    ),
    (
        "moving",
        "fn moving(in: Md2Fragment) -> vec4<f32> { return vec4<f32>(md2_motion(in), 0.0, 1.0); }",
        true,
    ),
    (
        "by_id",
        "fn id_of(f: Md2Fragment) -> u32 { return f.id; }
         fn by_id(in: Md2Fragment) -> vec4<f32> { return vec4<f32>(f32(id_of(in)), 0.0, 0.0, 1.0); }",
        true,
    ),
    (
        "copied",
        "fn copied(in: Md2Fragment) -> vec4<f32> { var copy = in; return copy.tint; }",
        true,
    ),
    (
        "world",
        "fn world(in: Md2Fragment) -> vec4<f32> { return vec4<f32>(in.world_position, 1.0); }",
        false,
    ),
];

/// The instance's id and index, and the member's handle id and index.
const IDS: &str = r#"
struct Ids {
    @location(0) ids: vec4<f32>,
    @location(1) unused: vec4<f32>,
};

fn ids(in: Md2Fragment) -> Ids {
    return Ids(vec4<f32>(f32(in.id), f32(in.instance), 0.0, 1.0), vec4<f32>(0.0));
}
"#;

#[test]
fn a_material_gets_the_extra_record_where_it_reads_it_and_its_ids_arrive() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    // Only a material that reads the instance, id or previous position
    // (directly, through a function it passes its input to, or by copying
    // the whole input) makes its renderers write the extra record.
    for (name, source, reads) in EXTRA_READERS {
        let material = material(&gpu, &cache, source, name);
        assert_eq!(material.reads_extra(), reads, "{name}");
    }
    let ids = Md2Material::new(
        &gpu.device,
        &cache,
        &Md2MaterialDescriptor {
            label: "ids",
            source: IDS,
            fragment: "ids",
            targets: &[FLOAT_TARGET, FLOAT_TARGET],
            bind_group_layout: None,
        },
    )
    .unwrap();
    assert!(ids.reads_extra());
    let gpu_model = demo_gpu_model(&gpu, &cache);
    let options = Md2RendererOptions::WITH_DEPTH;
    // Two soldiers side by side, looked at from the front, in a view this
    // many units across.
    let places = [-30.0f32, 30.0].map(|x| Mat4::from_translation(Vec3::new(x, 0.0, 0.0)));
    let width = 130.0;
    let camera = Camera::orthographic(Vec3::Z * 200.0, Vec3::ZERO, width, width, 1.0, 400.0);
    let centre = |image: &[[f32; 4]], x: f32| {
        // The middle of a soldier's chest, in pixels.
        let px = ((x / width + 0.5) * SIZE as f32) as usize;
        image[(SIZE as usize / 2 - 4) * SIZE as usize + px]
    };
    let mut immediate = Md2Renderer::with_material(&gpu.device, &cache, &ids, options).unwrap();
    let instances = [(0, 7u32), (1, 1234)]
        .map(|(i, id)| Md2Instance::new(places[i], Pose::default()).with_id(id));
    let [got, _] = draw_gbuffer(
        &gpu,
        &mut immediate,
        &camera,
        &[Md2Batch::new(&gpu_model, &instances)],
    );
    assert_eq!(centre(&got, -30.0), [7.0, 0.0, 0.0, 1.0]);
    assert_eq!(centre(&got, 30.0), [1234.0, 1.0, 0.0, 1.0]);
    let mut resident = Md2Renderer::with_material(&gpu.device, &cache, &ids, options).unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &resident, &gpu_model).unwrap();
    let clock = ClipClock::new(Quake2Player::Stand.clip(), 0.0);
    let handles = places.map(|place| crowd.add(CrowdMember::new(place, clock.clone())).unwrap());
    step_crowd(&gpu, &mut resident, &camera, &mut crowd, 0.0);
    let [got, _] = draw_gbuffer(&gpu, &mut resident, &camera, &[]);
    for (k, (handle, x)) in handles.iter().zip([-30.0, 30.0]).enumerate() {
        assert_eq!(
            centre(&got, x),
            [handle.id() as f32, k as f32, 0.0, 1.0],
            "member {k}"
        );
    }
}

/// The material fuzz target's checks (`support::check_material`: a
/// material or a typed error, never a panic or a wgpu validation error) on
/// seeded mutations of working materials: characters flipped, spans cut,
/// doubled or moved, WGSL words dropped in. Writes the seeds where the
/// fuzz target's docs say.
#[test]
fn the_material_checks_hold_on_seeded_mutations() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    // (first byte: targets and bind group, as the fuzz target reads it;
    // the source).
    let seeds: [(u8, &str); 3] = [
        (1, md2_wgpu::support::QUAKE_AGAIN_WGSL),
        (2 | 0x40, GBUFFER),
        (
            1,
            "fn shade(in: Md2Fragment) -> vec4<f32> { return vec4<f32>(md2_unit_normal(in) * 0.5 + 0.5, 1.0); }",
        ),
    ];
    let dir = target_dir().join("tmp/md2-fuzz-seeds");
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (first, source)) in seeds.iter().enumerate() {
        let bytes: Vec<u8> = std::iter::once(*first).chain(source.bytes()).collect();
        std::fs::write(dir.join(format!("material-{k}.wgsl")), &bytes).unwrap();
    }
    const WORDS: [&str; 10] = [
        "fn ",
        "}",
        "{",
        "@location(9)",
        "@group(2) @binding(0) var<uniform> x: f32;",
        "f16",
        "loop {",
        "return",
        "array<f32, 99999999>",
        "in.",
    ];
    let mut rng = Rng::new(0x3a7e);
    let mut made = 0;
    for n in 0..240 {
        let (first, source) = seeds[n % seeds.len()];
        let mut text = source.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let len = text.len().max(1);
            match rng.below(5) {
                0 => {
                    let at = rng
                        .below(len.min(text.len()).max(1))
                        .min(text.len().saturating_sub(1));
                    if let Some(c) = text.get_mut(at) {
                        *c = b" ;(){}<>,.:0123456789afnvx@"[rng.below(27)];
                    }
                }
                1 => {
                    let at = rng.below(len);
                    let end = (at + 1 + rng.below(40)).min(text.len());
                    text.drain(at.min(end)..end);
                }
                2 => {
                    let at = rng.below(len);
                    let end = (at + 1 + rng.below(80)).min(text.len());
                    let span = text[at.min(end)..end].to_vec();
                    let to = rng.below(text.len() + 1);
                    text.splice(to..to, span);
                }
                3 => {
                    let to = rng.below(text.len() + 1);
                    let word = WORDS[rng.below(WORDS.len())].as_bytes().to_vec();
                    text.splice(to..to, word);
                }
                _ => {
                    let at = rng.below(len);
                    text.truncate(at);
                }
            }
        }
        let first = if n % 7 == 0 {
            rng.below(256) as u8
        } else {
            first
        };
        let data: Vec<u8> = std::iter::once(first).chain(text).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            md2_wgpu::support::check_material(&gpu.device, &cache, &data)
        }));
        if result.is_err() {
            let path = target_dir().join("tmp/fuzz-finding-material.wgsl");
            std::fs::write(&path, &data).unwrap();
            panic!("a mutated material fails the checks: {}", path.display());
        }
        let source = String::from_utf8_lossy(&data[1..]);
        made += usize::from(source != seeds[n % seeds.len()].1);
    }
    assert!(made > 200, "{made} mutants differ from their seed");
}
