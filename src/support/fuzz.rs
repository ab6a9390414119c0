//! The fuzz target's body (`fuzz/fuzz_targets/from_bytes.rs` calls it), here
//! so that it compiles with the crate on stable and `cargo test` runs it on
//! seeded mutations of real files.

use crate::format::{Md2Model, Md2Warning};

/// `Md2Model::from_bytes` on any bytes: a model or a typed error, never a
/// panic. A model that loads has animations that tile its frames with unique
/// names and ordered bounds, and writes back: byte for byte when it had no
/// warnings (but renamed animations, which are about names, not bytes), and
/// always as a file that loads again with the same geometry. Panics where
/// any of that fails: that is the finding.
pub fn check_from_bytes(data: &[u8]) {
    let Ok(model) = Md2Model::from_bytes(data) else {
        return;
    };

    // The animations tile the frames, in order, with unique names.
    let mut next = 0;
    let mut names = std::collections::HashSet::new();
    for a in model.animations() {
        assert_eq!(a.first, next);
        assert!(a.last >= a.first);
        assert!(names.insert(&a.name), "two animations named {:?}", a.name);
        next = a.last + 1;
    }
    assert_eq!(next, model.frame_count());

    for f in 0..model.frame_count() {
        let (lo, hi) = model.frame_bounds(f);
        for k in 0..3 {
            assert!(lo[k] <= hi[k], "frame {f}: bounds {lo:?} {hi:?}");
        }
    }

    let written = model.to_bytes();
    let again = Md2Model::from_bytes(&written).expect("a written model loads");
    let renamed = |w: &Md2Warning| matches!(w, Md2Warning::AnimationRenamed { .. });
    if model.warnings().iter().all(renamed) {
        assert!(written == data, "a clean file writes back byte for byte");
        assert_eq!(again, model);
    } else {
        assert_eq!(again.header(), &model.canonical_header());
        assert_eq!(again.skins(), model.skins());
        assert_eq!(again.tex_coords(), model.tex_coords());
        assert_eq!(again.triangles(), model.triangles());
        assert_eq!(again.frames(), model.frames());
        assert_eq!(again.vertices(), model.vertices());
        // Only the quirks that live in the data itself survive a rewrite.
        for w in again.warnings() {
            assert!(
                matches!(
                    w,
                    Md2Warning::BeyondQuake2Limit { .. }
                        | Md2Warning::NormalIndexOutOfTable { .. }
                        | Md2Warning::SkinNameUnterminated { .. }
                        | Md2Warning::AnimationRenamed { .. }
                ),
                "a rewritten file warns {w:?}"
            );
        }
        assert!(again.to_bytes() == written, "a rewrite is a fixed point");
    }
}
