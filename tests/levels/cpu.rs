//! The levels themselves, on the CPU: what they draw, their winding and
//! seams in every frame, and the honesty of their reported error.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use md2_wgpu::{
    Md2Model,
    mesh::{LevelOptions, Levels, MeshError, RenderMesh, TriangleOrder},
    model::Frame,
};

use super::measure::{sampled_error, with_area};
use super::{Subject, subject, subjects};
use crate::common::{parts_of, seamed_box, sphere};

#[test]
fn every_model_gets_coarser_levels_over_its_own_corners() {
    let mut table = vec![format!(
        "{:<34} {:>9}  levels: triangles (error in model units)",
        "model", "build"
    )];
    for s in subjects() {
        let levels = s.lods.levels();
        table.push(format!(
            "{:<34} {:>7.0}ms  {}",
            s.name,
            s.build_time.as_secs_f64() * 1e3,
            levels
                .iter()
                .map(|l| format!("{} ({:.2})", l.triangle_count(), l.error))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        // Full detail first, exactly the mesh's list.
        assert_eq!(
            s.lods.level_indices(0),
            Some(s.mesh.indices()),
            "{}",
            s.name
        );
        assert_eq!(levels[0].error, 0.0);
        let mut next = 0;
        for (l, level) in levels.iter().enumerate() {
            assert_eq!(
                level.first_index, next,
                "{} level {l}: ranges in order",
                s.name
            );
            next += level.index_count;
            assert_eq!(level.index_count % 3, 0);
            assert!(level.error.is_finite() && level.error >= 0.0);
            let indices = s.lods.level_indices(l).unwrap();
            // Only the mesh's corners: no new vertex data, and every
            // (xyz, st) pair one the model has.
            assert!(
                indices
                    .iter()
                    .all(|&i| (i as usize) < s.mesh.corners().len()),
                "{} level {l}",
                s.name
            );
            if l > 0 {
                let before = levels[l - 1];
                assert!(
                    level.triangle_count() as f32
                        <= LevelOptions::MIN_REDUCTION * before.triangle_count() as f32,
                    "{} level {l}: {} triangles after {}",
                    s.name,
                    level.triangle_count(),
                    before.triangle_count()
                );
                assert!(level.error >= before.error, "{} level {l}", s.name);
                // No triangle with a repeated corner or vertex.
                for t in s.xyz(l) {
                    assert!(t[0] != t[1] && t[1] != t[2] && t[2] != t[0], "{}", s.name);
                }
            }
        }
        assert_eq!(next as usize, s.lods.indices().len());
    }
    eprintln!("{}", table.join("\n"));
    let demo = subject("demo").expect("the demo model");
    assert!(demo.lods.levels().len() >= 3, "the demo has coarser levels");
    for name in ["yohko/tris.md2", "ogro/ogros.MD2"] {
        if let Some(s) = subject(name) {
            assert!(s.lods.levels().len() >= 2, "{name} has a coarser level");
        }
    }
}

/// The edges (by vertex ids) that more triangles run along one way than
/// the other, by two or more: where a surface's winding disagrees with
/// itself (a border edge has one triangle, a fold where two sheets meet
/// back to back as many each way).
fn clashing_edges(triangles: &[[u32; 3]]) -> HashSet<(u32, u32)> {
    let mut runs: HashMap<(u32, u32), (usize, usize)> = HashMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let entry = runs.entry((a.min(b), a.max(b))).or_default();
            if a < b {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
    }
    runs.into_iter()
        .filter(|(_, (forth, back))| forth.abs_diff(*back) >= 2)
        .map(|(edge, _)| edge)
        .collect()
}

/// Every level's triangles are wound as the model's: where level
/// triangles share an edge, as many run along it one way as the other, as
/// full detail's do (a triangle turned over by a collapse would run the
/// same way as its neighbour), except along edges where full detail's own
/// winding already clashes. Whether a level faces the camera as full
/// detail does in every frame is the GPU test's (culling on and off).
#[test]
fn levels_keep_the_winding() {
    for s in subjects() {
        for (l, clashes) in new_in_coarser_levels(s, clashing_edges) {
            assert!(
                clashes.is_empty(),
                "{} level {l}: the triangles along {clashes:?} run the same way",
                s.name
            );
        }
    }
}

/// For each coarser level of `s`, what `find` turns up in its triangles
/// (those with an area) that it does not in full detail's.
fn new_in_coarser_levels<T: Eq + Hash>(
    s: &Subject,
    find: impl Fn(&[[u32; 3]]) -> HashSet<T>,
) -> Vec<(usize, Vec<T>)> {
    let full = find(&with_area(&s.xyz(0)));
    (1..s.lods.levels().len())
        .map(|l| {
            let new: Vec<T> = find(&with_area(&s.xyz(l)))
                .into_iter()
                .filter(|t| !full.contains(t))
                .collect();
            (l, new)
        })
        .collect()
}

/// The vertices on an edge only one triangle uses (by vertex ids: the two
/// sides of a texture seam are one edge).
fn border_vertices(triangles: &[[u32; 3]]) -> HashSet<u32> {
    let mut uses: HashMap<(u32, u32), usize> = HashMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    uses.into_iter()
        .filter(|&(_, n)| n == 1)
        .flat_map(|((a, b), _)| [a, b])
        .collect()
}

#[test]
fn texture_seams_stay_closed() {
    for s in subjects() {
        // A seam's two sides are corners with one vertex and two texture
        // coordinates; collapsed apart, they would open a hole there.
        let mut uvs: HashMap<u32, HashSet<[u32; 2]>> = HashMap::new();
        for c in s.mesh.corners() {
            uvs.entry(c.xyz).or_default().insert(c.uv.map(f32::to_bits));
        }
        let seams = uvs.values().filter(|u| u.len() > 1).count();
        for (l, opened) in new_in_coarser_levels(s, border_vertices) {
            assert!(
                opened.is_empty(),
                "{} level {l}: a hole opens at vertices {opened:?} ({seams} vertices on seams)",
                s.name
            );
        }
    }
}

#[test]
fn the_reported_error_bounds_a_dense_measurement_in_every_frame() {
    let mut table = Vec::new();
    for s in subjects() {
        let full = s.xyz(0);
        for (l, level) in s.lods.levels().iter().enumerate().skip(1) {
            let (found, frame) = sampled_error(
                &s.model,
                &full,
                &s.xyz(l),
                0..s.model.keyframes().frame_count(),
            );
            table.push(format!(
                "{:<34} level {l}: {} triangles, reported {:.3}, densest samples found {:.3} \
                 (frame {frame}): {:.1}% of the bound",
                s.name,
                level.triangle_count(),
                level.error,
                found,
                100.0 * found / f64::from(level.error)
            ));
            assert!(
                found <= f64::from(level.error),
                "{} level {l}: a point {found} units from the other surface in frame {frame}, \
                 but the reported error is {}",
                s.name,
                level.error
            );
        }
    }
    eprintln!("{}", table.join("\n"));
}

#[test]
fn building_twice_gives_identical_levels() {
    let demo = subject("demo").unwrap();
    let again = Levels::new(&demo.model, &demo.mesh, &LevelOptions::DEFAULT).unwrap();
    assert_eq!(again, demo.lods);
}

#[test]
fn no_levels_cost_nothing() {
    let model = md2_wgpu::demo::demo_model();
    for order in [TriangleOrder::File, TriangleOrder::VertexCache] {
        let mesh = RenderMesh::new(&model, order);
        let lods = Levels::new(&model, &mesh, &LevelOptions::NONE).unwrap();
        assert_eq!(lods.levels().len(), 1);
        assert_eq!(lods.indices(), mesh.indices());
        assert_eq!(lods.level_indices(1), None);
    }
    assert_eq!(LevelOptions::default(), LevelOptions::DEFAULT);
}

#[test]
fn another_models_mesh_is_refused() {
    let big = md2_wgpu::demo::demo_model();
    let small = seamed_box(2).model();
    let mesh = RenderMesh::new(&big, TriangleOrder::VertexCache);
    let err = Levels::new(&small, &mesh, &LevelOptions::DEFAULT).unwrap_err();
    assert!(
        matches!(
            err,
            MeshError::NotTheModelsMesh {
                vertex_count: 8,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("not this model's"), "{err}");
}

/// Levels of `model` with the default options, checked for honesty in
/// every frame.
fn checked_levels(name: &str, model: &Md2Model) -> Levels {
    let mesh = RenderMesh::new(model, TriangleOrder::VertexCache);
    let lods = Levels::new(model, &mesh, &LevelOptions::DEFAULT).unwrap();
    let subject = Subject {
        name: name.into(),
        model: model.clone(),
        mesh,
        lods: lods.clone(),
        build_time: Default::default(),
    };
    for l in 1..lods.levels().len() {
        let (found, frame) = sampled_error(
            model,
            &subject.xyz(0),
            &subject.xyz(l),
            0..model.keyframes().frame_count(),
        );
        assert!(
            found <= f64::from(lods.levels()[l].error),
            "{name} level {l}: {found} in frame {frame}"
        );
    }
    lods
}

#[test]
fn awkward_meshes_get_honest_levels_or_none() {
    // A closed sphere with a seam column simplifies well; a box with a seam
    // at every vertex, a lone triangle and a ribbon of duplicated and
    // reversed triangles do not fall over.
    let sphere = checked_levels("sphere", &sphere(12, 16, 6).model());
    assert!(sphere.levels().len() > 1);
    checked_levels("seamed box", &seamed_box(4).model());
    checked_levels("one triangle", &crate::common::single().model());
    checked_levels("duplicated", &crate::common::duplicated(5).model());
}

#[test]
fn a_frame_that_overflows_gets_no_levels() {
    // The scale is finite, as a file must have it; 255 times it is not.
    let mut parts = parts_of(&sphere(8, 8, 3).model());
    let f: Frame = parts.frames[1];
    parts.frames[1] = Frame::new("huge", [f32::MAX / 2.0; 3], f.translate);
    let model = Md2Model::from_parts(parts).unwrap();
    let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
    let lods = Levels::new(&model, &mesh, &LevelOptions::DEFAULT).unwrap();
    assert_eq!(lods.levels().len(), 1);
}

#[test]
fn extreme_options_are_harmless() {
    let model = sphere(10, 12, 4).model();
    let mesh = RenderMesh::new(&model, TriangleOrder::File);
    for options in [
        LevelOptions {
            first_error: 0.0,
            ..LevelOptions::DEFAULT
        },
        LevelOptions {
            first_error: f32::NAN,
            ..LevelOptions::DEFAULT
        },
        LevelOptions {
            first_error: f32::INFINITY,
            error_growth: f32::INFINITY,
            ..LevelOptions::DEFAULT
        },
        LevelOptions {
            triangle_ratio: -1.0,
            ..LevelOptions::DEFAULT
        },
        LevelOptions {
            triangle_ratio: 7.0,
            ..LevelOptions::DEFAULT
        },
        LevelOptions {
            coarser_levels: 255,
            weighed_frames: 255,
            first_error: 1.0,
            ..LevelOptions::DEFAULT
        },
    ] {
        let lods = Levels::new(&model, &mesh, &options).unwrap();
        for pair in lods.levels().windows(2) {
            assert!(
                pair[1].triangle_count() < pair[0].triangle_count(),
                "{options:?}"
            );
            assert!(pair[1].error.is_finite(), "{options:?}");
        }
    }
}

/// The work budget stops a build with the levels it finished: a smaller
/// budget gives a prefix of the levels a larger one gives (the same
/// triangles, the same errors), none gives full detail alone, and the
/// result does not depend on the machine (it counts work, not time).
#[test]
fn a_work_budget_keeps_the_levels_finished_within_it() {
    let model = md2_wgpu::demo::demo_model();
    let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
    let all = Levels::new(&model, &mesh, &LevelOptions::DEFAULT).unwrap();
    assert_eq!(all.levels().len(), 5, "the default budget builds them all");
    let with = |work_budget| {
        let options = LevelOptions {
            work_budget,
            ..LevelOptions::DEFAULT
        };
        Levels::new(&model, &mesh, &options).unwrap()
    };
    assert_eq!(with(0).levels().len(), 1);
    let mut seen = Vec::new();
    for budget in [100_000, 400_000, 700_000, 1_000_000] {
        let some = with(budget);
        let n = some.levels().len();
        assert!(n < all.levels().len(), "{budget}: {n} levels");
        assert_eq!(some.levels(), &all.levels()[..n], "{budget}");
        for l in 0..n {
            assert_eq!(
                some.level_indices(l),
                all.level_indices(l),
                "{budget}, level {l}"
            );
        }
        if budget == 700_000 {
            assert_eq!(with(budget), some, "the same budget, the same levels");
        }
        seen.push(n);
    }
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen.first() < seen.last(), "{seen:?}");
}

/// Why levels weigh more frames than the first: at the same triangle
/// budget, simplifying frame 0's shape alone (as glTF tools simplify a
/// morphed mesh's base pose) against weighing ten more frames, with the
/// errors over every frame as the crate bounds them and what frame 0 alone
/// shows (densely sampled). Weighing frames never does worse over every
/// frame than frame 0 alone, beyond the simplifier's own noise (5%), and
/// does better somewhere. `--nocapture` prints the table.
#[test]
fn weighing_frames_bounds_every_frame_at_least_as_well_as_frame_0_alone() {
    eprintln!(
        "| model | triangles | frame 0 only: error in frame 0 | frame 0 only: error over all frames | weighing 10 more frames: error over all frames |"
    );
    eprintln!("|---|---:|---:|---:|---:|");
    let mut better = 0;
    for name in ["demo", "yohko/tris.md2", "ogro/ogros.MD2"] {
        let Some(s) = subject(name) else { continue };
        for ratio in [0.75, 0.5, 0.25] {
            let level = |weighed_frames| {
                // No error limit: the simplifier alone decides.
                let options = LevelOptions {
                    coarser_levels: 1,
                    first_error: 1e3,
                    triangle_ratio: ratio,
                    weighed_frames,
                    ..LevelOptions::DEFAULT
                };
                let lods = Levels::new(&s.model, &s.mesh, &options).unwrap();
                let l = lods.levels().last().copied().unwrap();
                let xyz: Vec<[u32; 3]> = lods
                    .level_indices(lods.levels().len() - 1)
                    .unwrap()
                    .chunks_exact(3)
                    .map(|t| std::array::from_fn(|k| s.mesh.corners()[t[k] as usize].xyz))
                    .collect();
                (l, xyz)
            };
            let ((base, base_xyz), (weighed, _)) = (level(0), level(10));
            let (frame0, _) = sampled_error(&s.model, &s.xyz(0), &base_xyz, 0..1);
            eprintln!(
                "| {name} | {} / {} | {frame0:.2} | {:.2} | {:.2} |",
                base.triangle_count(),
                weighed.triangle_count(),
                base.error,
                weighed.error
            );
            assert!(
                weighed.error <= base.error * 1.05,
                "{name} at {ratio}: weighing frames bounds every frame by {}, frame 0 alone by {}",
                weighed.error,
                base.error
            );
            better += usize::from(weighed.error < base.error);
        }
    }
    assert!(better > 0, "weighing frames did better nowhere");
}
