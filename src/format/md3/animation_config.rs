//! Quake III's `animation.cfg`: a player's animations (first frame, frame
//! count, looping frames, frames per second, one line each, in
//! [`PlayerAnimation`]'s order) and the keywords before them. Read as
//! Quake III's `CG_ParseAnimationFile` (`cg_players.c`) reads it, with
//! what it would misread refused, naming the line.

use std::fmt;
use std::ops::Range;

use super::player_animation::PlayerAnimation;

/// The game reads the file into a 20,000-byte buffer and refuses one
/// that does not fit with its final NUL (`len >= sizeof(text) - 1`).
const MAX_LENGTH: usize = 20_000 - 2;

/// One animation's line: which frames it plays and how fast.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimationEntry {
    /// The first frame, as written: in the numbering of `upper.md3` for
    /// `BOTH_` and `TORSO_` animations; a `LEGS_` animation's counts the
    /// torso's frames too (see
    /// [`AnimationConfig::legs_first_frame_offset`]).
    pub first_frame: u32,
    /// How many frames it plays.
    pub num_frames: u32,
    /// Whether it plays them backwards (a negative count in the file).
    pub reversed: bool,
    /// How many of its last frames loop once it has played (0: it holds
    /// its last frame). At most `num_frames`.
    pub looping_frames: u32,
    /// Frames per second as written (never negative; 0 plays at 1: see
    /// [`AnimationEntry::frames_per_second`]).
    pub fps: f32,
    /// The line it is on, from 1 (0 for Team Arena's gestures a file
    /// leaves out, which copy `TORSO_GESTURE`'s).
    pub line: usize,
}

impl AnimationEntry {
    /// The rate the game plays it at: the file's, or 1 where the file
    /// says 0 (`if (fps == 0) fps = 1;`).
    pub fn frames_per_second(&self) -> f32 {
        if self.fps == 0.0 { 1.0 } else { self.fps }
    }

    /// How long the game shows each frame, in whole milliseconds as it
    /// keeps them (`frameLerp = 1000 / fps`, truncated to an `int`).
    pub fn frame_milliseconds(&self) -> i32 {
        // Truncation is the game's; the rate is positive and finite.
        (1000.0 / self.frames_per_second()) as i32
    }

    /// The frames it plays from `first`, in order of frame number.
    fn frames_from(&self, first: i64) -> Option<Range<u32>> {
        let first = u32::try_from(first).ok()?;
        Some(first..first.checked_add(self.num_frames)?)
    }
}

/// A player's gender (`sex`): which sounds the game plays for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Gender {
    /// `m`, and anything not `f` or `n` (the game's default).
    #[default]
    Male,
    /// A word starting `f` or `F`.
    Female,
    /// A word starting `n` or `N`.
    Neuter,
}

/// The footstep sounds (`footsteps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Footsteps {
    /// `normal` or `default` (the game's default).
    #[default]
    Normal,
    /// `boot`.
    Boot,
    /// `flesh`.
    Flesh,
    /// `mech`.
    Mech,
    /// `energy`.
    Energy,
}

/// A parsed `animation.cfg`.
///
/// Keywords may come before the first animation, in any order and any
/// case: `sex m|f|n`, `headoffset x y z`, `footsteps name`, `fixedlegs`,
/// `fixedtorso`. Comments (`//` to the line's end, `/* */`) are skipped.
/// As in the game, an unknown word or footstep sound is skipped with a
/// warning, fps 0 plays at 1 (with a warning), a negative frame count
/// plays the frames backwards, Team Arena's six gestures may be left out
/// (`TORSO_GESTURE` plays for them) and the file must be under 19,999
/// bytes. Stricter than the game, which reads numbers wherever they fall
/// and as much of a word as is a number: each animation's four numbers
/// are whole numbers (the rate may have a fraction) on one line of their
/// own, no first frame or looping count is negative, the looping frames
/// are at most the frames, and the rate is finite and not negative.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationConfig {
    /// Quake III's 25 animations, `BOTH_DEATH1` to `LEGS_TURN`, in order
    /// ([`PlayerAnimation::index`]).
    pub animations: [AnimationEntry; PlayerAnimation::REQUIRED],
    /// Team Arena's gestures the file lists, in order from
    /// `TORSO_GETFLAG` (0 to 6 of them).
    pub team_arena: Vec<AnimationEntry>,
    /// `sex`.
    pub gender: Gender,
    /// `headoffset`: where the head sits in the status bar's picture.
    pub head_offset: [f32; 3],
    /// `footsteps`.
    pub footsteps: Footsteps,
    /// `fixedlegs`: the legs never turn apart from the torso.
    pub fixed_legs: bool,
    /// `fixedtorso`: the torso never pitches.
    pub fixed_torso: bool,
    /// What the game would skip or change, with its line.
    pub warnings: Vec<AnimationConfigWarning>,
}

