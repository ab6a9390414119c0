//! Helpers shared by the tests, examples and benchmarks: a headless device,
//! read-backs, the GPU pose capture, the instance record, a seeded random
//! number generator, the community models, the fuzz target's checks. Not
//! part of the supported API: nothing here is covered by semver.

mod fuzz;

pub use fuzz::check_from_bytes;

pub use crate::gpu::shader::{
    ExtraRecord, INSTANCE_ATTRIBUTES, InstanceRecord, MD2_WGSL, pass, vertex_buffers,
};
pub use crate::gpu::{
    CapturedMotion, CapturedPose, Headless, PoseCapture, block_on, read_buffer, read_rgba8,
    read_texture,
};

/// `instance`'s record and extra record as `prepare` packs them for
/// `model` (strictly: a bad instance is its error), `previous` being what it
/// showed in the previous frame; for tests that capture what the vertex
/// stage makes of them.
pub fn pack_instance(
    instance: &crate::Md2Instance,
    previous: Option<&crate::Md2Previous>,
    model: &crate::GpuModel,
) -> Result<(InstanceRecord, ExtraRecord), crate::InstanceError> {
    crate::gpu::pack_strict(instance, previous, model)
}

/// The built-in look written again by hand as a material (its function is
/// `quake_again`): what an app porting its own shading starts from, and
/// what the tests and the crowd benchmark compare with the built-in look.
pub const QUAKE_AGAIN_WGSL: &str = r#"
fn quake_again(in: Md2Fragment) -> vec4<f32> {
    if in.pass_kind == MD2_PASS_SHELL {
        return vec4<f32>(unpack4x8unorm(in.effects & 0x00ffffffu).rgb, 0.3);
    }
    if in.pass_kind == MD2_PASS_SHADOW {
        return md2_view.shadow_color;
    }
    let albedo = textureSample(md2_skins, md2_skin_sampler, in.uv, in.skin);
    let len2 = dot(in.world_normal, in.world_normal);
    let n = in.world_normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
    var light = md2_view.ambient.rgb + md2_view.light_color.rgb * max(dot(n, md2_view.towards_light.xyz), 0.0);
    if (in.effects & 0x02000000u) != 0u {
        light = max(light, vec3<f32>(0.1));
    }
    if (in.effects & 0x01000000u) != 0u {
        light = vec3<f32>(1.0);
    }
    return vec4<f32>(albedo.rgb * light * in.tint.rgb, albedo.a * in.tint.a);
}
"#;

/// Where the community test models are: `$MD2_SHARED_MODELS`, else
/// `../shared/md2` beside the crate (whether or not it exists). The tests and
/// the benchmarks look there, and only there.
pub fn shared_models_dir() -> std::path::PathBuf {
    match std::env::var_os("MD2_SHARED_MODELS") {
        Some(dir) => dir.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2"),
    }
}

/// Every `*.md2` (any case) under `dir` (the tests and benches pass
/// [`shared_models_dir`]), as (path relative to `dir` with `/` separators,
/// bytes), sorted by path.
pub fn md2_files_in(dir: &std::path::Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md2"))
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

/// SplitMix64: small, fast, and the same sequence on every machine, so
/// seeded scenes (test crowds, benchmark crowds) agree run to run.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[0, 1)`, with 53 bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
}
