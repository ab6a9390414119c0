//! A crowd's buffers on the GPU, as md2-wgpu hosts them: the member buffer
//! (the members, then the crowd's clip table) and the motion records,
//! which the crowd's [`CrowdMembers`] sizes and writes through
//! [`CrowdBuffers`], the parameters, written when they change, and the bind
//! group over the three.

use crate::contract::crowd::CrowdParams;
use crate::crowd::{CrowdBuffers, CrowdMembers, Room};
use crate::gpu::device::buffers::{buffer_init, grow, write_changed};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::PrepareError;
use crate::scene::CrowdError;

/// Bytes of one motion record: the stand-in bound before any view draws
/// motion.
const MOTION_STAND_IN: u64 = 80;

/// What of the member records is on the GPU, and what is still to write.
#[derive(Debug)]
pub(crate) struct Uploads {
    members: wgpu::Buffer,
    /// The motion records, made when a view first draws motion; until
    /// then a stand-in fills the binding.
    motion: Option<wgpu::Buffer>,
    stand_in: wgpu::Buffer,
    params: wgpu::Buffer,
    params_written: Option<CrowdParams>,
    group: wgpu::BindGroup,
}

impl Uploads {
    /// A member buffer of `room`, the parameters, and the group over them
    /// and the motion stand-in.
    pub fn new(device: &wgpu::Device, cache: &Md2Cache, room: Room) -> Result<Uploads, String> {
        let members = member_buffer(device, room.bytes())?;
        // Made mapped (zeroed), so a lost device is noticed here.
        let params = buffer_init(
            device,
            "md2-wgpu crowd params",
            &[0; size_of::<CrowdParams>()],
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let stand_in = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd motion stand-in"),
            size: MOTION_STAND_IN,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = crowd_group(device, cache, &members, &params, &stand_in);
        Ok(Uploads {
            members,
            motion: None,
            stand_in,
            params,
            params_written: None,
            group,
        })
    }

    /// The crowd's group 1: members, parameters, motion records.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Bytes of the member buffer, the parameters and the motion records
    /// (none until a view draws motion).
    pub fn gpu_bytes(&self) -> u64 {
        self.members.size() + self.params.size() + self.motion.as_ref().map_or(0, |m| m.size())
    }

    /// The parameters' uniform buffer.
    pub fn params(&self) -> &wgpu::Buffer {
        &self.params
    }

    /// The member buffer (members, then the clip table), which the
    /// resident draws read too.
    pub fn members(&self) -> &wgpu::Buffer {
        &self.members
    }

    /// Writes what changed of `book` since the last flush (see
    /// [`CrowdMembers::flush`]; `with_motion`: a view draws motion), and the
    /// parameters `params` makes of the clip table's place and the motion's
    /// generation, if they changed. Returns the bytes written.
    pub fn flush(
        &mut self,
        gpu: Submit<'_>,
        book: &mut CrowdMembers,
        now: f64,
        with_motion: bool,
        params: impl FnOnce(u32, u32) -> CrowdParams,
    ) -> Result<u64, PrepareError> {
        let Submit {
            device,
            queue,
            cache,
        } = gpu;
        let mut host = Host {
            device,
            queue,
            uploads: self,
            regroup: false,
        };
        let flushed = book.flush(&mut host, binding_cap(device), now, with_motion);
        let regroup = host.regroup;
        if regroup {
            let motion = self.motion.as_ref().unwrap_or(&self.stand_in);
            self.group = crowd_group(device, cache, &self.members, &self.params, motion);
        }
        let flushed = flushed.map_err(|error| match error {
            CrowdError::TooManyMembers {
                members,
                bytes,
                limit,
            } => PrepareError::TooManyInstances {
                instances: members,
                bytes,
                limit,
            },
            CrowdError::HostBuffer { message } => PrepareError::Device {
                operation: "growing a crowd",
                message,
            },
            other => PrepareError::Device {
                operation: "growing a crowd",
                message: other.to_string(),
            },
        })?;
        let params = params(flushed.clips_at, flushed.motion_generation);
        let written = write_changed(queue, &self.params, self.params_written.as_ref(), &params);
        self.params_written = Some(params);
        Ok(flushed.written + written)
    }
}

/// The crowd's buffers during one flush, on `device` and `queue`.
struct Host<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    uploads: &'a mut Uploads,
    /// A buffer was made anew: the group must bind it.
    regroup: bool,
}

impl CrowdBuffers for Host<'_> {
    fn new_member_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.uploads.members = member_buffer(self.device, bytes)?;
        self.regroup = true;
        Ok(())
    }

    fn write_members(&mut self, offset: u64, bytes: &[u8]) {
        self.queue
            .write_buffer(&self.uploads.members, offset, bytes);
    }

    fn new_motion_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.uploads.motion = Some(grow(
            self.device,
            "md2-wgpu crowd motion",
            bytes,
            bytes,
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?);
        self.regroup = true;
        Ok(())
    }

    fn write_motion(&mut self, offset: u64, bytes: &[u8]) {
        if let Some(motion) = &self.uploads.motion {
            self.queue.write_buffer(motion, offset, bytes);
        }
    }
}

/// The largest member buffer the device binds.
pub(crate) fn binding_cap(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

fn member_buffer(device: &wgpu::Device, bytes: u64) -> Result<wgpu::Buffer, String> {
    // Exactly the room asked for: `Room::fit` grew it geometrically, and
    // the clip table's place follows from it.
    grow(
        device,
        "md2-wgpu crowd members",
        bytes,
        bytes,
        bytes,
        // COPY_SRC: `low_level::read_crowd_records` reads members back.
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    )
}

fn crowd_group(
    device: &wgpu::Device,
    cache: &Md2Cache,
    members: &wgpu::Buffer,
    params: &wgpu::Buffer,
    motions: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("md2-wgpu crowd bind group"),
        layout: &cache.layouts().crowd,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: members.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: motions.as_entire_binding(),
            },
        ],
    })
}
