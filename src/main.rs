/// mimalloc: the front end and the analyses allocate many small AST and
/// formula nodes; glibc's malloc was a quarter of the parse time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // Die quietly on a closed pipe (`mpv cfa big.c | head`) like other CLI tools.
    // SAFETY: resetting a signal disposition to its default at start-up.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    mpv::cli::run()
}
