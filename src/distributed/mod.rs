//! Training across machines (docs/ARCHITECTURE.md, "Actors and a learner"): self-play actors
//! anywhere push finished games into a Redis stream; one learner trains on them as `train`
//! does on its own games and publishes each new best network for the actors.
//!
//! - [`record`]: a game as one checked stream record.
//! - [`link`]: the Redis connection (reconnecting with back-off), key names and commands.
//! - [`learner`]: the learner's game source (stream, durable inbox, exactly-once accounting).
//! - [`actor`]: the actor loop.

pub mod actor;
pub mod learner;
pub mod link;
pub mod record;
