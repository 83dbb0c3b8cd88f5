/// mimalloc: the front end and the analyses allocate many small AST and
/// formula nodes; glibc's malloc was a quarter of the parse time. Built
/// without transparent huge pages (`no_thp`): a 2 MB page per first touch
/// of a sparse arena raised the peak memory of a verification by a fifth.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // Die quietly on a closed pipe (`mpv cfa big.c | head`) like other CLI tools.
    // SAFETY: resetting a signal disposition to its default at start-up.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Output that cannot be written (a full disk, `> /dev/full`) is an
    // error the user can act on, not an internal failure.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if let Some(why) = message.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: cannot write to standard output: {why}");
            std::process::exit(1);
        }
        default_hook(info)
    }));
    // Deeply nested C (thousands of parentheses, blocks or `else if`s) is
    // parsed and lowered recursively: the work runs on a thread with a
    // large stack (reserved address space; only what is used is memory).
    match std::thread::Builder::new()
        .name("mpv".into())
        .stack_size(STACK_BYTES)
        .spawn(mpv::cli::run)
    {
        Ok(worker) => worker.join().unwrap_or(std::process::ExitCode::from(101)),
        Err(_) => mpv::cli::run(),
    }
}

/// The stack of the thread doing mpv's work.
const STACK_BYTES: usize = 512 << 20;
