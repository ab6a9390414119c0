//! Rules the app chooses for what it describes: what happens to a bad
//! instance, and in which order translucent instances blend.

/// What `prepare` does with a bad instance: one whose frame or skin the
/// model does not have, or with a value that is not finite.
///
/// # Bad values, on both paths
///
/// One rule holds for the immediate path and the resident crowd: **a value
/// that is NaN or infinite never reaches the GPU and is never silently read
/// as another value; it is refused with a typed error that names it.** On
/// the immediate path the refusal follows this policy; a crowd refuses the
/// change at the call ([`CrowdError`](crate::scene::CrowdError), and nothing
/// changes), as `Strict` does.
///
/// | value not finite | `Strict` | `Skip` | `Clamp` | [`Md2Crowd`](crate::Md2Crowd) |
/// |---|---|---|---|---|
/// | transform | error `"transform"` | left out | left out (nothing to clamp to) | `NotFinite("transform")` |
/// | tint channel | error `"tint"` | left out | drawn: NaN as 0, ±∞ clamped to the range below | `NotFinite("tint")` |
/// | time or speed (a pose's `t` or `weight` is NaN) | error `"pose.primary.t"`, ... | left out | drawn: NaN as 0, ±∞ clamped to `[0, 1]` | `NotFinite("playback.clock.speed")`, `("next.start")`, ...; a frame time: [`PrepareError::TimeNotFinite`](crate::gpu::PrepareError::TimeNotFinite) |
/// | fade duration | as time | as time | as time | `NotFinite("playback.fade.duration")`, `("duration")` |
///
/// Every name is the path from the argument to the value, one vocabulary
/// on both paths: [`fields`](crate::scene::fields) lists them all.
///
/// The immediate path receives poses, not times: the CPU helpers that turn
/// a time into a pose ([`Clip::sample`](crate::Clip::sample),
/// [`Playback::pose`](crate::anim::Playback::pose),
/// [`Md2Instance::from_clip`](crate::Md2Instance::from_clip)) give a NaN
/// blend factor for a time, speed or duration that is not finite, so the
/// same bad value meets the same rule here as in a crowd. Finite values
/// out of range are read, on both paths, as documented where they are
/// given: blend factors clamped to `[0, 1]`; tint colour channels below 0
/// as 0 and above 65,504 (the largest f16 intensity) as 65,504, alpha
/// clamped to `[0, 1]`; a clip's `fps` that is 0, negative or not finite
/// holds its first frame (a clip that cannot advance).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InstancePolicy {
    /// Fail the whole `prepare` with the first bad instance's error; nothing
    /// is drawn until the next successful one. For development.
    #[default]
    Strict,
    /// Leave bad instances out and draw the rest; the report says how many
    /// and names the first few.
    Skip,
    /// Draw bad instances repaired where a repair exists (frames and skin
    /// clamped to the model's last, tint and blend factors as the table
    /// says) and leave out those with a non-finite transform; the report
    /// says how many and names the first few.
    Clamp,
}

/// The order in which translucent instances (tint alpha below 1) and
/// shells are blended, on both paths.
///
/// Either way the picture depends only on the inputs: the same frame drawn
/// twice gives the same pixels. Order is kept within one batch (one
/// [`Md2Batch`](crate::gpu::Md2Batch)) or one crowd; batches and crowds are
/// drawn one after another in the order given to `prepare` and
/// `prepare_crowds`, as each is one instanced draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TranslucentOrder {
    /// The order given: a batch's instances in slice order, a crowd's
    /// members in its order ([`Md2Crowd::iter`](crate::Md2Crowd::iter)).
    /// Quake II did not sort either.
    #[default]
    AsGiven,
    /// Back to front by view depth: the farthest instance first, so that
    /// overlapping translucent instances blend as they would in the world.
    /// The depth is that of the instance's origin (the transform's
    /// translation; [`Md2Renderer::view_depth`](crate::Md2Renderer::view_depth)
    /// computes it); equal depths keep the given order. A crowd sorts its
    /// visible translucent members and shells on the GPU, every frame.
    BackToFront,
}
