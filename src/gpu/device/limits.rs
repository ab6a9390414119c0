//! What the crate needs from a device, and the check that it has it.

use crate::gpu::error::SetupError;

/// The smallest limits the renderer works with: WebGPU's downlevel defaults
/// (4 storage buffers per stage, 3 vertex buffers, 16 vertex attributes, 4
/// bind groups: a resident crowd's draws read their instances from storage
/// at group 3).
///
/// A device requested with exactly these gets their texture cap too (2048
/// texels a side) and 128 MiB storage bindings (1,048,320 members in one
/// crowd: 128 bytes each, beside room for 1,024 32-byte clips). An app with no limits of its own should pass
/// [`adapter_limits`] instead: everything the adapter offers.
pub fn required_limits() -> wgpu::Limits {
    wgpu::Limits::downlevel_defaults()
}

/// The adapter's own limits, checked to cover [`required_limits`]: what to
/// pass as `DeviceDescriptor::required_limits` when the app has no limits of
/// its own.
pub fn adapter_limits(adapter: &wgpu::Adapter) -> Result<wgpu::Limits, SetupError> {
    let limits = adapter.limits();
    check_limits(&limits)?;
    Ok(limits)
}

/// The downlevel capabilities the crate needs: storage buffers in the vertex
/// stage (which WebGL2 lacks); compute shaders and indirect draws for the
/// resident crowd.
pub fn required_downlevel_flags() -> wgpu::DownlevelFlags {
    wgpu::DownlevelFlags::VERTEX_STORAGE
        | wgpu::DownlevelFlags::COMPUTE_SHADERS
        | wgpu::DownlevelFlags::INDIRECT_EXECUTION
}

pub(crate) fn check_device(device: &wgpu::Device) -> Result<(), SetupError> {
    check_limits(&device.limits())
}

fn check_limits(limits: &wgpu::Limits) -> Result<(), SetupError> {
    let needs = [
        (
            "max_storage_buffers_per_shader_stage",
            4,
            limits.max_storage_buffers_per_shader_stage,
        ),
        ("max_vertex_buffers", 3, limits.max_vertex_buffers),
        ("max_vertex_attributes", 16, limits.max_vertex_attributes),
        ("max_bind_groups", 4, limits.max_bind_groups),
    ];
    for (limit_name, needed, available) in needs {
        if available < needed {
            return Err(SetupError::UnsupportedDevice {
                limit_name,
                needed,
                available,
            });
        }
    }
    Ok(())
}
