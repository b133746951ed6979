"""One module per `banco` command: `add_arguments(parser)` and `run(args) -> exit status`."""
