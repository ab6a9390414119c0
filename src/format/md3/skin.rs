//! Quake III's `.skin` files: which texture each surface of a model wears
//! (`head_default.skin` for `head.md3`), and the tags the model has. And
//! the texture file names Quake III tries for a path. No I/O: the text is
//! given, the names are only listed.

use std::fmt;

/// A parsed `.skin` file: lines `surface_name,texture_path`, and lines
/// naming the model's tags (`tag_head`, or `tag_head,` with nothing after
/// the comma).
///
/// The parser reads what Quake III's `RE_RegisterSkin` reads and refuses,
/// naming the line, what it would misread: a surface with no comma or no
/// texture (the game would take the next line's name as its texture), a
/// tag with a texture, a second comma. Empty lines, `//` comment lines,
/// CRLF line ends, a missing final newline and spaces around a name or a
/// path are fine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Md3Skin {
    /// The surfaces and their textures, in the file's order.
    pub surfaces: Vec<Md3SkinSurface>,
    /// The tags the file names, in its order, as written.
    pub tags: Vec<String>,
}

/// One `surface_name,texture_path` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Md3SkinSurface {
    /// The surface's name as written (Quake III compares it lowercased:
    /// [`Md3Skin::texture_for`]).
    pub name: String,
    /// The texture's path as written (a shader's name, or an image whose
    /// other extension Quake III also tries: [`texture_candidates`]).
    pub texture: String,
    /// The line it is on, from 1.
    pub line: usize,
}

/// A `.skin` line the game would misread: what is wrong, and the line
/// (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Md3SkinError {
    /// A line with no comma that names no tag.
    MissingComma {
        /// The line.
        line: usize,
        /// Its text, trimmed.
        text: String,
    },
    /// A line with nothing before its comma.
    EmptyName {
        /// The line.
        line: usize,
    },
    /// A tag with a texture after its comma (the game would read the
    /// texture as the next surface's name).
    TagWithTexture {
        /// The line.
        line: usize,
        /// The tag.
        tag: String,
    },
    /// A line with a second comma.
    ExtraComma {
        /// The line.
        line: usize,
        /// Its text, trimmed.
        text: String,
    },
}

impl Md3SkinError {
    /// The line it is on, from 1.
    pub fn line(&self) -> usize {
        match *self {
            Md3SkinError::MissingComma { line, .. }
            | Md3SkinError::EmptyName { line }
            | Md3SkinError::TagWithTexture { line, .. }
            | Md3SkinError::ExtraComma { line, .. } => line,
        }
    }
}

impl fmt::Display for Md3SkinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line())?;
        match self {
            Md3SkinError::MissingComma { text, .. } => {
                write!(
                    f,
                    "{text:?} has no comma and names no tag; expected surface,texture"
                )
            }
            Md3SkinError::EmptyName { .. } => f.write_str("nothing before the comma"),
            Md3SkinError::TagWithTexture { tag, .. } => {
                write!(f, "tag {tag:?} has a texture; tags take none")
            }
            Md3SkinError::ExtraComma { text, .. } => write!(f, "{text:?} has more than one comma"),
        }
    }
}

impl std::error::Error for Md3SkinError {}

/// Whether a name is a tag's: Quake III skips any name containing `tag_`
/// (`strstr`, case as written).
fn is_tag(name: &str) -> bool {
    name.contains("tag_")
}

impl Md3Skin {
    /// Parses a `.skin` file's text.
    ///
    /// ```
    /// use md2_wgpu::format::md3::Md3Skin;
    ///
    /// let skin = Md3Skin::parse("u_torso,models/players/x/skin.tga\r\ntag_head\r\n\r\ntag_weapon,")?;
    /// assert_eq!(skin.texture_for("U_Torso"), Some("models/players/x/skin.tga"));
    /// assert_eq!(skin.tags, ["tag_head", "tag_weapon"]);
    /// # Ok::<(), md2_wgpu::format::md3::Md3SkinError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Md3Skin, Md3SkinError> {
        let mut skin = Md3Skin::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let text = raw.trim();
            if text.is_empty() || text.starts_with("//") {
                continue;
            }
            let (name, texture) = match text.split_once(',') {
                Some((name, texture)) => (name.trim_end(), texture.trim_start()),
                None if is_tag(text) => (text, ""),
                None => {
                    return Err(Md3SkinError::MissingComma {
                        line,
                        text: text.to_owned(),
                    });
                }
            };
            if texture.contains(',') {
                return Err(Md3SkinError::ExtraComma {
                    line,
                    text: text.to_owned(),
                });
            }
            match (name, texture) {
                ("", _) => return Err(Md3SkinError::EmptyName { line }),
                (tag, "") if is_tag(tag) => skin.tags.push(tag.to_owned()),
                (tag, _) if is_tag(tag) => {
                    return Err(Md3SkinError::TagWithTexture {
                        line,
                        tag: tag.to_owned(),
                    });
                }
                // A surface with nothing after its comma (OpenArena's
                // beret has `u_vest,`) is kept with no texture: Quake
                // III's `R_FindShader("")` gives it the default shader.
                (name, texture) => skin.surfaces.push(Md3SkinSurface {
                    name: name.to_owned(),
                    texture: texture.to_owned(),
                    line,
                }),
            }
        }
        Ok(skin)
    }

    /// The texture of the surface named `surface`, as Quake III finds it:
    /// the first line whose name equals it, ignoring ASCII case (the game
    /// lowercases both). Pass [`Md3Surface::name_for_skins`](super::Md3Surface::name_for_skins)
    /// for a model's surface. `None` where no line names it, or its line
    /// gives no texture: Quake III draws such a surface with its default
    /// shader.
    pub fn texture_for(&self, surface: &str) -> Option<&str> {
        self.surfaces
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(surface))
            .map(|s| s.texture.as_str())
            .filter(|texture| !texture.is_empty())
    }
}