/// An `animation.cfg` the game would refuse or misread: what is wrong, and
/// the line (from 1).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnimationConfigError {
    /// The file is too long for the game's 20,000-byte buffer.
    TooLong {
        /// Its length in bytes.
        length: usize,
        /// The most the game reads.
        limit: usize,
    },
    /// The file ends before an animation Quake III needs.
    Missing {
        /// The first animation missing.
        animation: PlayerAnimation,
        /// The file's last line.
        line: usize,
    },
    /// An animation's line does not hold exactly four numbers.
    WrongCount {
        /// Which animation.
        animation: PlayerAnimation,
        /// Its line.
        line: usize,
        /// The words on it (up to five: more is too many).
        found: usize,
    },
    /// A word where a number must be.
    NotANumber {
        /// What it is: `first frame`, `frames per second`, `headoffset`...
        field: &'static str,
        /// Its line.
        line: usize,
        /// The word.
        word: String,
    },
    /// A number no valid file has.
    InvalidValue {
        /// What it is.
        field: &'static str,
        /// The animation, where it is an animation's.
        animation: Option<PlayerAnimation>,
        /// Its line.
        line: usize,
        /// The word.
        word: String,
        /// What a valid value looks like.
        expected: &'static str,
    },
}

impl AnimationConfigError {
    /// The line it is on, from 1 (none for a file too long).
    pub fn line(&self) -> Option<usize> {
        match *self {
            AnimationConfigError::TooLong { .. } => None,
            AnimationConfigError::Missing { line, .. }
            | AnimationConfigError::WrongCount { line, .. }
            | AnimationConfigError::NotANumber { line, .. }
            | AnimationConfigError::InvalidValue { line, .. } => Some(line),
        }
    }
}

impl fmt::Display for AnimationConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line() {
            write!(f, "line {line}: ")?;
        }
        match self {
            AnimationConfigError::TooLong { length, limit } => {
                write!(
                    f,
                    "{length} bytes is longer than Quake III reads ({limit} bytes)"
                )
            }
            AnimationConfigError::Missing { animation, .. } => {
                write!(f, "the file ends before {}", animation.name())
            }
            AnimationConfigError::WrongCount {
                animation, found, ..
            } => write!(
                f,
                "{} needs four numbers on its line; found {found} words",
                animation.name()
            ),
            AnimationConfigError::NotANumber { field, word, .. } => {
                write!(f, "{word:?} is not a number ({field})")
            }
            AnimationConfigError::InvalidValue {
                field,
                animation,
                word,
                expected,
                ..
            } => {
                if let Some(a) = animation {
                    write!(f, "{}'s ", a.name())?;
                }
                write!(f, "{field} is {word}; expected {expected}")
            }
        }
    }
}

impl std::error::Error for AnimationConfigError {}

/// What the game skips or changes in an `animation.cfg` that still loads.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnimationConfigWarning {
    /// A word before the animations that is no keyword (the game prints
    /// "unknown token" and skips it).
    UnknownWord {
        /// Its line.
        line: usize,
        /// The word.
        word: String,
    },
    /// A footstep sound the game does not know (it keeps `normal`).
    UnknownFootsteps {
        /// Its line.
        line: usize,
        /// The word.
        word: String,
    },
    /// An animation with frames at 0 frames per second (the game plays it
    /// at 1).
    ZeroFps {
        /// Which animation.
        animation: PlayerAnimation,
        /// Its line.
        line: usize,
    },
    /// Words after the last animation the game reads (it ignores them).
    IgnoredAfterAnimations {
        /// The first one's line.
        line: usize,
    },
}

