//! The ops. Each file holds a family: its shape rule, the forward on [`Tensor`](super::Tensor)
//! (no recording) and the recorded version on [`Var`](super::Var) with its backward rule,
//! written with tensor ops so it runs on whatever device the data is on.

mod conv;
mod elementwise;
mod layout;
mod loss;
mod matmul;
mod norm;
mod optim;
mod reduce;
mod softmax;
mod taps;

pub use norm::RunningStats;
pub use taps::TapTable;
