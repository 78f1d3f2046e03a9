//! Data movement: permute, pad/crop, column gather and scatter.

use super::CpuBuf;

pub fn permute(x: &[f32], shape: &[usize], perm: &[usize]) -> CpuBuf {
    let rank = shape.len();
    let mut in_strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        in_strides[i] = in_strides[i + 1] * shape[i + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let mut out = Vec::with_capacity(x.len());
    let mut idx = vec![0usize; rank];
    for _ in 0..x.len() {
        let offset: usize = idx.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.push(x[offset]);
        for ax in (0..rank).rev() {
            idx[ax] += 1;
            if idx[ax] < out_shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    CpuBuf::new(out)
}

pub fn pad2d(x: &[f32], planes: usize, h: usize, w: usize, pads: [i32; 4], value: f32) -> CpuBuf {
    let [top, bottom, left, right] = pads;
    let oh = (h as i32 + top + bottom) as usize;
    let ow = (w as i32 + left + right) as usize;
    let mut out = vec![value; planes * oh * ow];
    for p in 0..planes {
        for oy in 0..oh {
            let iy = oy as i32 - top;
            if iy < 0 || iy >= h as i32 {
                continue;
            }
            for ox in 0..ow {
                let ix = ox as i32 - left;
                if ix >= 0 && ix < w as i32 {
                    out[(p * oh + oy) * ow + ox] = x[(p * h + iy as usize) * w + ix as usize];
                }
            }
        }
    }
    CpuBuf::new(out)
}

pub fn gather_cols(x: &[f32], rows: usize, cols: usize, index: &[u32]) -> CpuBuf {
    let mut out = Vec::with_capacity(rows * index.len());
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        out.extend(index.iter().map(|&i| row[i as usize]));
    }
    CpuBuf::new(out)
}

pub fn scatter_cols(g: &[f32], rows: usize, cols: usize, index: &[u32]) -> CpuBuf {
    let mut out = vec![0.0f32; rows * cols];
    for r in 0..rows {
        for (j, &i) in index.iter().enumerate() {
            out[r * cols + i as usize] += g[r * index.len() + j];
        }
    }
    CpuBuf::new(out)
}
