"""The neural optimizer of `-O3` (optimizer.md §5, §6), in Python.

`fixed` is the pure-Python reference of fixed-point Goldilocks arithmetic and
`fixed_numpy` its vectorized twin; `tensor` and `tensor_numpy` build the
model's operations on them (dot product, matrix-vector product, layer
normalization, the clamped polynomial GeLU, masked attention, argmax).  The
four agree bit for bit with each other and with the language's `std.nn.fixed`
and `std.nn.tensor` (tests/optimizer/test_fixed.py, tests/optimizer/test_nn_tensor.py).

`poseidon2` (with `poseidon2_numpy`, its numpy lanes) is the standard width-8
Poseidon2 over Goldilocks and a sponge on it; `weights` reads and writes the model's
weight file, whose Poseidon2 hash is the model's identity (optimizer.md §7), and
`identity` makes the compiler's identity from it (optimizer.md §9).

The model (docs/neural.md): `encoding` turns a block's DAG into tokens and an
attention mask; `model` is the encoder and the pointer-head decoder, written once
over the arithmetics of `backends` (fixed point in numpy on signed values,
`signed_numpy`; the pure-Python reference; a float64 twin), with `NeuralPolicy`
(tests/optimizer/test_neural_encoding.py, tests/optimizer/test_neural_model.py).
"""
