//! Grouping frames into named animations by their names.
//!
//! MD2 files do not list their animations; the frame names carry them
//! (`stand01`..`stand40`, `pain101`..`pain104`, ...). The rule, applied to the
//! frames in file order:
//!
//! - A frame's *stem* is its name without trailing ASCII digits; its *number*
//!   is those digits (if any).
//! - Consecutive frames with the same stem form one animation. A new one
//!   starts where the stem changes, where the number goes down, or where a
//!   number of three or more digits changes its hundreds (`pain104` →
//!   `pain201`).
//! - An animation whose first number has three or more digits and is ≥ 100 is
//!   named stem + hundreds (`pain101..104` → `pain1`, `death301..308` →
//!   `death3`); any other is named by its stem (`stand01..40` and
//!   `stand001..040` → `stand`, `crattak1..9` → `crattak`, a lone `boom` →
//!   `boom`).
//!
//! Engines that strip all digits merge `pain1`/`pain2`/`pain3` (and the three
//! deaths) into one animation; this rule keeps them apart. Each animation is a
//! contiguous frame range, and together they cover every frame in order, so
//! the same name can appear twice when a file repeats a stem later on.

use std::ops::RangeInclusive;

/// A named, contiguous range of frames.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Animation {
    /// The name, by the rule above.
    pub name: String,
    /// The first frame (index into the model's frames).
    pub first: u32,
    /// The last frame, inclusive.
    pub last: u32,
}

impl Animation {
    /// How many frames it has (1 where `last < first`, as a
    /// [`Clip`](crate::Clip) reads such a range).
    pub fn len(&self) -> u32 {
        self.last.saturating_sub(self.first) + 1
    }

    /// Always false: an animation has at least one frame.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The frame indices, inclusive.
    pub fn frames(&self) -> RangeInclusive<u32> {
        self.first..=self.last.max(self.first)
    }
}

/// A frame name split into stem and number.
struct Parsed<'a> {
    stem: &'a str,
    /// The value, saturating (a 30-digit number is still "large").
    number: Option<u64>,
    digits: usize,
}

fn split(name: &str) -> Parsed<'_> {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &name[stem.len()..];
    let number = (!digits.is_empty()).then(|| {
        digits.bytes().fold(0u64, |n, d| {
            n.saturating_mul(10).saturating_add((d - b'0') as u64)
        })
    });
    Parsed {
        stem,
        number,
        digits: digits.len(),
    }
}

fn name_of(first: &Parsed<'_>) -> String {
    match first.number {
        Some(n) if first.digits >= 3 && n >= 100 => format!("{}{}", first.stem, n / 100),
        _ => first.stem.to_string(),
    }
}

fn continues(prev: &Parsed<'_>, next: &Parsed<'_>) -> bool {
    if prev.stem != next.stem {
        return false;
    }
    match (prev.number, next.number) {
        (Some(p), Some(n)) => {
            let hundreds_matter = prev.digits >= 3 || next.digits >= 3;
            n >= p && !(hundreds_matter && p / 100 != n / 100)
        }
        (None, None) => true,
        // A stem with and without a number ("run", "run2"): one goes on from
        // the other only upwards, as if the bare name were 0.
        (None, Some(_)) => true,
        (Some(_), None) => false,
    }
}

/// Groups frame names into animations by the rule in the [module
/// docs](self).
///
/// At most `u32::MAX + 1` names are read: frame indices are `u32` (an MD2
/// file has fewer than 2³¹ frames).
pub fn group_frames<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Vec<Animation> {
    let names: Vec<S> = (0..=u32::MAX).zip(names).map(|(_, n)| n).collect();
    let mut out: Vec<Animation> = Vec::new();
    for (i, name) in (0u32..).zip(&names) {
        let parsed = split(name.as_ref());
        let joins = i > 0 && continues(&split(names[i as usize - 1].as_ref()), &parsed);
        match out.last_mut() {
            Some(anim) if joins => anim.last = i,
            _ => out.push(Animation {
                name: name_of(&parsed),
                first: i,
                last: i,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(anims: &[Animation]) -> Vec<(String, u32, u32)> {
        anims
            .iter()
            .map(|a| (a.name.clone(), a.first, a.last))
            .collect()
    }

    fn numbered(stem: &str, range: std::ops::RangeInclusive<u32>, width: usize) -> Vec<String> {
        range.map(|n| format!("{stem}{n:0width$}")).collect()
    }

    #[test]
    fn quake2_player_names_keep_the_three_pains_apart() {
        let mut frames = numbered("stand", 1..=40, 2);
        frames.extend(numbered("pain", 101..=104, 3));
        frames.extend(numbered("pain", 201..=204, 3));
        frames.extend(numbered("pain", 301..=304, 3));
        frames.extend(numbered("crattak", 1..=9, 1));
        frames.extend(numbered("death", 301..=308, 3));
        frames.push("boom".into());
        assert_eq!(
            names(&group_frames(&frames)),
            vec![
                ("stand".into(), 0, 39),
                ("pain1".into(), 40, 43),
                ("pain2".into(), 44, 47),
                ("pain3".into(), 48, 51),
                ("crattak".into(), 52, 60),
                ("death3".into(), 61, 68),
                ("boom".into(), 69, 69),
            ]
        );
    }

    #[test]
    fn zero_padded_and_repeated_names() {
        let mut frames = numbered("stand", 1..=40, 3);
        frames.extend(numbered("crstand", 1..=3, 3));
        frames.extend(numbered("crwalk", 1..=2, 3));
        frames.extend(numbered("crstand", 1..=2, 3));
        // A number going down starts a new animation even with the same stem.
        frames.extend(numbered("run", 5..=6, 1));
        frames.extend(numbered("run", 1..=2, 1));
        assert_eq!(
            names(&group_frames(&frames)),
            vec![
                ("stand".into(), 0, 39),
                ("crstand".into(), 40, 42),
                ("crwalk".into(), 43, 44),
                ("crstand".into(), 45, 46),
                ("run".into(), 47, 48),
                ("run".into(), 49, 50),
            ]
        );
    }

    #[test]
    fn every_frame_is_covered_whatever_the_names() {
        let frames = [
            "",
            "9",
            "a99999999999999999999999999",
            "a1",
            "a",
            "a",
            "x0001",
            "x0100",
        ];
        let anims = group_frames(frames);
        let mut next = 0;
        for a in &anims {
            assert_eq!(a.first, next);
            assert!(a.last >= a.first);
            next = a.last + 1;
        }
        assert_eq!(next as usize, frames.len());
        assert!(group_frames(Vec::<String>::new()).is_empty());
    }
}
