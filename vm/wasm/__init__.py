"""The WebAssembly target: TASM programs translated to WAT (`translate`) and run by
wasmtime (`runtime.execute_wasm`) with the interpreter's results."""
