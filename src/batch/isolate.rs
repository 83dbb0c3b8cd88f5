//! One child process per module, under limits the OS enforces: CPU time
//! (`RLIMIT_CPU`: SIGXCPU at the soft limit, SIGKILL two seconds later),
//! address space (`RLIMIT_AS`), no core files, and death with the batch
//! (`PR_SET_PDEATHSIG`), plus a wall-clock watchdog that kills a child that
//! sleeps or starves. Each child leads its own process group, so the
//! watchdog also ends whatever it started. The child's end, output, CPU time and peak memory
//! (from `wait4`'s rusage) come back as an [`Outcome`], classified into a
//! [`Status`] that says what happened.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Limits of one child.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// CPU seconds (soft `RLIMIT_CPU`); the hard limit is two seconds more.
    pub cpu_s: u64,
    /// Address-space limit in MB (`RLIMIT_AS`).
    pub memory_mb: u64,
    /// Wall-clock time after which the watchdog kills the child.
    pub wall: Duration,
}

impl Limits {
    /// Checks that the OS lets a child have these limits: a process cannot
    /// raise its hard limits, so a hard `ulimit -v` or `ulimit -t` below
    /// them would make every child fail to start.
    pub fn check_hard_limits(&self) -> Result<(), String> {
        let mem = self.memory_mb.saturating_mul(1024 * 1024);
        if let Some(hard) = hard_limit(libc::RLIMIT_AS).filter(|&h| h < mem) {
            return Err(format!(
                "--memory-limit {} MB is above this shell's hard address-space limit of {} MB \
                 (`ulimit -H -v`): give --memory-limit {} or less, or raise that limit",
                self.memory_mb,
                hard / (1024 * 1024),
                hard / (1024 * 1024)
            ));
        }
        let cpu = self.cpu_s.max(1) + 2;
        if let Some(hard) = hard_limit(libc::RLIMIT_CPU).filter(|&h| h < cpu) {
            return Err(format!(
                "each task's hard CPU-time limit would be {cpu} s (from --time-limit), above \
                 this shell's hard limit of {hard} s (`ulimit -H -t`): lower --time-limit or \
                 raise that limit"
            ));
        }
        Ok(())
    }
}

/// The hard limit of `resource`, if there is one.
fn hard_limit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes into the valid `rlimit` we pass.
    if unsafe { libc::getrlimit(resource, &mut rl) } != 0 || rl.rlim_max == libc::RLIM_INFINITY {
        return None;
    }
    Some(rl.rlim_max)
}

/// How a child ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
    /// The watchdog killed it at the wall-clock limit.
    WallKilled,
    /// It never ran (fork or exec failed, e.g. exec beyond `RLIMIT_AS`).
    SpawnFailed {
        message: String,
        enomem: bool,
    },
}

/// What a child did.
#[derive(Debug)]
pub struct Outcome {
    pub ending: Ending,
    pub stdout: Vec<u8>,
    /// The end of standard error (at most [`STDERR_KEEP`] bytes).
    pub stderr: Vec<u8>,
    pub wall: Duration,
    /// User plus system CPU time.
    pub cpu: Duration,
    /// Peak resident memory in MB.
    pub peak_mem_mb: f64,
}

/// Bytes of a child's standard error kept.
pub const STDERR_KEEP: usize = 16 * 1024;

