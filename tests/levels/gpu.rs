//! Levels on the GPU: what `GpuModel` uploads and reports, and what a
//! batch drawn at a level looks like where a 1-pixel error budget first
//! picks that level.

use glam::{Mat4, UVec2, Vec3};
use image::RgbaImage;
use md2_wgpu::model::Bounds;
use md2_wgpu::{
    Camera, GpuModel, Light, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions,
    anim::FrameLerp, contract::GpuModelOptions, gpu::Md2Batch, scene::quake_to_y_up,
};

use super::subjects;
use crate::common::{
    Gpu, animated_models, coverage, gpu, render_square, square_camera, srgb_renderer_with,
};

fn renderer(gpu: &Gpu) -> Md2Renderer {
    srgb_renderer_with(gpu, Md2RendererOptions::WITH_DEPTH)
}

/// `model` in `skins` with its levels of detail, uploaded for `renderer`.
fn upload_with_levels(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    model: &Md2Model,
    skins: &[RgbaImage],
) -> GpuModel {
    let options = GpuModelOptions::WITH_LEVELS;
    GpuModel::with_options(&gpu.device, &gpu.queue, renderer, model, skins, options).unwrap()
}

/// A buffer's indices, as `format` stores them.
fn read_indices(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    format: wgpu::IndexFormat,
    count: usize,
) -> Vec<u32> {
    let size = match format {
        wgpu::IndexFormat::Uint16 => 2,
        wgpu::IndexFormat::Uint32 => 4,
    };
    let encoder = gpu.device.create_command_encoder(&Default::default());
    let bytes = md2_wgpu::support::read_buffer(
        &gpu.device,
        &gpu.queue,
        encoder,
        buffer,
        0,
        (count * size).next_multiple_of(4) as u64,
    )
    .expect("read the index buffer back");
    bytes
        .chunks_exact(size)
        .take(count)
        .map(|b| match b {
            [a, b] => u32::from(u16::from_le_bytes([*a, *b])),
            _ => u32::from_le_bytes(b.try_into().expect("4 bytes")),
        })
        .collect()
}

#[test]
fn the_index_buffers_hold_every_level_the_cpu_builds() {
    let Some(gpu) = gpu() else { return };
    let renderer = renderer(&gpu);
    for s in subjects() {
        let upload = |options| {
            GpuModel::with_options(&gpu.device, &gpu.queue, &renderer, &s.model, &[], options)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name))
        };
        let plain = upload(GpuModelOptions::DEFAULT);
        let model = upload(GpuModelOptions::WITH_LEVELS);
        assert_eq!(model.level_choice().levels(), s.lods.levels(), "{}", s.name);
        assert_eq!(
            plain.level_choice().levels(),
            &s.lods.levels()[..1],
            "{}",
            s.name
        );
        assert_eq!(plain.level_choice().build_time(), std::time::Duration::ZERO);
        // Full detail is drawn as before.
        assert_eq!(model.mesh().triangle_count(), plain.mesh().triangle_count());
        assert_eq!(model.level_choice().coarsest_within(0.0), 0);
        assert_eq!(
            model.level_choice().coarsest_within(f32::INFINITY),
            s.lods.levels().len() - 1
        );
        // What the GPU holds is exactly what the CPU built: every level,
        // with the model's winding and, for mirrored instances, reversed.
        let buffers = model.buffers();
        let format = buffers.index_format;
        let all = s.lods.indices();
        assert_eq!(
            read_indices(&gpu, buffers.indices, format, all.len()),
            all,
            "{}",
            s.name
        );
        let mirrored = read_indices(&gpu, buffers.mirrored_indices, format, all.len());
        let reversed: Vec<u32> = all
            .chunks_exact(3)
            .flat_map(|t| [t[0], t[2], t[1]])
            .collect();
        assert_eq!(mirrored, reversed, "{}", s.name);
        // The levels cost index memory only, and say how much.
        let (with, without) = (model.gpu_bytes_breakdown(), plain.gpu_bytes_breakdown());
        assert_eq!(
            with.indices - with.level_indices,
            without.indices,
            "{}",
            s.name
        );
        assert_eq!(
            (with.vertex_data, with.corners, with.frame_params),
            (without.vertex_data, without.corners, without.frame_params)
        );
        assert_eq!(
            with.level_indices == 0,
            s.lods.levels().len() == 1,
            "{}",
            s.name
        );
        assert_eq!(model.gpu_bytes(), with.total());
    }
}

