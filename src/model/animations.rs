//! Grouping frames into named animations by their names.
//!
//! MD2 files do not list their animations; the frame names carry them
//! (`stand01`..`stand40`, `pain101`..`pain104`, ...). Authors number them
//! by hand, and real files count across a hundred (`rail001`..`rail173`),
//! mistype a number (`death22`, `death33`, `death24`), sort `salute10` after
//! `salute01`, or count backwards (`pain204`..`pain201`). The rule below
//! keeps each of those one animation, while Quake II's `pain101..104`,
//! `pain201..204`, `pain301..304` stay three.
//!
//! # The rule
//!
//! A frame's *stem* is its name without trailing ASCII digits; its *number*
//! is the value of those digits (a name with none counts as number 0 with
//! no digits). Numbers of three or more digits fall in *hundreds*
//! (`pain204` is in hundred 2).
//!
//! A *step* from number `p` to number `q`, `d` frames later, goes **up** if
//! `q ≥ p` and, where the two lie in different hundreds (either has three or
//! more digits), `q = p + d`: across a hundred only a plain count goes on
//! (`rail099` → `rail100`), a jump starts a new group (`pain104` →
//! `pain201`). A step goes **down** the same way mirrored (`q ≤ p`;
//! `q = p − d` across a hundred).
//!
//! The frames are read in file order and cut into animations:
//!
//! 1. An animation holds frames of one stem only.
//! 2. Its *direction* is down if, of the first three steps from its first
//!    frame (fewer where the stem ends sooner), more go strictly down than
//!    strictly up; otherwise up. One mistyped number spoils two steps, one
//!    each way, so it cannot turn the direction over.
//! 3. A frame joins the animation if the step to it from the animation's
//!    last in-order frame goes in the animation's direction (`d` = 1).
//! 4. Otherwise it still joins if exactly one number is out of place:
//!    - the frame itself, when the frame after it has the same stem and
//!      follows the last in-order frame strictly in the direction, `d` = 2
//!      (`stand01 stand02 stand00 stand04`); or
//!    - the frame before it, when that one had joined by rule 3 directly
//!      after its own predecessor, and this frame follows that predecessor
//!      strictly in the direction, `d` = 2 (`death22 death33 death24`,
//!      `salute01 salute10 salute02`).
//!
//!    Two out-of-place numbers in a row end the animation, as does a
//!    repeat that starts over (`run5 run6 run1 run2` is two animations).
//! 5. Anything else starts a new animation with this frame.
//!
//! # Names
//!
//! An animation whose first and last numbers both have three or more digits
//! and lie in the same hundred, 1 or more, is named stem + hundred
//! (`pain101..104` → `pain1`, `death308..301` → `death3`); any other is
//! named by its stem (`stand01..40` and `stand001..040` → `stand`,
//! `rail001..173` → `rail`, `crattak1..9` → `crattak`, a lone `boom` →
//! `boom`). Engines that strip all digits merge `pain1`/`pain2`/`pain3` (and
//! the three deaths) into one animation; this rule keeps them apart.
//!
//! Names are unique, since apps look animations up by name. Where a name
//! comes back later in the file (a weapon model that repeats `crstand` after
//! `crpain`), the first animation keeps it and each later one is named
//! `name_k`, with `k` the smallest number from 2 up that makes a name no
//! other animation has (`crstand_2`, then `crstand_3`). A loaded or built
//! [`Md2Model`](crate::Md2Model) reports each such rename as a
//! [`Md2Warning::AnimationRenamed`](crate::format::Md2Warning::AnimationRenamed).
//!
//! Each animation is a contiguous frame range, and together they cover
//! every frame in order.

use std::collections::HashSet;
use std::ops::RangeInclusive;

/// A named, contiguous range of frames.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Animation {
    /// The name, by the rule above: unique among a model's animations.
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

/// An animation that came back under a name already taken, and was given
/// another: see [Names](self#names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Renamed {
    /// Its index in the animation list.
    pub index: usize,
    /// The name the rule gave it before the rename.
    pub name: String,
}

/// A frame name split into stem and number.
struct Parsed<'a> {
    stem: &'a str,
    /// The value, saturating (a 30-digit number is still "large"); 0 for a
    /// name without digits.
    number: u64,
    digits: usize,
}

impl Parsed<'_> {
    /// The hundred the number lies in, where it has three or more digits.
    fn hundred(&self) -> Option<u64> {
        (self.digits >= 3).then_some(self.number / 100)
    }
}

