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
    #[cfg(unix)]
    end_on_signals_as_first_process();
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

/// A container's first process (pid 1) has no default action for signals: the kernel drops
/// SIGTERM and SIGINT unless it has a handler, so `docker stop` would wait its 10 s and then
/// kill. There both end the program as they end it anywhere else (every file it writes is
/// written whole or not at all, so an end at any moment loses nothing).
#[cfg(unix)]
fn end_on_signals_as_first_process() {
    extern "C" fn end(signal: libc::c_int) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + signal) }
    }
    if std::process::id() == 1 {
        for signal in [libc::SIGTERM, libc::SIGINT] {
            // SAFETY: the handler only calls _exit.
            unsafe { libc::signal(signal, end as *const () as libc::sighandler_t) };
        }
    }
}
