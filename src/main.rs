fn main() -> std::process::ExitCode {
    mpv::cli::run()
}
