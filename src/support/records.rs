//! Packing an instance as `prepare` does, for tests that capture what the
//! vertex stage makes of it.

/// `instance`'s record and extra record as `prepare` packs them for
/// `model` (strictly: a bad instance is its error), `previous` being what it
/// showed in the previous frame; for tests that capture what the vertex
/// stage makes of them.
pub fn pack_instance(
    instance: &crate::scene::Md2Instance,
    previous: Option<&crate::scene::Md2Previous>,
    model: &crate::gpu::GpuModel,
) -> Result<
    (
        crate::contract::InstanceRecord,
        crate::contract::ExtraRecord,
    ),
    crate::scene::InstanceError,
> {
    let record =
        crate::contract::InstanceRecord::pack(instance, model.frame_count(), model.skin_count())?;
    let extra =
        crate::scene::pack_previous(&record, previous, model.frame_count(), instance.id, 0, 0)?;
    Ok((record, extra))
}
