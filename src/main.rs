/// mimalloc: the front end and the analyses allocate many small AST and
/// formula nodes; glibc's malloc was a quarter of the parse time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    mpv::cli::run()
}
