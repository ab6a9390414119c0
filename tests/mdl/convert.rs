//! MD2 to MDL and back, saying what each loses: an MDL's poses go to MD2
//! exactly; an MD2's frames come to one MDL grid within half a step.

use md2_wgpu::format::mdl::{MdlModel, Palette, from_keyframes, to_md2};
use md2_wgpu::{
    Md2Model,
    mesh::{RenderMesh, TriangleOrder},
};

use crate::common::*;

/// Every triangle corner of `a` and `b` decodes to the same position
/// (within `tolerance`) and texel, frame by frame, in the same order.
fn same_drawing(
    a: &md2_wgpu::model::KeyframeModel,
    b: &md2_wgpu::model::KeyframeModel,
    tolerance: f32,
) {
    assert_eq!(a.frame_count(), b.frame_count());
    assert_eq!(a.triangle_count(), b.triangle_count());
    for f in 0..a.frame_count() {
        let corner = |m: &md2_wgpu::model::KeyframeModel, i: u32| {
            let c = m.corners()[m.indices()[i as usize] as usize];
            let v = m.frame_data(f).packed()[c.xyz as usize];
            (
                v.decode_position(&m.frames()[f as usize]),
                c.uv,
                v.normal_index,
            )
        };
        for i in 0..a.indices().len() as u32 {
            let (pa, uva, na) = corner(a, i);
            let (pb, uvb, nb) = corner(b, i);
            let d = (0..3).map(|k| (pa[k] - pb[k]).powi(2)).sum::<f32>().sqrt();
            assert!(d <= tolerance, "frame {f}, corner {i}: {pa:?} vs {pb:?}");
            for k in 0..2 {
                assert!(
                    (uva[k] - uvb[k]).abs() < 1e-6,
                    "frame {f}, corner {i}: {uva:?} vs {uvb:?}"
                );
            }
            assert_eq!(na, nb);
        }
        assert_eq!(a.frames()[f as usize].name(), b.frames()[f as usize].name());
    }
}

#[test]
fn an_mdl_becomes_an_md2_exactly_seam_rule_and_all() {
    let mdl = seam_mdl();
    let (md2, conversion) = to_md2(&mdl, &["seam_0.png".into(), "seam_1.png".into()]).unwrap();
    assert_eq!(conversion.max_position_error, 0.0);
    same_drawing(&mdl, &md2, 0.0);
    // It loads back as written, and names its skins.
    let again = Md2Model::from_bytes(&md2.to_bytes()).unwrap();
    assert_eq!(again.skins()[1].name(), "seam_1.png");
    assert!(
        conversion.notes.iter().any(|n| n.contains("frame group")),
        "{:?}",
        conversion.notes
    );
    assert!(
        conversion.notes.iter().any(|n| n.contains("skin groups")),
        "{:?}",
        conversion.notes
    );
}

#[test]
fn an_md2_becomes_an_mdl_within_half_a_step_of_one_grid() {
    let md2 = md2_wgpu::demo::demo_model();
    let skin = md2_wgpu::demo::demo_skin();
    let palette = Palette::builtin();
    let (mdl, conversion) = from_keyframes(&md2, std::slice::from_ref(&skin), &palette).unwrap();
    // One scale for every pose: a vertex moves by at most half a step per
    // axis (the rounding), plus float rounding.
    let step = mdl.header().scale;
    let bound = 0.5 * (step[0].powi(2) + step[1].powi(2) + step[2].powi(2)).sqrt() * 1.001;
    assert!(conversion.max_position_error > 0.0);
    assert!(
        conversion.max_position_error <= bound,
        "{conversion:?}, bound {bound}"
    );
    same_drawing(&md2, &mdl, conversion.max_position_error * 1.0001 + 1e-6);
    // Each welded corner is a vertex; the drawn mesh is the same.
    assert_eq!(mdl.vertex_count(), md2.corners().len());
    assert_eq!(
        RenderMesh::new(&mdl, TriangleOrder::File).indices().len(),
        RenderMesh::new(&md2, TriangleOrder::File).indices().len()
    );
    assert_eq!(mdl.animations(), md2.keyframes().animations());
    // Its skin is in the palette, below the fullbright range.
    assert!(
        mdl.skins()[0].images()[0]
            .iter()
            .all(|&i| i < md2_wgpu::format::mdl::FULLBRIGHT_FIRST)
    );
    assert_eq!(MdlModel::from_bytes(&mdl.to_bytes()).unwrap(), mdl);
    eprintln!("demo to MDL: {:?}", conversion.notes);
}

#[test]
fn an_md2_with_more_corners_than_mdl_holds_is_refused_by_name() {
    let md2 = md2_wgpu::support::limits_model_with(2);
    let error = from_keyframes(&md2, &[], &Palette::builtin()).unwrap_err();
    assert!(
        matches!(
            error,
            md2_wgpu::format::mdl::MdlError::BeyondLimit { limit: 2000, .. }
        ),
        "{error}"
    );
}
