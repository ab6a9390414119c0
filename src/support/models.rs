//! Where the community test models are, and reading them.

/// Where the community test models are: `$MD2_SHARED_MODELS`, else
/// `../shared/md2` beside the crate (whether or not it exists). The tests and
/// the benchmarks look there, and only there.
pub fn shared_models_dir() -> std::path::PathBuf {
    match std::env::var_os("MD2_SHARED_MODELS") {
        Some(dir) => dir.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2"),
    }
}

/// Where the community Quake I models are: `mdl` beside
/// [`shared_models_dir`] (`$MD2_SHARED_MODELS/../mdl`, else
/// `../shared/mdl`), whether or not it exists.
pub fn shared_mdl_dir() -> std::path::PathBuf {
    shared_models_dir().join("..").join("mdl")
}

/// Every `*.md2` (any case) under `dir` (the tests and benches pass
/// [`shared_models_dir`]), as (path relative to `dir` with `/` separators,
/// bytes), sorted by path.
pub fn md2_files_in(dir: &std::path::Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    files_in(dir, "md2")
}

/// Every file whose extension is `extension` (any case) under `dir`, as
/// [`md2_files_in`] lists them.
pub fn files_in(dir: &std::path::Path, extension: &str) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(extension))
            {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, std::fs::read(&path)?));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// `animations` of a player's `animation.cfg` that it has, in order, each
/// looping: what a crowd plays over and over (the crowd example and the
/// benchmark's players).
pub fn player_clips(
    cfg: &crate::format::md3::AnimationConfig,
    animations: &[crate::format::md3::PlayerAnimation],
) -> Vec<crate::anim::Clip> {
    animations
        .iter()
        .filter_map(|&a| cfg.clip(a))
        .map(|clip| crate::anim::Clip {
            looping: true,
            ..clip
        })
        .collect()
}
