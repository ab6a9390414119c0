//! `Md2Model::from_bytes` on any bytes: a model or a typed error, never a
//! panic, and no allocation past libFuzzer's `-malloc_limit_mb`. A model that
//! loads also writes back: byte for byte when it had no warnings (but
//! renamed animations, which are about names, not bytes), and always
//! as a file that loads again with the same geometry.
//!
//! Seeds: the generated models that `cargo test --test format_built` writes
//! to `target/tmp/md2-fuzz-seeds`, plus, where present, ../shared/md2 (never
//! committed):
//!
//! ```text
//! mkdir -p fuzz/corpus/from_bytes
//! cp target/tmp/md2-fuzz-seeds/* fuzz/corpus/from_bytes/
//! find ../shared/md2 -iname '*.md2' -exec cp {} fuzz/corpus/from_bytes/ \;
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a from_bytes -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;
use md2_wgpu::{Md2Model, Md2Warning};

fuzz_target!(|data: &[u8]| {
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
});
