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
    quiet_on_closed_pipe();
    if let Err(e) = cli::run(cli::Cli::parse()) {
        eprintln!("error: {}", cli::one_line(&e));
        std::process::exit(1);
    }
}

/// Output into a closed pipe (`checkers-zero agents | head -1`) ends the program quietly, as
/// it ends Unix tools. Rust ignores SIGPIPE (the servers and Redis clients need it ignored),
/// so `println!` panics there instead: the panic hook exits without a word.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            // 128 + SIGPIPE: what a shell reports for a tool the signal ended.
            std::process::exit(141);
        }
        default(info);
    }));
}
