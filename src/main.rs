fn main() {
    // Before any thread starts: interrupted writes leave no temporary file behind.
    hipport::safety::install_signal_cleanup();
    std::process::exit(hipport::cli::main());
}
