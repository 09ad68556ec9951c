fn main() {
    std::process::exit(hipport::cli::main());
}