impl AnimationConfigWarning {
    /// The line it is on, from 1.
    pub fn line(&self) -> usize {
        match *self {
            AnimationConfigWarning::UnknownWord { line, .. }
            | AnimationConfigWarning::UnknownFootsteps { line, .. }
            | AnimationConfigWarning::ZeroFps { line, .. }
            | AnimationConfigWarning::IgnoredAfterAnimations { line } => line,
        }
    }
}

impl fmt::Display for AnimationConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line())?;
        match self {
            AnimationConfigWarning::UnknownWord { word, .. } => {
                write!(f, "unknown word {word:?}, skipped")
            }
            AnimationConfigWarning::UnknownFootsteps { word, .. } => {
                write!(f, "unknown footsteps {word:?}; normal ones play")
            }
            AnimationConfigWarning::ZeroFps { animation, .. } => write!(
                f,
                "{} plays at 0 frames per second; the game plays it at 1",
                animation.name()
            ),
            AnimationConfigWarning::IgnoredAfterAnimations { .. } => {
                f.write_str("words after the last animation, ignored")
            }
        }
    }
}

/// A word of the file and its line: `COM_Parse`'s tokens, split at white
/// space, with `//` and `/* */` comments skipped (a `//` inside a word
/// also ends it here: `15//x` is `15`).
struct Word<'a> {
    text: &'a str,
    line: usize,
}

fn words(text: &str) -> Vec<Word<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let comment = |i: usize, second: u8| b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&second);
    while i < b.len() {
        if comment(i, b'/') {
            i += b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i);
        } else if comment(i, b'*') {
            let close = b[i + 2..].windows(2).position(|w| w == b"*/");
            let stop = close.map_or(b.len(), |k| i + 2 + k + 2);
            line += b[i..stop].iter().filter(|&&c| c == b'\n').count();
            i = stop;
        } else if b[i] <= b' ' {
            line += usize::from(b[i] == b'\n');
            i += 1;
        } else {
            let start = i;
            while i < b.len() && b[i] > b' ' && !comment(i, b'/') {
                i += 1;
            }
            // Both ends are at ASCII bytes (or the text's end), so on
            // character boundaries.
            out.push(Word {
                text: &text[start..i],
                line,
            });
        }
    }
    out
}

/// A whole number, or the field's typed error.
fn integer(word: &Word, field: &'static str) -> Result<i32, AnimationConfigError> {
    word.text
        .parse()
        .map_err(|_| AnimationConfigError::NotANumber {
            field,
            line: word.line,
            word: word.text.to_owned(),
        })
}

/// A finite number (`atof`'s, whole or not), or the field's typed error.
fn number(word: &Word, field: &'static str) -> Result<f32, AnimationConfigError> {
    let value: f32 = word
        .text
        .parse()
        .map_err(|_| AnimationConfigError::NotANumber {
            field,
            line: word.line,
            word: word.text.to_owned(),
        })?;
    if !value.is_finite() {
        return Err(AnimationConfigError::InvalidValue {
            field,
            animation: None,
            line: word.line,
            word: word.text.to_owned(),
            expected: "a finite number",
        });
    }
    Ok(value)
}