/// The picture test's view: 128 × 128 pixels, a 0.7 radian vertical field
/// of view.
const SIZE: u32 = 128;
const FOV_Y: f32 = 0.7;
/// The silhouette bounds as plain (Euclidean) distances, in pixels: the
/// first coarser level's, and the others'.
const STATED_PLAIN: (f64, f64) = (1.5, 4.0);

/// A camera `distance` from the middle of `frame`, three-quarters from
/// the front, with the default light.
fn camera_at(model: &Md2Model, frame: u32, distance: f32) -> Camera {
    let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(frame);
    let centre = (quake_to_y_up(lo) + quake_to_y_up(hi)) * 0.5;
    let eye = centre + Vec3::new(0.45, 0.3, 1.0).normalize() * distance;
    Camera::look_at(eye, centre, FOV_Y, 1.0, distance * 0.5, distance * 2.0)
}

/// The mean absolute difference of the colour channels (0..255) over the
/// pixels covered in either picture (a pixel one leaves empty counts as
/// black there), and over those covered in both (the shading alone).
fn compare(a: &RgbaImage, b: &RgbaImage) -> (f64, f64) {
    let (mut either, mut both) = ((0u64, 0u64), (0u64, 0u64));
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d: u64 = (0..3).map(|c| u64::from(p.0[c].abs_diff(q.0[c]))).sum();
        if p.0[3] > 0 || q.0[3] > 0 {
            either = (either.0 + d, either.1 + 3);
        }
        if p.0[3] > 0 && q.0[3] > 0 {
            both = (both.0 + d, both.1 + 3);
        }
    }
    let mean = |(sum, n): (u64, u64)| sum as f64 / n.max(1) as f64;
    (mean(either), mean(both))
}

/// How far the two silhouettes lie apart, in pixels, both ways: over every
/// pixel one picture covers and the other does not, the largest distance
/// to the nearest pixel the other covers (at most `reach + 1`), measured
/// two ways: (Chebyshev: the larger of the horizontal and vertical offsets,
/// Euclidean: the plain distance). A part a level drops entirely counts as
/// far as its farthest pixel lies from what the level keeps; a part it
/// swells as far as it swelled.
fn silhouette_distance(a: &RgbaImage, b: &RgbaImage, reach: i64) -> (i64, f64) {
    let covered = |image: &RgbaImage, x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < i64::from(image.width())
            && y < i64::from(image.height())
            && image.get_pixel(x as u32, y as u32).0[3] > 0
    };
    let (mut chebyshev, mut euclidean) = (0, 0.0f64);
    for (x, y, p) in a.enumerate_pixels() {
        let (x, y) = (i64::from(x), i64::from(y));
        let in_a = p.0[3] > 0;
        if in_a == covered(b, x, y) {
            continue;
        }
        // Covered by one alone: how far to the other's nearest pixel.
        let other = if in_a { b } else { a };
        let mut nearest = (reach + 1, (reach + 1) as f64);
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                if covered(other, x + dx, y + dy) {
                    nearest.0 = nearest.0.min(dx.abs().max(dy.abs()));
                    nearest.1 = nearest.1.min(((dx * dx + dy * dy) as f64).sqrt());
                }
            }
        }
        chebyshev = chebyshev.max(nearest.0);
        euclidean = euclidean.max(nearest.1);
    }
    (chebyshev, euclidean)
}

/// The nearest distance at which `gpu_model` draws an instance at the
/// origin at level `level` through `camera_at(.., distance)` on the
/// `SIZE`-pixel viewport with a one-pixel budget: where the crate itself
/// first chooses that level. `None` where no distance does.
fn first_chosen_at(gpu_model: &GpuModel, model: &Md2Model, level: usize) -> Option<f32> {
    let chosen = |distance: f32| {
        let camera = camera_at(model, 0, distance).with_viewport(UVec2::splat(SIZE));
        gpu_model
            .level_choice()
            .for_view(&camera, 1.0, Mat4::IDENTITY)
    };
    let (mut near, mut far) = (1.0f32, 1.0e6f32);
    if chosen(far) < level {
        return None;
    }
    for _ in 0..60 {
        let mid = (near * far).sqrt();
        if chosen(mid) >= level {
            far = mid;
        } else {
            near = mid;
        }
    }
    (chosen(far) == level).then_some(far)
}