fn split(name: &str) -> Parsed<'_> {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &name[stem.len()..];
    let number = digits.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    Parsed {
        stem,
        number,
        digits: digits.len(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// Whether `q`, `gap` frames after `p`, steps from it in `direction` (see
/// the module docs); `strict` refuses an equal number.
fn steps(p: &Parsed<'_>, q: &Parsed<'_>, gap: u64, direction: Direction, strict: bool) -> bool {
    let (low, high) = match direction {
        Direction::Up => (p.number, q.number),
        Direction::Down => (q.number, p.number),
    };
    if high < low || (strict && high == low) {
        return false;
    }
    let crosses =
        (p.hundred().is_some() || q.hundred().is_some()) && p.number / 100 != q.number / 100;
    !crosses || high - low == gap
}

/// The direction of an animation starting at `start`: rule 2.
fn direction(frames: &[Parsed<'_>], start: usize) -> Direction {
    let (mut up, mut down) = (0, 0);
    let window = frames[start..]
        .windows(2)
        .take(3)
        .take_while(|w| w[1].stem == frames[start].stem);
    for w in window {
        if steps(&w[0], &w[1], 1, Direction::Up, true) {
            up += 1;
        } else if steps(&w[0], &w[1], 1, Direction::Down, true) {
            down += 1;
        }
    }
    if down > up {
        Direction::Down
    } else {
        Direction::Up
    }
}

/// One past the last frame of the animation starting at `start`: rules 1
/// and 3 to 5.
fn animation_end(frames: &[Parsed<'_>], start: usize) -> usize {
    let stem = frames[start].stem;
    let same_stem = |i: usize| frames.get(i).is_some_and(|f| f.stem == stem);
    let direction = direction(frames, start);
    let goes = |from: usize, to: usize, strict: bool| {
        steps(
            &frames[from],
            &frames[to],
            (to - from) as u64,
            direction,
            strict,
        )
    };
    // The last in-order frame, and the in-order frame before it where that
    // was the frame just before (so that it, too, may be found out of place).
    let mut last = start;
    let mut before: Option<usize> = None;
    let mut i = start + 1;
    while same_stem(i) {
        if goes(last, i, false) {
            before = (last == i - 1).then_some(last);
            last = i;
        } else if last == i - 1 && same_stem(i + 1) && goes(last, i + 1, true) {
            // Frame i is out of place; the next frame goes on from `last`.
            // It joins below, on the next turn, by rule 3 with a gap of 2.
        } else if let Some(b) = before.filter(|_| last == i - 1)
            && goes(b, i, true)
        {
            // The frame before was out of place.
            before = None;
            last = i;
        } else {
            break;
        }
        i += 1;
    }
    i
}

/// The name of the frames `first..=last` by themselves, before names are
/// made unique.
fn base_name(first: &Parsed<'_>, last: &Parsed<'_>) -> String {
    match (first.hundred(), last.hundred()) {
        (Some(a), Some(b)) if a == b && a >= 1 => format!("{}{a}", first.stem),
        _ => first.stem.to_string(),
    }
}

/// Groups frame names into animations by the rule in the [module
/// docs](self), with unique names.
///
/// At most `u32::MAX + 1` names are read: frame indices are `u32` (an MD2
/// file has fewer than 2³¹ frames).
pub fn group_frames<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Vec<Animation> {
    group(names).0
}

/// [`group_frames`], and which animations were renamed to keep the names
/// unique.
pub(crate) fn group<S: AsRef<str>>(
    names: impl IntoIterator<Item = S>,
) -> (Vec<Animation>, Vec<Renamed>) {
    let names: Vec<S> = (0..=u32::MAX).zip(names).map(|(_, n)| n).collect();
    group_around(&names, &[])
}

/// [`group`], where each of `wholes` (ascending, disjoint frame ranges) is
/// one animation whatever its names say, and no other animation crosses
/// into one: an MDL's frame groups. At most `u32::MAX + 1` names.
pub(crate) fn group_around<S: AsRef<str>>(
    names: &[S],
    wholes: &[std::ops::Range<u32>],
) -> (Vec<Animation>, Vec<Renamed>) {
    let frames: Vec<Parsed<'_>> = names.iter().map(|n| split(n.as_ref())).collect();
    let mut wholes = wholes
        .iter()
        .map(|r| r.start as usize..(r.end as usize).min(frames.len()))
        .filter(|r| !r.is_empty())
        .peekable();
    let mut animations = Vec::new();
    let mut start = 0;
    while start < frames.len() {
        // Skip ranges already behind (a caller's overlap), then see whether
        // an animation starts a whole range here or runs up to the next.
        while wholes.next_if(|w| w.start < start).is_some() {}
        let end = match wholes.peek() {
            Some(w) if w.start == start => w.end,
            Some(w) => animation_end(&frames[..w.start], start),
            None => animation_end(&frames, start),
        };
        animations.push(Animation {
            name: base_name(&frames[start], &frames[end - 1]),
            // Both fit: at most u32::MAX + 1 names were taken.
            first: start as u32,
            last: (end - 1) as u32,
        });
        start = end;
    }
    let renamed = make_unique(&mut animations);
    (animations, renamed)
}

/// Every first use of a name keeps it; later ones take a suffix that no
/// animation's own name has, so no rename can collide with a name that
/// comes later.
fn make_unique(animations: &mut [Animation]) -> Vec<Renamed> {
    let reserved: HashSet<String> = animations.iter().map(|a| a.name.clone()).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut renamed = Vec::new();
    for (index, animation) in animations.iter_mut().enumerate() {
        if taken.insert(animation.name.clone()) {
            continue;
        }
        let unique = (2u64..)
            .map(|k| format!("{}_{k}", animation.name))
            .find(|n| !reserved.contains(n) && !taken.contains(n))
            .unwrap_or_else(|| unreachable!("fewer names than numbers"));
        taken.insert(unique.clone());
        let name = std::mem::replace(&mut animation.name, unique);
        renamed.push(Renamed { index, name });
    }
    renamed
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

    fn numbered(stem: &str, range: impl IntoIterator<Item = u32>, width: usize) -> Vec<String> {
        range
            .into_iter()
            .map(|n| format!("{stem}{n:0width$}"))
            .collect()
    }

    /// The names and ranges, as `(name, first, last)`.
    fn grouped(frames: &[String]) -> Vec<(String, u32, u32)> {
        names(&group_frames(frames))
    }

    fn want(list: &[(&str, u32, u32)]) -> Vec<(String, u32, u32)> {
        list.iter()
            .map(|&(n, a, b)| (n.to_string(), a, b))
            .collect()
    }

    #[test]
    fn quake2_player_names_keep_the_three_pains_apart() {
        let mut frames = numbered("stand", 1..=40, 2);
        frames.extend(numbered("pain", 101..=104, 3));
        frames.extend(numbered("pain", 201..=204, 3));
        frames.extend(numbered("pain", 301..=304, 3));
        frames.extend(numbered("crattak", 1..=9, 1));
        frames.extend(numbered("death", 101..=106, 3));
        frames.extend(numbered("death", 201..=206, 3));
        frames.extend(numbered("death", 301..=308, 3));
        frames.push("boom".into());
        assert_eq!(
            grouped(&frames),
            want(&[
                ("stand", 0, 39),
                ("pain1", 40, 43),
                ("pain2", 44, 47),
                ("pain3", 48, 51),
                ("crattak", 52, 60),
                ("death1", 61, 66),
                ("death2", 67, 72),
                ("death3", 73, 80),
                ("boom", 81, 81),
            ])
        );
    }

    #[test]
    fn a_count_across_a_hundred_is_one_animation() {
        let mut frames = numbered("dude", 1..=198, 3);
        frames.extend(numbered("rail", 1..=173, 3));
        // Two digits running into three.
        frames.extend(numbered("walk", 95..=104, 2));
        assert_eq!(
            grouped(&frames),
            want(&[("dude", 0, 197), ("rail", 198, 370), ("walk", 371, 380)])
        );
    }

    #[test]
    fn a_jump_to_another_hundred_starts_a_new_animation() {
        let mut frames = numbered("attak", 101..=118, 3);
        frames.extend(numbered("attak", 201..=208, 3));
        // A count that skips a number across the hundred is a jump too.
        frames.extend(numbered("walk", [98, 100], 3));
        // A single frame in a hundred of its own.
        frames.extend(numbered("pain", [104, 201, 301, 302], 3));
        assert_eq!(
            grouped(&frames),
            want(&[
                ("attak1", 0, 17),
                ("attak2", 18, 25),
                ("walk", 26, 26),
                ("walk1", 27, 27),
                ("pain1", 28, 28),
                ("pain2", 29, 29),
                ("pain3", 30, 31),
            ])
        );
    }

    #[test]
    fn one_mistyped_number_stays_in() {
        // death23 typed as death33.
        let mut frames = numbered("death", (1..=22).chain([33]).chain(24..=50), 2);
        // salute10 sorted after salute01.
        frames.extend(numbered("salute", [1, 10].into_iter().chain(2..=9), 2));
        // A number too low in the middle, and a doubled one.
        frames.extend(numbered("run", [1, 2, 0, 4, 5, 5, 6], 1));
        // Across a hundred, the count goes on past the wrong number.
        frames.extend(numbered("dude", (95..=98).chain([909]).chain(100..=103), 3));
        assert_eq!(
            grouped(&frames),
            want(&[
                ("death", 0, 49),
                ("salute", 50, 59),
                ("run", 60, 66),
                ("dude", 67, 75),
            ])
        );
    }

    #[test]
    fn two_wrong_numbers_in_a_row_split() {
        let frames = numbered("walk", [1, 2, 3, 40, 50, 4, 5], 1);
        assert_eq!(grouped(&frames), want(&[("walk", 0, 4), ("walk_2", 5, 6)]));
    }

    #[test]
    fn a_run_numbered_backwards_is_one_animation() {
        let mut frames = numbered("pain", 101..=104, 3);
        frames.extend(numbered("pain", (201..=204).rev(), 3));
        frames.extend(numbered("pain", 301..=304, 3));
        frames.extend(numbered("death", (1..=8).rev(), 2));
        // One wrong number in a backward run, as the first step.
        frames.extend(numbered("fall", [9, 90, 7, 6, 5], 1));
        assert_eq!(
            grouped(&frames),
            want(&[
                ("pain1", 0, 3),
                ("pain2", 4, 7),
                ("pain3", 8, 11),
                ("death", 12, 19),
                ("fall", 20, 24),
            ])
        );
    }

    #[test]
    fn repeated_names_are_made_unique() {
        let mut frames = numbered("stand", 1..=40, 3);
        frames.extend(numbered("crstand", 1..=3, 3));
        frames.extend(numbered("crwalk", 1..=2, 3));
        frames.extend(numbered("crstand", 1..=2, 3));
        // A count that starts over is a new animation even with the same
        // stem.
        frames.extend(numbered("run", 5..=6, 1));
        frames.extend(numbered("run", 1..=2, 1));
        frames.extend(numbered("crstand", 1..=2, 3));
        let (anims, renamed) = group(&frames);
        assert_eq!(
            names(&anims),
            want(&[
                ("stand", 0, 39),
                ("crstand", 40, 42),
                ("crwalk", 43, 44),
                ("crstand_2", 45, 46),
                ("run", 47, 48),
                ("run_2", 49, 50),
                ("crstand_3", 51, 52),
            ])
        );
        assert_eq!(
            renamed,
            [
                Renamed {
                    index: 3,
                    name: "crstand".into()
                },
                Renamed {
                    index: 5,
                    name: "run".into()
                },
                Renamed {
                    index: 6,
                    name: "crstand".into()
                },
            ]
        );
    }

    #[test]
    fn a_suffix_never_takes_a_name_the_file_uses() {
        // `a_201..` is named `a_2` by its hundred: the second `a` must be
        // `a_3`, even though `a_2` comes later.
        let mut frames = numbered("a", 1..=2, 1);
        frames.push("b".into());
        frames.extend(numbered("a", 1..=2, 1));
        frames.extend(numbered("a_", 201..=202, 3));
        frames.extend(numbered("a_", 201..=202, 3));
        assert_eq!(
            grouped(&frames),
            want(&[
                ("a", 0, 1),
                ("b", 2, 2),
                ("a_3", 3, 4),
                ("a_2", 5, 6),
                ("a_2_2", 7, 8),
            ])
        );
    }

    #[test]
    fn names_without_numbers() {
        let frames: Vec<String> = ["frame", "frame", "frame", "run", "run2", "run3", "run"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            grouped(&frames),
            want(&[("frame", 0, 2), ("run", 3, 5), ("run_2", 6, 6)])
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
            "x18446744073709551615",
            "x18446744073709551616",
            "x0",
        ];
        let anims = group_frames(frames);
        let mut next = 0;
        for a in &anims {
            assert_eq!(a.first, next);
            assert!(a.last >= a.first);
            next = a.last + 1;
        }
        assert_eq!(next as usize, frames.len());
        let unique: HashSet<&str> = anims.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(unique.len(), anims.len(), "{anims:?}");
        assert!(group_frames(Vec::<String>::new()).is_empty());
    }
}
