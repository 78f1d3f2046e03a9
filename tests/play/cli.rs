//! The command line as a user meets it: bad input gets one clear error line before any work
//! is done, and nothing a user cannot act on is printed.

use std::process::{Command, Output};

fn run(args: &[&str], env_remove: &[&str]) -> Output {
    let mut cmd = crate::common::program();
    cmd.args(args);
    for var in env_remove {
        cmd.env_remove(var);
    }
    cmd.output().expect("run checkers-zero")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the program, asserts that it succeeded, and returns what it printed.
fn succeeds(args: &[&str]) -> String {
    let result = run(args, &[]);
    assert!(result.status.success(), "{}", stderr(&result));
    String::from_utf8_lossy(&result.stdout).into_owned()
}

/// A folder of this process's own under the system's temporary folder, created.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Probing for a GPU adapter (Vulkan through wgpu, Mesa's lavapipe on CI) prints nothing
/// from the drivers, also without a desktop session's XDG_RUNTIME_DIR.
#[test]
fn probing_for_a_gpu_prints_no_driver_noise() {
    let out = run(
        &[
            "bench",
            "nn",
            "--device",
            "auto",
            "--net",
            "az-tiny",
            "--batches",
            "1",
            "--train-batch",
            "2",
            "--seconds",
            "0.05",
        ],
        &["XDG_RUNTIME_DIR"],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("XDG_RUNTIME_DIR"), "driver noise: {err}");
    assert!(err.starts_with("device: "), "{err}");
}

/// The hardware check's gate: `bench adapter` lists the adapters as JSON and fails, saying
/// why, when the best is a software renderer, unless `--allow-software`.
#[cfg(feature = "gpu")]
#[test]
fn the_adapter_gate_refuses_a_software_adapter_unless_allowed() {
    let allowed = run(&["bench", "adapter", "--allow-software"], &[]);
    let listed = String::from_utf8_lossy(&allowed.stdout).into_owned();
    let Some(first) = listed.lines().next() else {
        assert!(!allowed.status.success(), "no adapter listed, yet success");
        crate::common::skip("wgpu sees no adapter here");
        return;
    };
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    let first: serde_json::Value = serde_json::from_str(first).expect("a JSON line");
    let software = first["software"].as_bool().expect("a software field");
    let gated = run(&["bench", "adapter"], &[]);
    assert_eq!(gated.status.success(), !software, "{}", stderr(&gated));
    if software {
        let err = stderr(&gated);
        assert!(
            err.contains("software renderer") && err.contains("--allow-software"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
}

/// The GPU's switches in the environment refuse a value they do not know, in one line that
/// names the variable and what it takes, before any work; empty, they count as unset.
#[cfg(feature = "gpu")]
#[test]
fn the_gpus_switches_refuse_values_they_do_not_know() {
    let adapter = run(&["bench", "adapter", "--allow-software"], &[]);
    if !adapter.status.success() {
        crate::common::skip("wgpu sees no adapter here");
        return;
    }
    let bench = |variables: &[(&str, &str)]| {
        crate::common::program()
            .args(["bench", "nn", "--device", "gpu", "--net", "az-tiny"])
            .args(["--batches", "1", "--train-batch", "0", "--seconds", "0"])
            .envs(variables.iter().copied())
            .output()
            .expect("run checkers-zero")
    };
    let (switch, precision, tile) = (
        "expected 0 or 1",
        "expected strict or mixed",
        "expected wide, square or small",
    );
    let refused = [
        (
            "CHECKERS_ZERO_GPU_WINOGRAD",
            "yes",
            "expected 0, 1 or timed",
        ),
        ("CHECKERS_ZERO_GPU_CHECKS", "on", switch),
        ("CHECKERS_ZERO_GPU_BASELINE", "2", switch),
        ("CHECKERS_ZERO_GPU_PRECISION", "fast", precision),
        ("CHECKERS_ZERO_GPU_TILE", "huge", tile),
    ];
    let empty = bench(&refused.map(|(variable, _, _)| (variable, "")));
    assert!(empty.status.success(), "empty switches: {}", stderr(&empty));
    for (variable, value, expected) in refused {
        let out = bench(&[(variable, value)]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{variable}={value} was taken");
        assert!(
            out.stdout.is_empty(),
            "{variable}={value}: nothing measured"
        );
        assert!(
            err.contains(&format!("{variable}={value}: {expected}")),
            "{variable}={value}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
}

/// Output into a pipe whose reader is gone (`checkers-zero agents | true`) ends the program
/// quietly, as Unix tools end, instead of with a panic's message and backtrace.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    for args in [&["agents"][..], &["perft", "--depth", "3"][..]] {
        let mut child = crate::common::program()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run checkers-zero");
        // The reader goes before the program has started writing.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("it ends");
        let err = stderr(&out);
        assert!(err.is_empty(), "{args:?}: {err}");
        assert!(
            out.status.success() || out.status.code() == Some(141),
            "{args:?}: {:?}",
            out.status
        );
    }
}

/// A PDN file that cannot be written is found out before the games, not after them.
#[test]
fn an_unwritable_pdn_path_fails_before_any_game() {
    let started = std::time::Instant::now();
    let out = run(
        &[
            "match",
            "alphabeta:depth=4",
            "alphabeta:depth=4",
            "--pdn",
            "/nonexistent-folder/games.pdn",
        ],
        &[],
    );
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("--pdn") && err.contains("does not exist"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no games were reported");
    // 314 games at depth 4 take minutes; a refusal takes well under that.
    assert!(started.elapsed().as_secs() < 30);
}

/// An operating-system error reaches the user once, with the file it is about.
#[test]
fn os_errors_are_printed_once_with_their_file() {
    let out = run(&["play", "--agent", "td:model=/nonexistent/best.ckpt"], &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(err.contains("/nonexistent/best.ckpt"), "{err}");
}

/// `export` refuses a model file it cannot read and an output it cannot write with one line
/// that names the file, and leaves nothing behind.
#[test]
fn export_names_what_it_cannot_read_or_write() {
    let dir = scratch_dir("cz-cli-export");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/default.bin");
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &std::fs::read(model).unwrap()[..100]).unwrap();
    let cut = cut.to_str().unwrap();
    let out = dir.join("net.onnx");
    let out = out.to_str().unwrap();
    let dir_text = dir.to_str().unwrap();
    for (model, onnx, needle) in [
        ("/nonexistent/best.ckpt", out, "/nonexistent/best.ckpt"),
        (readme, out, "not a checkers-zero checkpoint"),
        (cut, out, "truncated"),
        (model, "/nonexistent-folder/net.onnx", "does not exist"),
        (model, dir_text, "is a folder"),
    ] {
        let result = run(&["export", model, "--onnx", onnx], &[]);
        let err = stderr(&result);
        assert!(!result.status.success(), "{model} {onnx}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
        assert!(result.stdout.is_empty(), "{err}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "only cut.bin");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// perft of either game from the command line, Othello's against its published count.
#[test]
fn perft_counts_both_games() {
    for (args, want) in [
        (
            &["perft", "--game", "othello", "--depth", "9"][..],
            "perft(9) = 3005288 ",
        ),
        (&["perft", "--depth", "8"], "perft(8) = 845931 "),
    ] {
        let out = run(args, &[]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with(want), "{args:?}: {text}");
    }
}

/// Every network name and the time per measurement are checked before the first one runs.
#[test]
fn bench_nn_checks_its_settings_first() {
    for (args, needle) in [
        (
            &["bench", "nn", "--net", "az-tiny,bogus", "--batches", "1"][..],
            "bogus",
        ),
        (
            &["bench", "nn", "--net", "az-tiny", "--seconds", "nan"],
            "--seconds",
        ),
    ] {
        let out = run(args, &[]);
        assert!(!out.status.success());
        assert!(out.stdout.is_empty(), "{args:?}: nothing measured");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

/// `train-td --game othello` trains the network asked for, and `--resume` finds the game
/// from the run state without being told; checkers has no tower network.
#[test]
fn train_td_runs_othello_and_resumes_it_by_its_run_state() {
    let dir = std::env::temp_dir().join(format!("cz-cli-td-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_str().unwrap();
    let short = ["--eval-every", "2", "--eval-games", "1", "--threads", "1"];
    let mut args = vec![
        "train-td", "--game", "othello", "--net", "towers", "--out", path,
    ];
    args.extend(["--games", "2"]);
    args.extend(short);
    let out = run(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["train-td", "--resume", path, "--games", "4"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics.lines().count(), 2, "{metrics}");
    let out = run(
        &[
            "match",
            "--game",
            "othello",
            &format!("td:model={path}/best.ckpt"),
            "random",
            "--games",
            "2",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();

    let out = run(&["train-td", "--net", "towers", "--out", path], &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("Othello's tower network"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!dir.exists(), "a refused run leaves no folder");
}

/// `train --game othello --symmetries true` trains on the board's images and keeps the key
/// in the run's configuration.
#[test]
fn othello_trains_on_the_boards_symmetries() {
    let dir = std::env::temp_dir().join(format!("cz-cli-sym-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_str().unwrap();
    let mut args = vec![
        "train",
        "--game",
        "othello",
        "--out",
        path,
        "--iterations",
        "2",
    ];
    args.extend(["--symmetries", "true", "--threads", "1"]);
    let tiny = crate::common::tiny_run(4);
    args.extend(tiny.iter().map(String::as_str));
    let out = run(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    assert!(config.contains("\"symmetries\": true"), "{config}");
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics.lines().count(), 2, "{metrics}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With `--log-format json` (or its variable) every line `train` writes on stdout is a JSON
/// event, and neither stream carries a progress bar's control characters when they are not a
/// terminal; `--run` starts a run, then continues it.
#[test]
fn train_logs_json_events_and_run_starts_or_continues() {
    let dir = std::env::temp_dir().join(format!("cz-cli-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_str().unwrap();
    let mut events = Vec::new();
    for (iterations, by_variable) in [("1", false), ("2", true)] {
        let mut cmd = crate::common::program();
        if by_variable {
            cmd.env("CHECKERS_ZERO_LOG_FORMAT", "json");
        } else {
            cmd.args(["--log-format", "json"]);
        }
        cmd.args(["train", "--run", path])
            .args(crate::common::tiny_run(2));
        cmd.args(["--iterations", iterations]);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        for text in [&stdout, &stderr(&out)] {
            assert!(
                !text.contains(['\x1b', '\r']),
                "control characters in a log: {text:?}"
            );
        }
        for line in stdout.lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            for key in ["time", "source", "event", "message"] {
                assert!(v[key].is_string(), "no {key}: {line}");
            }
            events.push((v["event"].as_str().unwrap().to_string(), v));
        }
    }
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "created",
            "started",
            "iteration",
            "finished",
            "started",
            "iteration",
            "finished"
        ]
    );
    // The second command continued the run: from iteration 1, to iteration 2.
    assert_eq!(events[4].1["iteration"], 1);
    assert_eq!(events[5].1["iteration"], 2);
    assert_eq!(events[2].1["source"], "train");
    assert!(events[2].1["policy_loss"].is_number(), "{}", events[2].1);
    // A format it does not know is one line naming those it does.
    let out = run(&["--log-format", "xml", "perft", "--depth", "1"], &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("text") && err.contains("json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A server started with CHECKERS_ZERO_HEALTH_FILE keeps the file fresh; `health` reads it
/// and is well, and fails with one line once the server is gone and the file goes stale
/// (here: a file that names no server at all).
#[cfg(feature = "gui")]
#[test]
fn health_reports_a_serving_gui_and_fails_without_one() {
    use std::time::{Duration, Instant};
    let dir = scratch_dir("cz-cli-health");
    let file = dir.join("health");
    let mut gui = crate::common::program()
        .args(["gui", "--port", "0"])
        .env("CHECKERS_ZERO_HEALTH_FILE", &file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let health = |file: &std::path::Path| {
        crate::common::program()
            .arg("health")
            .env("CHECKERS_ZERO_HEALTH_FILE", file)
            .output()
            .unwrap()
    };
    let out = loop {
        let out = health(&file);
        if out.status.success() || Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    gui.kill().unwrap();
    gui.wait().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(said.starts_with("gui (pid "), "{said}");
    let out = health(&dir.join("none"));
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.starts_with("error: unhealthy: "), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train --init` starts from the shipped network with a learning-rate warm-up of 2
/// iterations unless one is given, and a model of another network is one clear error line.
#[test]
fn train_init_warms_up_unless_told_and_refuses_another_network() {
    let dir = std::env::temp_dir().join(format!("cz-cli-init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_str().unwrap();
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/models/default.bin");
    let tiny = crate::common::tiny_run(2);
    let tiny: Vec<&str> = tiny.iter().map(String::as_str).collect();
    let mut args = vec![
        "train",
        "--out",
        path,
        "--init",
        shipped,
        "--iterations",
        "1",
    ];
    args.extend(tiny);
    // The shipped network's own preset; any other is refused below.
    let its_network = ["--network", "dark-tiny"];
    let out = run(&[&args[..], &its_network].concat(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    assert!(config.contains("\"lr_warmup\": 2"), "{config}");
    assert!(config.contains("\"init_hash\": \""), "{config}");
    std::fs::remove_dir_all(&dir).unwrap();

    args.extend(["--lr-warmup", "0"]);
    let out = run(&[&args[..], &its_network].concat(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    assert!(config.contains("\"lr_warmup\": 0"), "{config}");
    std::fs::remove_dir_all(&dir).unwrap();

    let out = run(&[&args[..], &["--network", "az-small"]].concat(), &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("but this run trains az-small"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!dir.exists(), "a refused run leaves no folder");
}

/// A network that does not load is named with what it was for and why, on one line: the
/// cause is kept as the error's source and printed, not flattened away.
#[test]
fn a_network_that_does_not_load_is_named_with_its_cause() {
    let dir = scratch_dir("cz-cli-cause");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/models/default.bin");
    let cut = dir.join("cut.ckpt");
    std::fs::write(&cut, &std::fs::read(shipped).unwrap()[..100]).unwrap();
    let cut = cut.to_str().unwrap().to_string();
    let out_dir = dir.join("run");
    let tiny = crate::common::tiny_run(1);
    let mut args = vec!["train", "--out", out_dir.to_str().unwrap(), "--init", &cut];
    args.extend(tiny.iter().map(String::as_str));
    let az = format!("az:model={cut},searches=2,device=cpu");
    for (args, what) in [
        (args, format!("init {cut}: ")),
        (
            vec!["match", &az, "random", "--games", "2"],
            "az: ".to_string(),
        ),
    ] {
        let out = run(&args, &[]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("error: {what}")), "{err}");
        assert!(err.contains("truncated"), "the cause: {err}");
    }
    assert!(!out_dir.exists(), "a refused run leaves no folder");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A match whose stderr is a log, not a terminal (run under nohup), says how far it is in
/// plain lines; a resumed journal counts the games its earlier runs played.
#[test]
fn a_match_in_a_log_reports_progress_with_earlier_journal_games() {
    let dir = scratch_dir("cz-cli-progress");
    let journal = dir.join("m.jsonl");
    let journal = journal.to_str().unwrap();
    let args = [
        "match",
        "random",
        "random",
        "--games",
        "6",
        "--threads",
        "1",
        "--journal",
        journal,
    ];
    let last_line = |out: &Output| {
        let err = stderr(out);
        assert!(out.status.success(), "{err}");
        err.lines()
            .rfind(|l| l.contains(" games, "))
            .unwrap_or_else(|| panic!("no progress line: {err}"))
            .to_string()
    };
    let whole = last_line(&run(&args, &[]));
    assert!(
        whole.starts_with("random vs random: 6/6 games, +"),
        "{whole}"
    );
    // Keep the header and two games: the resumed run plays four and reports all six.
    let text = std::fs::read_to_string(journal).unwrap();
    let kept: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(journal, kept).unwrap();
    let resumed = last_line(&run(&args, &[]));
    assert_eq!(resumed, whole);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C (SIGINT) ends a long perft, bench perft and perft --divide at once: nothing in them
/// holds the signal off until the count is done.
#[cfg(unix)]
#[test]
fn long_perfts_stop_on_an_interrupt() {
    use std::time::{Duration, Instant};
    for args in [
        &["perft", "--depth", "18", "--threads", "1"][..],
        &["perft", "--depth", "18", "--divide"],
        &["bench", "perft", "--depth", "18", "--repeat", "1"],
    ] {
        let mut command = crate::common::program();
        command
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // A shell's background job (`cargo test &`) starts with SIGINT ignored, and the
        // program keeps what it inherits, as Unix tools do: the child gets the default back.
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only signal(), which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(500));
        // The shell's own `kill`: no other program is needed.
        let kill = Command::new("sh")
            .args(["-c", &format!("kill -INT {}", child.id())])
            .status()
            .unwrap();
        assert!(kill.success());
        let deadline = Instant::now() + Duration::from_secs(5);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{args:?} still runs 5 s after SIGINT");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(!status.success(), "{args:?} was interrupted, not finished");
    }
}

/// `average` writes the element-wise mean of networks of one model, with a lineage that lists
/// theirs; a file of another model, or one it cannot read, is one error line naming it, and
/// nothing is written.
#[test]
fn average_writes_the_mean_of_networks_and_names_a_file_it_cannot_use() {
    use checkers_zero::games::Checkers;
    use checkers_zero::net::{AzModel, Lineage, read_model_file, save_model};
    use checkers_zero::nn::{Architecture, NetPreset, PolicyValueNet};
    use checkers_zero::tensor::Device;
    use rand::SeedableRng;

    let dir = scratch_dir("cz-cli-average");
    let save = |name: &str, preset: NetPreset, seed: u64| {
        let model = AzModel::<Checkers>::new(Architecture::preset(preset), Default::default());
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let net = PolicyValueNet::with_head(
            model.arch.clone(),
            <Checkers as checkers_zero::net::NetGame>::HEAD,
            &Device::Cpu,
            &mut rng,
        );
        let lineage = Lineage {
            run: "runs/r".into(),
            iteration: seed as u32,
            ..Lineage::default()
        };
        let path = dir.join(name);
        save_model::<Checkers>(&path, &net, model.encoding, &lineage, None).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (a, b, c) = (
        save("a.ckpt", NetPreset::DarkTiny, 3),
        save("b.ckpt", NetPreset::DarkTiny, 4),
        save("c.ckpt", NetPreset::AzTiny, 5),
    );
    let out = dir.join("mean.ckpt");
    let out_text = out.to_str().unwrap();

    let result = run(&["average", &a, &b, &b, "--out", out_text], &[]);
    let text = String::from_utf8_lossy(&result.stdout);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        text.contains("the mean of 3 networks: iterations 3-4 of run runs/r, trained from zero"),
        "{text}"
    );
    let [a_file, b_file, mean] =
        [&a, &b, out_text].map(|p| read_model_file::<Checkers>(p.as_ref()).unwrap());
    assert_eq!(mean.arch.model, a_file.arch.model);
    assert!(mean.optimizer.is_none());
    assert_eq!(mean.arch.lineage.averaged.len(), 3);
    for (((m, x), y), what) in (mean.params.iter().chain(&mean.buffers))
        .zip(a_file.params.iter().chain(&a_file.buffers))
        .zip(b_file.params.iter().chain(&b_file.buffers))
        .zip(0..)
    {
        assert_eq!(m.shape, x.shape);
        for ((m, x), y) in m.data.iter().zip(&x.data).zip(&y.data) {
            let want = (x + y + y) / 3.0;
            assert!(
                (m - want).abs() <= 1e-6 * want.abs().max(1.0),
                "tensor {what}"
            );
        }
    }
    std::fs::remove_file(&out).unwrap();

    for (files, needle) in [
        ([&a, &c], "c.ckpt"),
        (
            [&a, &"/nonexistent/best.ckpt".to_string()],
            "/nonexistent/best.ckpt",
        ),
    ] {
        let result = run(&["average", files[0], files[1], "--out", out_text], &[]);
        let err = stderr(&result);
        assert!(!result.status.success(), "{files:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
    }
    let err = stderr(&run(&["average", &a, &c, "--out", out_text], &[]));
    assert!(
        err.contains("az-tiny") && err.contains("dark-tiny"),
        "{err}"
    );
    let result = run(&["average", &a, "--out", out_text], &[]);
    assert!(!result.status.success(), "one file is not an average");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        3,
        "nothing written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `book` grows a book from each opening's search, writes it whole after each, and run again
/// searches only the openings the book does not name; its settings are checked first.
#[test]
fn book_grows_a_book_resumes_it_and_checks_its_settings() {
    let dir = scratch_dir("cz-cli-book");
    let out = dir.join("book.tsv");
    let out_text = out.to_str().unwrap();
    // The settings a run gives, each unless `extra` gives it otherwise.
    let args = |extra: &[&'static str]| {
        let mut a = vec!["book", "--out", out_text];
        for pair in [
            ["--openings", "none"],
            ["--simulations", "600"],
            ["--min-visits", "100"],
            ["--agent", "az:device=cpu"],
        ] {
            if !extra.contains(&pair[0]) {
                a.extend(pair);
            }
        }
        a.extend_from_slice(extra);
        a
    };
    let first = run(&args(&[]), &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let text = std::fs::read_to_string(&out).unwrap();
    let book = checkers_zero::agents::book::Book::<checkers_zero::games::Checkers>::parse(&text)
        .expect("a book it reads back");
    assert!(book.len() > 1, "{text}");
    let said = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(said.contains("1 openings searched now"), "{said}");

    let again = run(&args(&[]), &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    let said = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(said.contains("0 openings searched now"), "{said}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);

    for (extra, expected) in [
        (&["--agent", "alphabeta"][..], "expected an az spec"),
        (&["--min-visits", "601"][..], "the book would be empty"),
        (
            &["--game", "othello"][..],
            "a book of checkers, not othello",
        ),
    ] {
        let result = run(&args(extra), &[]);
        let err = stderr(&result);
        assert!(
            !result.status.success() && err.contains(expected),
            "{extra:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `train-patterns` fits checkers' patterns to the built-in network's values (or to their own
/// search's scores), writes a file the evaluation reads, and refuses the other game's flags
/// and a second source of labels before any work.
#[test]
fn train_patterns_fits_checkers_to_the_network_and_refuses_othellos_flag() {
    use checkers_zero::agents::checkers_patterns::CheckersPatterns;
    let dir = scratch_dir("cz-cli-patterns");
    let out = dir.join("p.bin");
    let out_text = out.to_str().unwrap();

    let text = succeeds(&[
        "train-patterns",
        "--games",
        "40",
        "--epochs",
        "2",
        "--out",
        out_text,
    ]);
    assert!(text.contains("held out (every tenth game)"), "{text}");
    let weights = CheckersPatterns::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert!(weights.tables.iter().flatten().filter(|&&w| w != 0).count() > 1000);

    let searched = dir.join("searched.bin");
    let fit = [
        "train-patterns",
        "--games",
        "40",
        "--epochs",
        "2",
        "--label-depth",
        "2",
    ];
    let result = run(
        &[&fit[..], &["--out", searched.to_str().unwrap()]].concat(),
        &[],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("alpha-beta, 2 plies deep"),
        "{}",
        stderr(&result)
    );
    let by_search = CheckersPatterns::from_bytes(&std::fs::read(&searched).unwrap()).unwrap();
    assert_ne!(by_search, weights);
    let both = run(
        &[&fit[..], &["--model", out_text, "--out", out_text]].concat(),
        &[],
    );
    let err = stderr(&both);
    assert!(!both.status.success());
    assert!(err.contains("give one"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let refused = run(
        &["train-patterns", "--player", out_text, "--out", out_text],
        &[],
    );
    assert!(!refused.status.success());
    let err = stderr(&refused);
    assert!(err.contains("--player is Othello's"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let unwritable = run(&["train-patterns", "--out", "/nonexistent-dir/p.bin"], &[]);
    let err = stderr(&unwritable);
    assert!(!unwritable.status.success());
    assert!(err.contains("--out /nonexistent-dir/p.bin"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // The Othello fit cannot read checkers' weights as its player.
    let refused = run(
        &[
            "train-patterns",
            "--game",
            "othello",
            "--player",
            out_text,
            "--out",
            out_text,
        ],
        &[],
    );
    let err = stderr(&refused);
    assert!(!refused.status.success());
    assert!(
        err.contains("not a file of othello pattern weights"),
        "{err}"
    );
    let refused = run(
        &[
            "train-patterns",
            "--game",
            "othello",
            "--label-depth",
            "2",
            "--out",
            out_text,
        ],
        &[],
    );
    let err = stderr(&refused);
    assert!(!refused.status.success());
    assert!(err.contains("--label-depth is checkers'"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `distill` teaches the built-in network's value head its patterns' search and writes a
/// model file that loads, and refuses a learning rate that is not positive or an unwritable
/// output before any work.
#[test]
fn distill_writes_a_model_and_refuses_bad_settings() {
    use checkers_zero::games::Checkers;
    use checkers_zero::net::load_model;
    use checkers_zero::tensor::Device;
    let dir = scratch_dir("cz-cli-distill");
    let out = dir.join("d.ckpt");
    let out_text = out.to_str().unwrap();
    let text = succeeds(&[
        "distill",
        "--games",
        "20",
        "--label-depth",
        "2",
        "--out",
        out_text,
    ]);
    assert!(text.contains("held-out squared error"), "{text}");
    let (_, _, optimizer) = load_model::<Checkers>(&out, &Device::Cpu).unwrap();
    assert!(optimizer.is_none());
    for (args, expected) in [
        (
            ["--lr", "0", "--out", out_text],
            "--lr 0: expected a positive learning rate",
        ),
        (
            ["--lr", "0.001", "--out", "/nonexistent-dir/d.ckpt"],
            "--out /nonexistent-dir/d.ckpt",
        ),
    ] {
        let refused = run(&[&["distill"][..], &args].concat(), &[]);
        let err = stderr(&refused);
        assert!(!refused.status.success() && err.contains(expected), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
