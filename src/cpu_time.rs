//! The CPU time this process has used, all its threads together: the work a training run
//! did, apart from what other programs took of a shared machine (wall time counts both).

/// User and system CPU seconds of this process so far (its threads, live and ended); `None`
/// where the platform is not Unix-like.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        usage_seconds(libc::RUSAGE_SELF)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// User and system CPU seconds that getrusage reports for `who`.
#[cfg(unix)]
fn usage_seconds(who: libc::c_int) -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given and nothing else.
    if unsafe { libc::getrusage(who, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: zeroed memory is a valid rusage, and getrusage filled it.
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn thread_cpu_seconds() -> f64 {
        usage_seconds(libc::RUSAGE_THREAD).unwrap()
    }

    /// Another thread's work counts: 0.3 s of CPU spent on a spawned thread (by that thread's
    /// own clock) raises the process's clock by at least that. Only a lower bound can be
    /// checked: the other tests of this binary run beside it and add their own.
    #[test]
    fn counts_the_work_of_other_threads() {
        let before = process_cpu_seconds().unwrap();
        let spent = std::thread::spawn(|| {
            let start = thread_cpu_seconds();
            let mut x = 0u64;
            while thread_cpu_seconds() - start < 0.3 {
                for _ in 0..10_000 {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            thread_cpu_seconds() - start
        })
        .join()
        .unwrap();
        let used = process_cpu_seconds().unwrap() - before;
        assert!(
            used >= spent - 0.01,
            "the thread spent {spent} s, the process counted {used} s"
        );
    }
}
