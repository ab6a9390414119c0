//! A header skin name as Quake II reads it: folders and a file name, `\`
//! read as `/`, and the file names to try for it.

/// The image extensions tried for a skin name, in this order, after the
/// extension the name itself carries.
pub const SKIN_EXTENSIONS: [&str; 5] = ["pcx", "png", "tga", "bmp", "jpg"];

/// A header skin name split into its folders and file name: `\` read as
/// `/`, empty and `.` parts dropped. `..` parts make the name unusable: a
/// skin name must not lead out of the game's folders.
///
/// Public so that a host that finds files its own way (Bevy's asset
/// reader, a browser's dropped files) applies the same rule as
/// [`SkinFinder`](super::SkinFinder).
///
/// ```
/// use md2_wgpu::skins::split_skin_name;
///
/// assert_eq!(
///     split_skin_name("players\\Soldier\\Blue.PCX"),
///     Some((vec!["players", "Soldier"], "Blue.PCX"))
/// );
/// assert_eq!(split_skin_name("../../etc/passwd"), None);
/// ```
pub fn split_skin_name(name: &str) -> Option<(Vec<&str>, &str)> {
    let mut parts: Vec<&str> = name
        .trim()
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return None;
    }
    let file = parts.pop()?;
    Some((parts, file))
}

/// The file names to try for a skin's file name: as written, then its stem
/// with each of [`SKIN_EXTENSIONS`] (compare them to files ignoring ASCII
/// case, as [`SkinFinder`](super::SkinFinder) does). Public for the same reason as
/// [`split_skin_name`].
///
/// ```
/// use md2_wgpu::skins::candidate_names;
///
/// assert_eq!(candidate_names("skin.PCX"), ["skin.PCX", "skin.png", "skin.tga", "skin.bmp", "skin.jpg"]);
/// ```
pub fn candidate_names(file: &str) -> Vec<String> {
    let stem = match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file,
    };
    let mut names = vec![file.to_owned()];
    for ext in SKIN_EXTENSIONS {
        let name = format!("{stem}.{ext}");
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_names_split_on_both_slashes() {
        assert_eq!(
            split_skin_name("players\\Yohko\\weapon.pcx"),
            Some((vec!["players", "Yohko"], "weapon.pcx"))
        );
        assert_eq!(
            split_skin_name("models//weapons/./g_rail/skin.pcx"),
            Some((vec!["models", "weapons", "g_rail"], "skin.pcx"))
        );
        assert_eq!(split_skin_name("skin.pcx"), Some((vec![], "skin.pcx")));
        assert_eq!(split_skin_name(""), None);
        assert_eq!(split_skin_name("  / "), None);
        assert_eq!(split_skin_name("../../etc/passwd"), None);
    }

    #[test]
    fn candidates_keep_the_written_name_first() {
        assert_eq!(
            candidate_names("Skin.PCX"),
            ["Skin.PCX", "Skin.png", "Skin.tga", "Skin.bmp", "Skin.jpg"]
        );
        assert_eq!(
            candidate_names("skin"),
            [
                "skin", "skin.pcx", "skin.png", "skin.tga", "skin.bmp", "skin.jpg"
            ]
        );
        assert_eq!(candidate_names(".pcx")[0], ".pcx");
    }
}
