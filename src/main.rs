//! The `checkers-zero` command line: one subcommand per user task (src/cli/).

mod cli;

use clap::Parser;

fn main() {
    // Mesa's device-select Vulkan layer reorders adapters (we choose our own) and, without a
    // display, prints "XDG_RUNTIME_DIR is invalid" twice, which a user cannot act on. A user's
    // own setting wins.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: the first statement of main: no other thread exists to read the environment.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    if let Err(e) = cli::run(cli::Cli::parse()) {
        eprintln!("error: {}", cli::one_line(&e));
        std::process::exit(1);
    }
}