impl AnimationConfig {
    /// Parses an `animation.cfg`'s text.
    ///
    /// ```
    /// use md2_wgpu::format::md3::{AnimationConfig, Gender, PlayerAnimation};
    ///
    /// let mut text = String::from("sex f\r\nheadoffset 3 0 0\r\n");
    /// for i in 0..25 {
    ///     text += &format!("{} 2 0 15 // an animation\r\n", 10 * i);
    /// }
    /// let config = AnimationConfig::parse(&text)?;
    /// assert_eq!(config.gender, Gender::Female);
    /// // LEGS_WALKCR is written at frame 130, TORSO_GESTURE at 60: lower.md3
    /// // has no torso-only frames, so its legs frames start 70 earlier.
    /// assert_eq!(config.legs_first_frame_offset(), 70);
    /// assert_eq!(config.frames_in_model(PlayerAnimation::LegsWalk), Some(70..72));
    /// assert_eq!(config.frames_in_model(PlayerAnimation::TorsoStand), Some(110..112));
    /// # Ok::<(), md2_wgpu::format::md3::AnimationConfigError>(())
    /// ```
    pub fn parse(text: &str) -> Result<AnimationConfig, AnimationConfigError> {
        if text.len() > MAX_LENGTH {
            return Err(AnimationConfigError::TooLong {
                length: text.len(),
                limit: MAX_LENGTH,
            });
        }
        let words = words(text);
        let mut config = AnimationConfig {
            animations: [AnimationEntry::default(); PlayerAnimation::REQUIRED],
            team_arena: Vec::new(),
            gender: Gender::Male,
            head_offset: [0.0; 3],
            footsteps: Footsteps::Normal,
            fixed_legs: false,
            fixed_torso: false,
            warnings: Vec::new(),
        };
        let rest = config.keywords(&words)?;
        let mut at = 0;
        for animation in PlayerAnimation::ALL {
            let Some(first) = rest.get(at) else {
                if animation.is_team_arena() {
                    break;
                }
                let line = text.lines().count().max(1);
                return Err(AnimationConfigError::Missing { animation, line });
            };
            let line = first.line;
            let on_line: Vec<&Word> = rest[at..]
                .iter()
                .take(5)
                .take_while(|w| w.line == line)
                .collect();
            let [first, frames, looping, fps] = on_line[..] else {
                return Err(AnimationConfigError::WrongCount {
                    animation,
                    line,
                    found: on_line.len(),
                });
            };
            let entry = config.entry_of(animation, [first, frames, looping, fps])?;
            match config.animations.get_mut(animation.index()) {
                Some(slot) => *slot = entry,
                None => config.team_arena.push(entry),
            }
            at += 4;
        }
        if let Some(word) = rest.get(at) {
            config
                .warnings
                .push(AnimationConfigWarning::IgnoredAfterAnimations { line: word.line });
        }
        Ok(config)
    }

