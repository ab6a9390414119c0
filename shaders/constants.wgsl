// md2-wgpu: the constants every module shares (the pose, the vertex stage,
// the shading and the crowd's compute passes), each declared once. Their
// Rust mirrors are in src/contract/bits.rs; a naga test holds them equal.

// The normal a vertex whose index is past Quake II's table reads
// (md2_wgpu::FALLBACK_NORMAL_INDEX).
const MD2_FALLBACK_NORMAL_INDEX: u32 = 5u;
// Entries of the normal table at the start of md2_frame_params: one per
// value of the index byte (md2_wgpu::contract::NORMAL_TABLE_LEN).
const MD2_NORMAL_TABLE_LEN: u32 = 256u;
// Quake II's POWERSUIT_SCALE: how far a shell stands off the skin, in model
// units (md2_wgpu::SHELL_OFFSET).
const MD2_SHELL_OFFSET: f32 = 4.0;
// Quake II's shell alpha (md2_wgpu::SHELL_ALPHA).
const MD2_SHELL_ALPHA: f32 = 0.3;
// RF_MINLIGHT: the light never falls below this (md2_wgpu::MIN_LIGHT).
const MD2_MIN_LIGHT: f32 = 0.1;

// Bits of the instance record's effects word (Md2Fragment.effects).
// The shell's colour, RGB8.
const MD2_EFFECT_SHELL_RGB: u32 = 0x00ffffffu;
const MD2_EFFECT_FULLBRIGHT: u32 = 0x01000000u;
const MD2_EFFECT_MINLIGHT: u32 = 0x02000000u;
const MD2_EFFECT_NO_SHADOW: u32 = 0x04000000u;
// What follows from the rest of an instance: it has a shell, it is
// translucent (tint alpha below 1), its transform mirrors (a negative
// determinant), it crossfades (a crowd member's second clock is live).
const MD2_MEMBER_SHELL: u32 = 0x08000000u;
const MD2_MEMBER_TRANSLUCENT: u32 = 0x10000000u;
const MD2_MEMBER_MIRRORED: u32 = 0x20000000u;
const MD2_MEMBER_FADING: u32 = 0x80000000u;

// Bits of Md2ModelInfo.flags (md2_wgpu::contract::MODEL_FULLBRIGHT_MASKS):
// the skin array's second half holds a fullbright mask for each layer of
// its first half (Quake I's glowing texels, drawn unlit).
const MD2_MODEL_FULLBRIGHT_MASKS: u32 = 1u;
// The model's vertices are 8-byte words (Quake III's: i16 x, y, z, then
// two angle bytes) and its normal table holds (cos, sin) per angle byte
// (md2_wgpu::contract::MODEL_WIDE_WORD).
const MD2_MODEL_WIDE_WORD: u32 = 2u;

// Md2Fragment.phase: which phase of md2_wgpu::Md2Phase calls the fragment
// stage.
const MD2_PHASE_OPAQUE: u32 = 0u;
const MD2_PHASE_TRANSLUCENT: u32 = 1u;
const MD2_PHASE_SHELLS: u32 = 2u;
const MD2_PHASE_SHADOWS: u32 = 3u;
