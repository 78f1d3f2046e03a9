//! The services: the browser interface (API and a real browser) and actors and a learner over a real Redis.

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "cluster")]
mod distributed;
#[cfg(feature = "gui")]
mod gui_api;
#[cfg(feature = "gui")]
mod gui_archive;
#[cfg(feature = "gui")]
mod gui_browser;
#[cfg(feature = "gui")]
mod gui_clocks;
#[cfg(all(feature = "gui", target_os = "linux"))]
mod gui_memory;