/// Where the crate itself first chooses each level (the nearest distance
/// at which `GpuModel::level_for` picks it, one pixel of error at the
/// nearest point of the model's sphere, on a 128-pixel view), the level's
/// silhouette against full detail's, in three poses. What holds, and what
/// the crate docs state: the first coarser level's silhouette lies within
/// 1 pixel of full detail's both ways; the coarser ones within 3 (they may
/// drop a thin part, a weapon's tip or a hand), measured as the larger of
/// the horizontal and vertical offsets; as plain distances within 1.5 and
/// 4 pixels, wherever full detail covers 10 pixels or more. The coarsest levels of
/// some models are first chosen where the whole model covers fewer (1 to
/// 7 pixels), and may cover none of them. The figures (covered pixels within 3%, mean colour difference at
/// most 4/255) are printed, not required: at their switch distances the
/// coarser levels draw a model 15 to 60 pixels tall, whose one-pixel rim
/// alone is 5 to 30% of its pixels, and lighting interpolated from fewer
/// vertex normals shifts colours wherever both cover (see the crate docs).
#[test]
fn where_the_crate_first_chooses_a_level_its_silhouette_stays_within_the_stated_pixels() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let mut table = vec![
        "model, level, frame: distance, triangles, pixels covered by full detail / the level \
         (difference), silhouettes apart (pixels), mean colour difference over pixels either \
         covers (over pixels both cover)"
            .to_string(),
    ];
    let mut failures = Vec::new();
    for (name, model, skins) in animated_models() {
        let gpu_model = upload_with_levels(&gpu, &renderer, &model, &skins);
        let levels = gpu_model.level_choice().levels();
        // Standing, mid-run, lying dead: three poses far apart.
        let frames = [0, 44, model.keyframes().frame_count() - 1]
            .map(|f| f.min(model.keyframes().frame_count() - 1));
        for (l, level) in levels.iter().enumerate().skip(1) {
            let Some(distance) = first_chosen_at(&gpu_model, &model, l) else {
                continue;
            };
            let stated = if l == 1 { 1 } else { 3 };
            for frame in frames {
                let camera = camera_at(&model, frame, distance);
                let mut draw = |at: usize| {
                    let instances = [Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(frame))];
                    let batch = [Md2Batch::new(&gpu_model, &instances).at_level(at)];
                    render_square(&gpu, &mut renderer, &camera, &batch, SIZE)
                };
                let (full, coarse) = (draw(0), draw(l));
                let (a, b) = (coverage(&full), coverage(&coarse));
                let (colour, shading) = compare(&full, &coarse);
                let (apart, plain) = silhouette_distance(&full, &coarse, 8);
                table.push(format!(
                    "{name:<16} level {l} frame {frame:>3}: {distance:.0} units, {} triangles, \
                     {a} / {b} pixels ({:.1}%), {apart} px apart ({plain:.2} px plain), \
                     colour {colour:.2}/255 ({shading:.2})",
                    level.triangle_count(),
                    100.0 * a.abs_diff(b) as f64 / a.max(1) as f64
                ));
                assert!(a > 0, "{name} level {l} frame {frame}: nothing drawn");
                // A model a few pixels tall has no silhouette to speak of.
                let stated_plain = if l == 1 {
                    STATED_PLAIN.0
                } else {
                    STATED_PLAIN.1
                };
                if a >= 10 && (apart > stated || plain > stated_plain) {
                    failures.push(format!(
                        "{name} level {l} frame {frame}: the silhouettes lie {apart} pixels \
                         apart ({plain:.2} plain), more than {stated} ({stated_plain})"
                    ));
                    let stem = format!("lod-{}-{l}-{frame}", name.replace('/', "-"));
                    crate::common::save_picture(&full, &format!("{stem}-full.png"));
                    crate::common::save_picture(&coarse, &format!("{stem}-level.png"));
                }
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_mirrored_instance_draws_its_level_reversed() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let model = md2_wgpu::demo::demo_model();
    let gpu_model = upload_with_levels(&gpu, &renderer, &model, &[md2_wgpu::demo::demo_skin()]);
    let coarsest = gpu_model.level_choice().levels().len() - 1;
    assert!(coarsest > 0);
    // A camera on the mirror plane x = 0, ambient light: the mirrored
    // instance's picture is the plain one's, flipped left to right.
    let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(0);
    let centre = (quake_to_y_up(lo) + quake_to_y_up(hi)) * 0.5;
    let target = Vec3::new(0.0, centre.y, centre.z);
    let mut camera = square_camera(target + Vec3::Z * 120.0, target, FOV_Y, 10.0, 400.0);
    camera.light = Light::ambient_only(1.0);
    let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let draw = |renderer: &mut Md2Renderer, transform: Mat4, level: usize| {
        let instances = [Md2Instance::new(transform, FrameLerp::still(0))];
        let batch = [Md2Batch::new(&gpu_model, &instances).at_level(level)];
        render_square(&gpu, renderer, &camera, &batch, SIZE)
    };
    for level in [0, coarsest] {
        let plain = draw(&mut renderer, Mat4::IDENTITY, level);
        let mirrored = draw(&mut renderer, mirror, level);
        let flipped = image::imageops::flip_horizontal(&plain);
        let (colour, _) = compare(&flipped, &mirrored);
        // Rasterisation rules are not mirror-symmetric: a few edge pixels
        // may differ, nothing more.
        assert!(coverage(&plain) > 500, "level {level}");
        assert!(
            coverage(&plain).abs_diff(coverage(&mirrored)) * 100 <= coverage(&plain),
            "level {level}: {} vs {}",
            coverage(&plain),
            coverage(&mirrored)
        );
        assert!(colour < 4.0, "level {level}: {colour}");
    }
    // Past the coarsest level, the coarsest.
    let past = draw(&mut renderer, Mat4::IDENTITY, coarsest + 5);
    assert_eq!(past, draw(&mut renderer, Mat4::IDENTITY, coarsest));
}

/// Every frame of `model` side by side, one instance each, in a
/// `size` × `size` picture drawn at `level` by `renderer`.
fn every_frame(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    model: &Md2Model,
    gpu_model: &GpuModel,
    level: usize,
    size: u32,
) -> RgbaImage {
    let frames = model.keyframes().frame_count();
    let columns = (frames as f32).sqrt().ceil() as u32;
    let Bounds { min: lo, max: hi } = model.keyframes().bounds();
    let (lo, hi) = (quake_to_y_up(lo), quake_to_y_up(hi));
    let cell = (hi - lo).max_element() * 1.05;
    let centre = (lo + hi) * 0.5;
    let instances: Vec<Md2Instance> = (0..frames)
        .map(|f| {
            let at = Vec3::new(
                (f % columns) as f32 * cell,
                -((f / columns) as f32) * cell,
                0.0,
            );
            Md2Instance::new(Mat4::from_translation(at - centre), FrameLerp::still(f))
        })
        .collect();
    let width = columns as f32 * cell;
    let middle = Vec3::new(width * 0.5 - cell * 0.5, -width * 0.5 + cell * 0.5, 0.0);
    let mut camera = Camera::orthographic(
        middle + Vec3::Z * (cell * 4.0),
        middle,
        width,
        width,
        cell,
        cell * 8.0,
    );
    camera.light = Light::ambient_only(1.0);
    let batch = [Md2Batch::new(gpu_model, &instances).at_level(level)];
    render_square(gpu, renderer, &camera, &batch, size)
}

/// In every frame, a level faces the camera where full detail does: drawn
/// with back faces culled and not, its pictures differ (where a
/// turned-over triangle is culled, showing what lies behind it or nothing)
/// hardly more than full detail's do. The first coarser level: by at most
/// 1% of the pixels it covers; coarser ones, whose errors reach the
/// thickness of a thin limb (an arm two or three units across), may
/// flatten such a limb into a strip that shows its back from behind: the
/// second and third by at most 6% (the demo's third: under 5%), the fourth,
/// whose error is a sixth of the model's size, by at most 10% (the demo's:
/// 8.5%).
#[test]
fn in_every_frame_levels_face_out_as_full_detail_does() {
    let Some(gpu) = gpu() else { return };
    let mut culled = renderer(&gpu);
    let mut both_sides = srgb_renderer_with(
        &gpu,
        Md2RendererOptions {
            cull_back_faces: false,
            ..Md2RendererOptions::WITH_DEPTH
        },
    );
    let mut table = Vec::new();
    let mut failures = Vec::new();
    for (name, model, skins) in animated_models() {
        let gpu_model = upload_with_levels(&gpu, &culled, &model, &skins);
        let mut full_detail = 0;
        for level in 0..gpu_model.level_choice().levels().len() {
            let a = every_frame(&gpu, &mut culled, &model, &gpu_model, level, 1024);
            let b = every_frame(&gpu, &mut both_sides, &model, &gpu_model, level, 1024);
            let differ = crate::common::differing_pixels(&a, &b, 0);
            let covered = coverage(&b);
            if level == 0 {
                full_detail = differ;
            }
            table.push(format!(
                "{name:<16} level {level}: {differ} of {covered} pixels show a back face \
                 (full detail {full_detail})"
            ));
            // The coarser a level, the thicker the parts its error may
            // flatten: the fourth coarser one (16% of the model's size) is
            // chosen only where the whole model is about six pixels tall.
            let allowed = match level {
                0 | 1 => 0.01,
                2 | 3 => 0.06,
                _ => 0.10,
            };
            if differ.saturating_sub(full_detail) as f64 > allowed * covered as f64 {
                failures.push(format!(
                    "{name} level {level}: {differ} of {covered} pixels show a back face, full \
                     detail {full_detail}"
                ));
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What levels cost at upload, model by model: the time building them
/// adds to `GpuModel::with_options` and the index memory they take (both
/// windings), and what they are: each level fewer triangles than the one
/// before, a larger error, and index memory the only memory they add.
/// `--nocapture` prints the table (time it in a release build:
/// `docs/levels.md` has the figures).
#[test]
fn levels_cost_index_memory_alone_and_coarsen_level_by_level() {
    let Some(gpu) = gpu() else { return };
    let renderer = renderer(&gpu);
    eprintln!(
        "| model | triangles per level | error per level (model units) | build time | index memory: full detail → with levels |"
    );
    eprintln!("|---|---|---|---:|---:|");
    let mut models = vec![("demo".to_string(), md2_wgpu::demo::demo_model())];
    for (path, bytes) in crate::common::real_files() {
        models.push((path, Md2Model::from_bytes(&bytes).expect("a real model")));
    }
    for (name, model) in models {
        let upload = |options| {
            GpuModel::with_options(&gpu.device, &gpu.queue, &renderer, &model, &[], options)
                .expect("upload")
        };
        let plain = upload(GpuModelOptions::DEFAULT);
        let with = upload(GpuModelOptions::WITH_LEVELS);
        let list = |f: &dyn Fn(&md2_wgpu::mesh::Level) -> String| {
            with.level_choice()
                .levels()
                .iter()
                .map(f)
                .collect::<Vec<_>>()
                .join(" / ")
        };
        eprintln!(
            "| {name} | {} | {} | {:.0} ms | {:.1} KiB → {:.1} KiB |",
            list(&|l| l.triangle_count().to_string()),
            list(&|l| format!("{:.2}", l.error)),
            with.level_choice().build_time().as_secs_f64() * 1e3,
            plain.gpu_bytes_breakdown().indices as f64 / 1024.0,
            with.gpu_bytes_breakdown().indices as f64 / 1024.0,
        );
        let levels = with.level_choice().levels();
        // A weapon of a triangle or a few has nothing to drop.
        if model.triangles().len() >= 100 {
            assert!(levels.len() > 1, "{name}: levels built");
        }
        for pair in levels.windows(2) {
            assert!(
                pair[1].triangle_count() < pair[0].triangle_count(),
                "{name}"
            );
            assert!(pair[1].error >= pair[0].error, "{name}");
        }
        let (p, w) = (plain.gpu_bytes_breakdown(), with.gpu_bytes_breakdown());
        if levels.len() > 1 {
            assert!(w.indices > p.indices, "{name}");
        } else {
            assert_eq!(w.indices, p.indices, "{name}: no levels, no more memory");
        }
        assert_eq!(
            (w.vertex_data, w.frame_params, w.corners, w.skins),
            (p.vertex_data, p.frame_params, p.corners, p.skins),
            "{name}: levels add index memory only"
        );
    }
}
