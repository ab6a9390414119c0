//! What Quake II's entity effects cost: planar shadows under the whole
//! crowd and powerup shells on a tenth of it, against the same crowd
//! without effects, on both of the crate's paths.

use crate::Bench;
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Row};
use crate::scene::BenchModel;
use crate::strategies::{Immediate, Resident, ResidentDraw, upload};

/// Shells go on every this-many-th member.
const SHELL_EVERY: usize = 10;

/// The variants, as (suffix, look).
const VARIANTS: [(&str, &str); 3] = [
    ("", "no effects"),
    (", shadows", "shadows"),
    (", shells on a tenth", "shells"),
];

/// Measures both paths with and without effects at `n` instances for every
/// model; prints the table and the costs.
pub fn run(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let Table { rows, checks } =
        measure::per_model(bench, "effects", models, n, |model, plain| {
            let scenes = [
                plain.clone(),
                plain.with_shadows(),
                plain.with_shells_every(SHELL_EVERY),
            ];
            let mut entries = Vec::new();
            for ((suffix, look), scene) in VARIANTS.into_iter().zip(&scenes) {
                entries.push(Entry::new(
                    format!("gpu{suffix}"),
                    Some(look),
                    upload(gpu, cache, model).and_then(|m| Immediate::new(gpu, cache, m, scene)),
                ));
                entries.push(Entry::new(
                    format!("resident{suffix}"),
                    Some(look),
                    upload(gpu, cache, model)
                        .and_then(|m| Resident::new(gpu, cache, m, scene, true, ResidentDraw::All)),
                ));
            }
            Ok(entries)
        })?;
    say!("## Entity effects: planar shadows and shells\n");
    say!(
        "Every member in view. Shadows: Quake II's planar shadows of the whole crowd on the \
         ground (one more instanced draw, stencilled). Shells: a blue powerup shell on every \
         {SHELL_EVERY}th member (one more draw of those members, blended).\n"
    );
    say!("{}", report::markdown(&rows));
    report::print_checks("the two paths draw each variant alike", &checks);
    let labels: Vec<&str> = models.iter().map(|m| m.label.as_str()).collect();
    let out = report::cost_table(
        &rows,
        &labels,
        n,
        (VARIANTS[0].0, "none"),
        &[(VARIANTS[1].0, "shadows"), (VARIANTS[2].0, "shells")],
    );
    say!(
        "Cost of each effect, against the same path without effects (no target; frame ratios \
         round by round: median (smallest–largest round)):\n"
    );
    say!("{out}");
    Ok(rows)
}