/// What happened to a module, in the results' `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `mpv verify` finished and printed its result.
    Ok,
    /// `mpv verify` stopped with an error message (parse error, unsupported construct, ...).
    Error,
    /// The CPU-time limit or the wall-clock watchdog ended it.
    Timeout,
    /// It ran out of memory (allocation failure under `RLIMIT_AS`).
    OutOfMemory,
    StackOverflow,
    /// It panicked (a bug in mpv).
    Panic,
    /// It died of another signal (SIGSEGV, SIGABRT, ...).
    Crash,
    /// It exited 0 but its output is not a verify result.
    BadOutput,
    /// It could not be started.
    SpawnFailed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::OutOfMemory => "out_of_memory",
            Status::StackOverflow => "stack_overflow",
            Status::Panic => "panic",
            Status::Crash => "crash",
            Status::BadOutput => "bad_output",
            Status::SpawnFailed => "spawn_failed",
        }
    }
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGPIPE => "SIGPIPE",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// The last non-empty line of a child's standard error.
pub fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// What happened, with a one-line detail; `Ok` only for exit 0 (the caller
/// checks the output and may still say `BadOutput`).
pub fn classify(o: &Outcome, limits: &Limits) -> (Status, String) {
    let err = String::from_utf8_lossy(&o.stderr);
    const OOM: [&str; 5] = [
        "failed to map segment",
        "memory allocation of",
        "out of memory",
        "Cannot allocate memory",
        "(os error 12)",
    ];
    let oom_line = err
        .lines()
        .find(|l| OOM.iter().any(|m| l.contains(m)))
        .map(|l| l.trim().to_string());
    match &o.ending {
        Ending::Exited(0) => (Status::Ok, String::new()),
        Ending::Exited(101) if err.contains("panicked at") => match oom_line {
            Some(line) => (Status::OutOfMemory, line),
            None => (Status::Panic, last_line(&o.stderr)),
        },
        Ending::Exited(code) => {
            if let Some(line) = oom_line {
                return (Status::OutOfMemory, line);
            }
            let line = last_line(&o.stderr);
            let detail = if line.is_empty() {
                format!("exit code {code}")
            } else {
                line
            };
            (Status::Error, detail)
        }
        Ending::WallKilled => (
            Status::Timeout,
            format!(
                "wall-clock limit of {:.0} s (killed by the watchdog)",
                limits.wall.as_secs_f64()
            ),
        ),
        Ending::Signaled(sig) => {
            let cpu_out = o.cpu.as_secs() >= limits.cpu_s;
            if *sig == libc::SIGXCPU || (*sig == libc::SIGKILL && cpu_out) {
                (
                    Status::Timeout,
                    format!(
                        "CPU-time limit of {} s ({})",
                        limits.cpu_s,
                        signal_name(*sig)
                    ),
                )
            } else if err.contains("has overflowed its stack") {
                (Status::StackOverflow, last_line(&o.stderr))
            } else if let Some(line) = oom_line {
                (Status::OutOfMemory, line)
            } else {
                let line = last_line(&o.stderr);
                let mut detail = format!("killed by {}", signal_name(*sig));
                if !line.is_empty() {
                    detail = format!("{detail}: {line}");
                }
                (Status::Crash, detail)
            }
        }
        Ending::SpawnFailed { message, enomem } => {
            let status = if *enomem {
                Status::OutOfMemory
            } else {
                Status::SpawnFailed
            };
            (status, message.clone())
        }
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let rl = libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: `setrlimit` reads the valid `rlimit` we pass; it is
    // async-signal-safe, so it may run between fork and exec.
    if unsafe { libc::setrlimit(resource, &rl) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Reads a pipe to its end on a thread, keeping at most `keep` trailing bytes.
fn drain(mut pipe: impl Read + Send + 'static, keep: usize) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    if out.len() > 2 * keep {
                        out.drain(..out.len() - keep);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if out.len() > keep {
            out.drain(..out.len() - keep);
        }
        out
    })
}

/// Runs `program args` under `limits` and waits for it.
pub fn run(program: &Path, args: &[OsString], limits: &Limits) -> Outcome {
    let start = Instant::now();
    // SAFETY: `getpid` has no preconditions.
    let parent = unsafe { libc::getpid() };
    let cpu = limits.cpu_s.max(1);
    let mem = limits.memory_mb.saturating_mul(1024 * 1024);
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs between fork and exec and only makes
    // async-signal-safe system calls (setrlimit, setpgid, prctl, getppid, _exit).
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
            set_limit(libc::RLIMIT_CPU, cpu, cpu + 2)?;
            set_limit(libc::RLIMIT_AS, mem, mem)?;
            set_limit(libc::RLIMIT_CORE, 0, 0)?;
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The batch died before the line above took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                ending: Ending::SpawnFailed {
                    message: format!("cannot run {}: {e}", program.display()),
                    enomem: e.raw_os_error() == Some(libc::ENOMEM),
                },
                stdout: Vec::new(),
                stderr: Vec::new(),
                wall: start.elapsed(),
                cpu: Duration::ZERO,
                peak_mem_mb: 0.0,
            }
        }
    };
    let out = child.stdout.take().map(|p| drain(p, usize::MAX / 4));
    let err = child.stderr.take().map(|p| drain(p, STDERR_KEEP));
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    let mut nap = Duration::from_millis(2);
    loop {
        // SAFETY: `wait4` writes into the valid `status` and `ru` we pass.
        // The child is ours and not reaped elsewhere (std's `Child` is never
        // waited on), so its pid cannot be reused before this reaps it.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        if r == -1 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            // ECHILD cannot happen for our own unreaped child; stop waiting
            // rather than spin.
            break;
        }
        if !killed && start.elapsed() >= limits.wall {
            // SAFETY: signalling the process group our unreaped child leads.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            killed = true;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(50));
    }
    let wall = start.elapsed();
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let ending = if killed {
        Ending::WallKilled
    } else if libc::WIFEXITED(status) {
        Ending::Exited(libc::WEXITSTATUS(status))
    } else {
        Ending::Signaled(libc::WTERMSIG(status))
    };
    Outcome {
        ending,
        stdout,
        stderr,
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        // ru_maxrss is in KB on Linux.
        peak_mem_mb: ru.ru_maxrss as f64 / 1024.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            cpu_s: 5,
            memory_mb: 1024,
            wall: Duration::from_secs(20),
        }
    }

    fn sh(script: &str, l: &Limits) -> Outcome {
        run(Path::new("/bin/sh"), &["-c".into(), script.into()], l)
    }

    #[test]
    fn exit_codes_and_output() {
        let o = sh("echo hi; echo oops >&2; exit 3", &limits());
        assert_eq!(o.ending, Ending::Exited(3));
        assert_eq!(o.stdout, b"hi\n");
        assert_eq!(last_line(&o.stderr), "oops");
        assert_eq!(classify(&o, &limits()), (Status::Error, "oops".into()));
        assert!(o.peak_mem_mb > 0.0);
    }

    #[test]
    fn cpu_limit_is_a_timeout() {
        let l = Limits {
            cpu_s: 1,
            ..limits()
        };
        let o = sh("while :; do :; done", &l);
        assert!(matches!(o.ending, Ending::Signaled(_)), "{:?}", o.ending);
        assert_eq!(classify(&o, &l).0, Status::Timeout);
    }

    #[test]
    fn watchdog_kills_a_sleeper() {
        let l = Limits {
            wall: Duration::from_millis(300),
            ..limits()
        };
        let o = sh("sleep 30", &l);
        assert_eq!(o.ending, Ending::WallKilled);
        assert!(o.wall < Duration::from_secs(10));
        assert_eq!(classify(&o, &l).0, Status::Timeout);
    }

    #[test]
    fn signals_are_crashes() {
        let o = sh("kill -SEGV $$", &limits());
        assert_eq!(o.ending, Ending::Signaled(libc::SIGSEGV));
        let (s, d) = classify(&o, &limits());
        assert_eq!(s, Status::Crash);
        assert!(d.contains("SIGSEGV"), "{d}");
    }

    fn ended(ending: Ending, stderr: &str) -> Outcome {
        Outcome {
            ending,
            stdout: Vec::new(),
            stderr: stderr.as_bytes().to_vec(),
            wall: Duration::from_secs(1),
            cpu: Duration::from_secs(1),
            peak_mem_mb: 10.0,
        }
    }

    #[test]
    fn rust_runtime_failures_are_named() {
        let l = limits();
        let so = ended(
            Ending::Signaled(libc::SIGABRT),
            "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n",
        );
        assert_eq!(classify(&so, &l).0, Status::StackOverflow);
        let oom = ended(
            Ending::Signaled(libc::SIGABRT),
            "memory allocation of 320000 bytes failed\nskipping backtrace printing\n",
        );
        assert_eq!(
            classify(&oom, &l),
            (
                Status::OutOfMemory,
                "memory allocation of 320000 bytes failed".into()
            )
        );
        let panic = ended(
            Ending::Exited(101),
            "thread 'main' panicked at src/x.rs:1:1:\nindex out of bounds\n",
        );
        assert_eq!(
            classify(&panic, &l),
            (Status::Panic, "index out of bounds".into())
        );
        let loader = ended(
            Ending::Exited(127),
            "mpv: error while loading shared libraries: libz3.so.4: failed to map segment from shared object\n",
        );
        assert_eq!(classify(&loader, &l).0, Status::OutOfMemory);
        let killed = Outcome {
            cpu: Duration::from_secs(l.cpu_s),
            ..ended(Ending::Signaled(libc::SIGKILL), "")
        };
        assert_eq!(classify(&killed, &l).0, Status::Timeout, "hard CPU limit");
    }

    #[test]
    fn missing_program_is_a_spawn_failure() {
        let o = run(Path::new("/nonexistent/mpv"), &[], &limits());
        assert!(matches!(o.ending, Ending::SpawnFailed { .. }));
        assert_eq!(classify(&o, &limits()).0, Status::SpawnFailed);
    }
}