    /// Reads the keywords before the first animation (the first word that
    /// starts with a digit, as the game decides); returns the words from
    /// there.
    fn keywords<'w, 'a>(
        &mut self,
        words: &'w [Word<'a>],
    ) -> Result<&'w [Word<'a>], AnimationConfigError> {
        let mut at = 0;
        while let Some(word) = words.get(at) {
            if word.text.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                break;
            }
            at += 1;
            let next = words.get(at);
            match word.text.to_ascii_lowercase().as_str() {
                "fixedlegs" => self.fixed_legs = true,
                "fixedtorso" => self.fixed_torso = true,
                "sex" => {
                    let Some(next) = next else { break };
                    at += 1;
                    self.gender = match next.text.as_bytes().first() {
                        Some(b'f' | b'F') => Gender::Female,
                        Some(b'n' | b'N') => Gender::Neuter,
                        _ => Gender::Male,
                    };
                }
                "footsteps" => {
                    let Some(next) = next else { break };
                    at += 1;
                    self.footsteps = match next.text.to_ascii_lowercase().as_str() {
                        "default" | "normal" => Footsteps::Normal,
                        "boot" => Footsteps::Boot,
                        "flesh" => Footsteps::Flesh,
                        "mech" => Footsteps::Mech,
                        "energy" => Footsteps::Energy,
                        _ => {
                            self.warnings
                                .push(AnimationConfigWarning::UnknownFootsteps {
                                    line: next.line,
                                    word: next.text.to_owned(),
                                });
                            self.footsteps
                        }
                    };
                }
                "headoffset" => {
                    for slot in &mut self.head_offset {
                        let Some(value) = words.get(at) else { break };
                        at += 1;
                        *slot = number(value, "headoffset")?;
                    }
                }
                _ => self.warnings.push(AnimationConfigWarning::UnknownWord {
                    line: word.line,
                    word: word.text.to_owned(),
                }),
            }
        }
        Ok(words.get(at..).unwrap_or(&[]))
    }

    /// One animation's entry from the four words of its line, checked.
    fn entry_of(
        &mut self,
        animation: PlayerAnimation,
        [first, frames, looping, fps]: [&Word; 4],
    ) -> Result<AnimationEntry, AnimationConfigError> {
        let invalid = |word: &Word, field, expected| AnimationConfigError::InvalidValue {
            field,
            animation: Some(animation),
            line: word.line,
            word: word.text.to_owned(),
            expected,
        };
        let first_frame = u32::try_from(integer(first, "first frame")?)
            .map_err(|_| invalid(first, "first frame", "0 or more"))?;
        let count = integer(frames, "number of frames")?;
        let num_frames = count.unsigned_abs();
        let looping_frames = u32::try_from(integer(looping, "looping frames")?)
            .ok()
            .filter(|&n| n <= num_frames)
            .ok_or_else(|| invalid(looping, "looping frames", "0 to the number of frames"))?;
        let rate = number(fps, "frames per second")?;
        if rate < 0.0 {
            return Err(invalid(fps, "frames per second", "0 or more"));
        }
        if rate == 0.0 && num_frames > 0 {
            self.warnings.push(AnimationConfigWarning::ZeroFps {
                animation,
                line: fps.line,
            });
        }
        Ok(AnimationEntry {
            first_frame,
            num_frames,
            reversed: count < 0,
            looping_frames,
            fps: rate,
            line: first.line,
        })
    }

    /// An animation's entry. Team Arena's gestures the file leaves out are
    /// `TORSO_GESTURE`'s, as the game copies it for them.
    pub fn entry(&self, animation: PlayerAnimation) -> &AnimationEntry {
        let gesture = &self.animations[PlayerAnimation::TorsoGesture.index()];
        match animation.index().checked_sub(PlayerAnimation::REQUIRED) {
            None => &self.animations[animation.index()],
            Some(k) => self.team_arena.get(k).unwrap_or(gesture),
        }
    }

    /// How far `animation.cfg`'s numbering of the `LEGS_` animations is
    /// ahead of `lower.md3`'s frames: `LEGS_WALKCR`'s first frame minus
    /// `TORSO_GESTURE`'s.
    ///
    /// The file numbers frames as if one model held them all: the deaths,
    /// then the torso's animations, then the legs'. `lower.md3` has the
    /// deaths and the legs' frames but not the torso-only ones, so Quake
    /// III subtracts this from every `LEGS_` animation's first frame
    /// before playing it on the legs (`CG_ParseAnimationFile`: "leg only
    /// frames are adjusted to not count the upper body only frames").
    /// [`AnimationConfig::frames_in_model`] applies it.
    pub fn legs_first_frame_offset(&self) -> i64 {
        let first = |a: PlayerAnimation| i64::from(self.entry(a).first_frame);
        first(PlayerAnimation::LegsWalkcr) - first(PlayerAnimation::TorsoGesture)
    }

    /// The frames `animation` plays in the model it animates, in that
    /// model's numbering: `lower.md3`'s for a `LEGS_` animation (its first
    /// frame less [`AnimationConfig::legs_first_frame_offset`]), the file's
    /// own for the rest (`upper.md3`'s, and `lower.md3`'s for the `BOTH_`
    /// deaths, which both models hold at the same frames). `None` where
    /// the offset takes the first frame below 0 or the range past
    /// `u32::MAX`.
    pub fn frames_in_model(&self, animation: PlayerAnimation) -> Option<Range<u32>> {
        let entry = self.entry(animation);
        let offset = if animation.is_legs() {
            self.legs_first_frame_offset()
        } else {
            0
        };
        entry.frames_from(i64::from(entry.first_frame) - offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the 25 animations, each `first 2 1 15` with `first` 10
    /// apart, after `head`.
    fn config(head: &str) -> String {
        let mut text = head.to_owned();
        for (i, a) in PlayerAnimation::ALL[..PlayerAnimation::REQUIRED]
            .iter()
            .enumerate()
        {
            text += &format!("{}\t2\t1\t15\t\t// {}\r\n", 10 * i, a.name());
        }
        text
    }

    #[test]
    fn keywords_comments_and_numbers_read_as_the_game_reads_them() {
        let text = config(
            "// c\r\nSEX n\r\n/* a\r\nblock */ footsteps mech fixedlegs headoffset -1.5 2 0\r\nbogus\r\n",
        );
        let c = AnimationConfig::parse(&text).unwrap();
        assert_eq!(c.gender, Gender::Neuter);
        assert_eq!(c.footsteps, Footsteps::Mech);
        assert!(c.fixed_legs && !c.fixed_torso);
        assert_eq!(c.head_offset, [-1.5, 2.0, 0.0]);
        assert_eq!(
            c.warnings,
            [AnimationConfigWarning::UnknownWord {
                line: 5,
                word: "bogus".into()
            }]
        );
        let walk = c.entry(PlayerAnimation::LegsWalk);
        assert_eq!(
            (
                walk.first_frame,
                walk.num_frames,
                walk.looping_frames,
                walk.line
            ),
            (140, 2, 1, 20)
        );
        assert_eq!(c.legs_first_frame_offset(), 130 - 60);
        assert_eq!(c.frames_in_model(PlayerAnimation::LegsWalk), Some(70..72));
        assert_eq!(c.frames_in_model(PlayerAnimation::BothDead1), Some(10..12));
        // Team Arena's gestures, left out, are TORSO_GESTURE's.
        assert_eq!(
            c.entry(PlayerAnimation::TorsoNegative),
            c.entry(PlayerAnimation::TorsoGesture)
        );
        assert_eq!(
            c.entry(PlayerAnimation::TorsoStand).frame_milliseconds(),
            66
        );
    }

    #[test]
    fn what_the_game_would_misread_is_refused_naming_the_line() {
        let base = config("");
        let with = |from: &str, to: &str| base.replacen(from, to, 1);
        let cases = [
            (with("10\t2\t1\t15", "10\t2\t1"), "WrongCount 2 3"),
            (with("10\t2\t1\t15", "10\t2\t1\t15\t9"), "WrongCount 2 5"),
            (
                with("20\t2\t1\t15", "20\t2\tx\t15"),
                "NotANumber 3 looping frames",
            ),
            (
                with("30\t2\t1\t15", "30\t2\t3\t15"),
                "InvalidValue 4 looping frames",
            ),
            (
                with("40\t2\t1\t15", "40\t2\t1\t-15"),
                "InvalidValue 5 frames per second",
            ),
            (
                with("50\t2\t1\t15", "50\t2\t1\tnan"),
                "InvalidValue 6 frames per second",
            ),
            (
                with("60\t2\t1\t15", "-60\t2\t1\t15"),
                "InvalidValue 7 first frame",
            ),
            (
                base.lines().take(24).collect::<Vec<_>>().join("\n"),
                "Missing 24 LEGS_TURN",
            ),
            ("x".repeat(19_999), "TooLong"),
        ];
        for (text, expected) in cases {
            let got = match AnimationConfig::parse(&text).unwrap_err() {
                AnimationConfigError::WrongCount { line, found, .. } => {
                    format!("WrongCount {line} {found}")
                }
                AnimationConfigError::NotANumber { line, field, .. } => {
                    format!("NotANumber {line} {field}")
                }
                AnimationConfigError::InvalidValue { line, field, .. } => {
                    format!("InvalidValue {line} {field}")
                }
                AnimationConfigError::Missing { line, animation } => {
                    format!("Missing {line} {}", animation.name())
                }
                AnimationConfigError::TooLong { .. } => "TooLong".into(),
            };
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn the_games_leniencies_load_with_warnings() {
        let text = config("footsteps squelch\n").replacen("\t2\t1\t15", "\t-2\t1\t0", 1)
            + "1 2 0 10\n3 4 0 10 // two of Team Arena's";
        let c = AnimationConfig::parse(&text).unwrap();
        let death = c.entry(PlayerAnimation::BothDeath1);
        assert!(death.reversed && death.num_frames == 2 && death.frames_per_second() == 1.0);
        assert_eq!(c.team_arena.len(), 2);
        assert_eq!(c.entry(PlayerAnimation::TorsoGuardbase).first_frame, 3);
        assert_eq!(
            c.entry(PlayerAnimation::TorsoPatrol),
            c.entry(PlayerAnimation::TorsoGesture)
        );
        assert_eq!(
            c.warnings,
            [
                AnimationConfigWarning::UnknownFootsteps {
                    line: 1,
                    word: "squelch".into()
                },
                AnimationConfigWarning::ZeroFps {
                    animation: PlayerAnimation::BothDeath1,
                    line: 2
                },
            ]
        );
        // After all 31, the game reads no further.
        let text = config("") + &"1 2 0 10\n".repeat(6) + "left over";
        let c = AnimationConfig::parse(&text).unwrap();
        assert_eq!(c.team_arena.len(), 6);
        assert_eq!(
            c.warnings,
            [AnimationConfigWarning::IgnoredAfterAnimations { line: 32 }]
        );
    }
}
