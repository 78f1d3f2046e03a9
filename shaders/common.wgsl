// Prepended to every kernel family. Names in double braces are filled in from the Rust
// constants that launch the kernels (src/backend/gpu/pipelines.rs), so the two cannot drift.

// Invocations per workgroup of the one-dimensional kernels.
const WG: u32 = {{WG}}u;

// The flat index of this workgroup: launches wider than the adapter's per-dimension limit
// are split over x and y, so some trailing groups fall past the end and must return.
fn flat_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// The flat index of this invocation in a one-dimensional launch.
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return flat_group(wid, nwg) * WG + lid;
}
