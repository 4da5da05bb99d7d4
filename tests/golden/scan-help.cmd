scan --help
