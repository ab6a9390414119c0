//! Saved levels: the levels-file fuzz target's checks
//! (`support::check_levels_file`) on seeded mutations of the demo's saved
//! levels, half with the checksum made right so the mutations reach the
//! checks behind it. Writes the seed where the fuzz target's docs say.

use md2_wgpu::support::Rng;

use super::subject;

#[test]
fn the_levels_file_checks_hold_on_seeded_mutations() {
    let demo = subject("demo").expect("the demo is a subject");
    let bytes = demo.lods.to_bytes(&demo.model, &demo.mesh);
    let seeds = crate::common::target_dir().join("tmp/md2-fuzz-seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("demo.md2l"), &bytes).unwrap();
    // As saved, with an odd and an even first byte: the magic's 'M' is
    // odd, so both ways round the checksum stays right.
    md2_wgpu::support::check_levels_file(&bytes);
    let mut rng = Rng::new(0x1e7e);
    let mut loaded = 0;
    for n in 0..3000 {
        let mut mutant = bytes.clone();
        match n % 4 {
            // A few flipped bits anywhere.
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(mutant.len());
                    mutant[at] ^= 1 << rng.below(8);
                }
            }
            // A word of the header or of the levels' table set to
            // something hostile.
            1 => {
                let at = 4 * rng.below(16.min(mutant.len() / 4));
                let word: u32 = match rng.below(4) {
                    0 => 0,
                    1 => u32::MAX,
                    2 => rng.below(5000) as u32,
                    _ => rng.next_u64() as u32,
                };
                mutant[at..at + 4].copy_from_slice(&word.to_le_bytes());
            }
            // Truncated, or grown.
            2 => {
                if rng.below(2) == 0 {
                    mutant.truncate(rng.below(mutant.len()));
                } else {
                    mutant.extend(std::iter::repeat_n(0, 1 + rng.below(64)));
                }
            }
            // An index past the levels' table changed.
            _ => {
                let at = 32 + 4 * rng.below((mutant.len() - 40) / 4);
                let word = rng.below(2000) as u32;
                mutant[at..at + 4].copy_from_slice(&word.to_le_bytes());
            }
        }
        crate::common::check_mutant(
            "a mutation fails the levels file checks",
            "fuzz-finding.md2l",
            &mutant,
            md2_wgpu::support::check_levels_file,
        );
        loaded += usize::from(
            md2_wgpu::mesh::Levels::from_bytes(&mutant, &demo.model, &demo.mesh).is_ok(),
        );
    }
    eprintln!("3000 mutations of the demo's saved levels: {loaded} loaded as they were");
}
