"""The self-hosting driver: compile the optimizer with itself until its hash is fixed."""