/// The file names Quake III tries for a texture path, in order, without
/// looking for any: a `.tga` path, then the same with `.jpg`; a `.jpg`
/// path, then `.tga` (the shared penguin's head names `skin.jpg` where
/// only `skin.tga` exists); a path with no extension, `.tga` then `.jpg`
/// (the shader lookup's default extension, then the other); any other
/// extension, the path alone. Extensions compare ignoring ASCII case.
///
/// ```
/// use md2_wgpu::format::md3::texture_candidates;
///
/// assert_eq!(texture_candidates("players/x/skin.JPG"), ["players/x/skin.JPG", "players/x/skin.tga"]);
/// assert_eq!(texture_candidates("players/x.y/skin"), ["players/x.y/skin.tga", "players/x.y/skin.jpg"]);
/// ```
pub fn texture_candidates(path: &str) -> Vec<String> {
    let split = path
        .rsplit_once('.')
        .filter(|(stem, ext)| !stem.is_empty() && !ext.contains(['/', '\\']));
    let other = |stem: &str, ext: &str| vec![path.to_owned(), format!("{stem}.{ext}")];
    match split {
        None => vec![format!("{path}.tga"), format!("{path}.jpg")],
        Some((stem, ext)) if ext.eq_ignore_ascii_case("tga") => other(stem, "jpg"),
        Some((stem, ext)) if ext.eq_ignore_ascii_case("jpg") => other(stem, "tga"),
        Some(_) => vec![path.to_owned()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_with_their_numbers_and_errors_name_the_line() {
        let skin =
            Md3Skin::parse("\n  h_head , models/h.tga  \n// a note\ntag_head,\r\nl_legs,a b.tga")
                .unwrap();
        assert_eq!(skin.tags, ["tag_head"]);
        assert_eq!(skin.surfaces.len(), 2);
        assert_eq!(skin.surfaces[0].name, "h_head");
        assert_eq!(skin.surfaces[0].texture, "models/h.tga");
        assert_eq!(skin.surfaces[0].line, 2);
        assert_eq!(skin.surfaces[1].texture, "a b.tga");
        assert_eq!(skin.surfaces[1].line, 5);
        let cases = [
            (
                "a,b\nh_head",
                Md3SkinError::MissingComma {
                    line: 2,
                    text: "h_head".into(),
                },
            ),
            ("\n,x.tga", Md3SkinError::EmptyName { line: 2 }),
            (
                "tag_x,x.tga",
                Md3SkinError::TagWithTexture {
                    line: 1,
                    tag: "tag_x".into(),
                },
            ),
            (
                "a,b,c",
                Md3SkinError::ExtraComma {
                    line: 1,
                    text: "a,b,c".into(),
                },
            ),
        ];
        for (text, error) in cases {
            assert_eq!(Md3Skin::parse(text), Err(error), "{text:?}");
        }
        assert_eq!(Md3Skin::parse(""), Ok(Md3Skin::default()));
    }

    #[test]
    fn candidates_try_the_other_extension() {
        assert_eq!(texture_candidates("a/b.tga"), ["a/b.tga", "a/b.jpg"]);
        assert_eq!(texture_candidates("a/b.Tga"), ["a/b.Tga", "a/b.jpg"]);
        assert_eq!(texture_candidates("a/b.png"), ["a/b.png"]);
        assert_eq!(texture_candidates("a\\b"), ["a\\b.tga", "a\\b.jpg"]);
        assert_eq!(texture_candidates(".tga"), [".tga.tga", ".tga.jpg"]);
    }
}
