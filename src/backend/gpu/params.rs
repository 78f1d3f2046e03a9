//! Kernel parameters: each dispatch gets its own slot in a uniform-buffer arena.
//!
//! Slots are filled on the host while commands are recorded and written to the device with
//! `queue.write_buffer` just before the submit that runs them, which is exactly when such a
//! write executes. Chunks go back to the spares after that submit; reusing one later is safe
//! because the queue runs the next write after the work already submitted.

/// Bytes per chunk; one chunk holds hundreds of dispatches' parameters.
const CHUNK_BYTES: u64 = 64 * 1024;

struct Chunk {
    buffer: wgpu::Buffer,
    bytes: Vec<u8>,
}

pub(super) struct ParamArena {
    /// The adapter's uniform offset alignment (at least 16, the size granularity of WGSL
    /// uniform structs).
    align: u64,
    filling: Vec<Chunk>,
    spare: Vec<wgpu::Buffer>,
}

/// Where a dispatch's parameters live: bind `size` bytes of `buffer` at `offset`.
pub(super) struct Slot {
    pub buffer: wgpu::Buffer,
    pub offset: u64,
    pub size: u64,
}

impl ParamArena {
    pub(super) fn new(min_uniform_offset_alignment: u32) -> ParamArena {
        ParamArena {
            align: u64::from(min_uniform_offset_alignment).max(16),
            filling: Vec::new(),
            spare: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, device: &wgpu::Device, data: &[u8]) -> Slot {
        let size = (data.len() as u64).next_multiple_of(16).max(16);
        assert!(
            size <= CHUNK_BYTES,
            "kernel parameters of {size} bytes exceed a chunk"
        );
        let fits =
            |c: &Chunk| (c.bytes.len() as u64).next_multiple_of(self.align) + size <= CHUNK_BYTES;
        if !self.filling.last().is_some_and(fits) {
            let buffer = self.spare.pop().unwrap_or_else(|| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kernel params"),
                    size: CHUNK_BYTES,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            });
            self.filling.push(Chunk {
                buffer,
                bytes: Vec::new(),
            });
        }
        let chunk = self.filling.last_mut().expect("a chunk was just ensured");
        let offset = (chunk.bytes.len() as u64).next_multiple_of(self.align);
        chunk.bytes.resize(offset as usize, 0);
        chunk.bytes.extend_from_slice(data);
        chunk.bytes.resize((offset + size) as usize, 0);
        Slot {
            buffer: chunk.buffer.clone(),
            offset,
            size,
        }
    }

    /// Writes the filled slots; call right before submitting the commands that read them.
    /// Returns the bytes written.
    pub(super) fn write(&mut self, queue: &wgpu::Queue) -> u64 {
        for chunk in &self.filling {
            queue.write_buffer(&chunk.buffer, 0, &chunk.bytes);
        }
        self.filling.iter().map(|c| c.bytes.len() as u64).sum()
    }

    /// After the submit: the chunks may be filled again for the next one.
    pub(super) fn recycle(&mut self) {
        self.spare.extend(self.filling.drain(..).map(|c| c.buffer));
    }
}
