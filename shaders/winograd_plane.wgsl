// Prepended to the Winograd F(4x4, 3x3) kernels (winograd.wgsl, winograd_in.wgsl,
// winograd_out.wgsl): the plane they tile, a constant of each compilation. A plane of H x W
// cells is TY x TX output tiles of 4 x 4 (the last ones cut at the plane's edge); a
// product's columns run over (image, tile), tiles row-major within the image.

const H: u32 = {{H}}u;
const W: u32 = {{W}}u;
const TY: u32 = (H + 3u) / 4u;
const TX: u32 = (W + 3u) / 4u;
const TILES: u32 = TY * TX;
const PLANE: u32 = H * W;
