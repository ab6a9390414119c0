//! What the application's own shading costs: the built-in look against the
//! same look written as a material, and against the built-in look with
//! motion vectors (a second colour target, and every instance's previous
//! transform and pose), on both of the crate's paths.

use crate::Bench;
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Row};
use crate::scene::BenchModel;
use crate::strategies::{Immediate, Resident, ResidentDraw, Shading, upload};

/// The variants, as (suffix, shading).
const VARIANTS: [(&str, Shading); 3] = [
    ("", Shading::Builtin),
    (", material", Shading::Material),
    (", motion", Shading::Motion),
];

/// Measures both paths in every shading at `n` instances for every model;
/// prints the table and the costs against the built-in look.
pub fn run(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let Table { rows, checks } =
        measure::per_model(bench, "shading", models, n, |model, scene| {
            let mut entries = Vec::new();
            for (suffix, shading) in VARIANTS {
                // Every variant draws the same colour picture: the material is
                // the built-in look again, and motion vectors go to a target
                // of their own.
                let look = Some("the built-in look");
                entries.push(Entry::new(
                    format!("gpu{suffix}"),
                    look,
                    upload(gpu, cache, model)
                        .and_then(|m| Immediate::shaded(gpu, cache, m, scene, shading)),
                ));
                entries.push(Entry::new(
                    format!("resident{suffix}"),
                    look,
                    upload(gpu, cache, model).and_then(|m| {
                        Resident::shaded(gpu, cache, m, scene, (true, ResidentDraw::All), shading)
                    }),
                ));
            }
            Ok(entries)
        })?;
    say!("## The application's shading: materials and motion vectors\n");
    say!(
        "Every member in view. Material: the built-in look written again as an application's \
         WGSL function (`support::QUAKE_AGAIN_WGSL`), so the pictures must agree and the cost \
         is the material path's own. Motion: the built-in look plus the built-in motion target \
         (Rg16Float), every instance drawn with its previous transform and pose.\n"
    );
    say!("{}", report::markdown(&rows));
    report::print_checks("every variant draws the same colour picture", &checks);
    let labels: Vec<&str> = models.iter().map(|m| m.label.as_str()).collect();
    let out = report::cost_table(
        &rows,
        &labels,
        n,
        (VARIANTS[0].0, "built-in"),
        &[(VARIANTS[1].0, "material"), (VARIANTS[2].0, "motion")],
    );
    say!(
        "Cost of each, against the same path with the built-in look (targets: a material \
         within 1.05× of the frame with the same vertex-shader runs; motion within 1.5×). \
         Frame ratios are taken round by round: median (smallest–largest round).\n"
    );
    say!("{out}");
    Ok(rows)
}
