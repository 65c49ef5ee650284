"""One module per `tri` command (or pair of related commands)."""
