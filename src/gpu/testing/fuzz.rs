//! The fuzz target `material`'s check, beside the other targets' checks in
//! `support`: it needs a device, so it lives in the GPU half.

/// A material from any bytes, on `device`: the first byte picks how many
/// colour targets it has (0 to 5) and whether it has a bind group of its
/// own (a uniform at binding 0), the rest is its WGSL (as UTF-8, lossily),
/// its function the first one the text declares. `Md2Material::new` gives
/// a material or a typed `MaterialError`, and a renderer with it its
/// pipelines or a typed error: never a panic (naga's included) and never
/// a wgpu validation error (wgpu's default handler panics on one no scope
/// caught). Panics where any of that fails: that is the finding.
pub fn check_material(device: &wgpu::Device, cache: &crate::gpu::Md2Cache, data: &[u8]) {
    use crate::gpu::device::layouts::uniform;
    use crate::gpu::{Md2Material, Md2MaterialDescriptor, Md2Renderer, Md2RendererOptions};

    let Some((&first, source)) = data.split_first() else {
        return;
    };
    let source = String::from_utf8_lossy(source);
    let fragment = source
        .split("fn ")
        .nth(1)
        .and_then(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
        })
        .filter(|name| !name.is_empty())
        .unwrap_or("shade")
        .to_string();
    let target = wgpu::ColorTargetState {
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    };
    let targets = vec![target; usize::from(first % 6)];
    let layout = (first & 0x40 != 0).then(|| {
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("md2-wgpu fuzz material layout"),
            // A uniform of any size (0: no minimum binding size).
            entries: &[uniform(0, wgpu::ShaderStages::FRAGMENT, 0)],
        })
    });
    let descriptor = Md2MaterialDescriptor {
        label: "fuzzed",
        source: &source,
        fragment: &fragment,
        targets: &targets,
        bind_group_layout: layout.as_ref(),
    };
    let Ok(material) = Md2Material::new(device, cache, &descriptor) else {
        return;
    };
    let options = Md2RendererOptions::WITH_DEPTH;
    let _ = Md2Renderer::with_material(device, cache, &material, options);
}
