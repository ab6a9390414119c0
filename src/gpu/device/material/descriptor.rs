//! What an app gives to make a material.

/// The bind group index that is the material's: groups 0 and 1 are the
/// crate's (the view, the model).
pub(crate) const MATERIAL_GROUP: u32 = 2;

/// What makes a [`Md2Material`](crate::gpu::Md2Material).
#[derive(Clone, Copy, Debug)]
pub struct Md2MaterialDescriptor<'a> {
    /// A name for messages and labels.
    pub label: &'a str,
    /// The material's WGSL (see [`Md2Material`](crate::gpu::Md2Material)).
    pub source: &'a str,
    /// The name of its function `fn(Md2Fragment) -> ...`.
    pub fragment: &'a str,
    /// Its colour targets, in location order, as the blending passes use
    /// them (the opaque pass turns blending off).
    pub targets: &'a [wgpu::ColorTargetState],
    /// The layout of its own bind group, group [`Md2Material::GROUP`](crate::gpu::Md2Material::GROUP), if it
    /// has one.
    pub bind_group_layout: Option<&'a wgpu::BindGroupLayout>,
}
