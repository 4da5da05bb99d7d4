dump --help
