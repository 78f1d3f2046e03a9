// The forward with its output's moments (MODE 3), for a training batch norm of that output:
// as each workgroup stores its tile it also writes, for every output channel (row) of the
// tile, the count, mean and sum of squared deviations from that mean (M2) of the tile's
// values, so the batch norm combines a few of these per channel (norm/moments.wgsl) instead
// of reading the whole output twice. Each invocation keeps Welford's running mean and M2 of
// the values it stores in each of its rows; the invocations sharing a row are then combined
// by Chan's formula. Both are as stable as the two-pass definition (no sums of squares).
// The moments go to (tiles_n, m, 3): part t of row i at (t m + i) 3.

@group(0) @binding(6) var<storage, read_write> moments: array<f32>;

var<private> noted: array<f32, TM>;
var<private> note_mean: array<f32, TM>;
var<private> note_m2: array<f32, TM>;

// The register row (0..TM) of this invocation that holds output row i (see `main`: rows
// (q ROWS + lid.y) 4 + lane of the tile for q < TM / 4).
fn register_row(i: u32) -> u32 {
    let t = i % BM;
    return t / 4u / ROWS * 4u + t % 4u;
}

// Called by `store_c` for every value stored.
fn note_output(i: u32, v: f32) {
    let r = register_row(i);
    let n = noted[r] + 1.0;
    let d = v - note_mean[r];
    note_mean[r] += d / n;
    note_m2[r] += d * (v - note_mean[r]);
    noted[r] = n;
}

// The columns of the tile at col0 that invocation column x stores (those inside C).
fn stored_columns(col0: u32, x: u32) -> f32 {
    var count = 0u;
    for (var c = 0u; c < TN / 4u; c++) {
        let j = col0 + (c * COLS + x) * 4u;
        if (j < p.gemm.n) {
            count += min(4u, p.gemm.n - j);
        }
    }
    return f32(count);
}

// Slot s of two flat f32 arrays laid over the staged slices, free once the product's last
// step has passed its barrier: BM x COLS slots fit in each (tile.rs checks).
fn park(s: u32, mean: f32, m2: f32) {
    tile_a[s / (BK * BM)][s % (BK * BM) / 4u][s % 4u] = mean;
    tile_b[s / (BK * BN)][s % (BK * BN) / 4u][s % 4u] = m2;
}

fn parked_mean(s: u32) -> f32 {
    return tile_a[s / (BK * BM)][s % (BK * BM) / 4u][s % 4u];
}

fn parked_m2(s: u32) -> f32 {
    return tile_b[s / (BK * BN)][s % (BK * BN) / 4u][s % 4u];
}

// Called by every invocation after the tile is stored.
fn end_tile(row0: u32, col0: u32, lid: vec3<u32>, li: u32) {
    for (var r = 0u; r < TM; r++) {
        let t = (r / 4u * ROWS + lid.y) * 4u + r % 4u;
        park(t * COLS + lid.x, note_mean[r], note_m2[r]);
    }
    workgroupBarrier();
    for (var t = li; t < BM; t += THREADS) {
        let row = row0 + t;
        if (row < p.gemm.m) {
            var n = 0.0;
            var mean = 0.0;
            var m2 = 0.0;
            for (var x = 0u; x < COLS; x++) {
                let nb = stored_columns(col0, x);
                if (nb > 0.0) {
                    let delta = parked_mean(t * COLS + x) - mean;
                    let total = n + nb;
                    mean += delta * nb / total;
                    m2 += parked_m2(t * COLS + x) + delta * delta * n * nb / total;
                    n = total;
                }
            }
            let at = (col0 / BN * p.gemm.m + row) * 3u;
            moments[at] = n;
            moments[at + 1u] = mean;
            moments[at + 2u] = m2;
        }
    }
}
