"""`tri ask`: a question in words -> its canonical form -> a program -> the exact answer.

canonical.py is the canonical form and its exact meaning, rules.py the deterministic
normalizer that turns words into it (refusing what it does not understand), program.py the
program in the language that computes it, and answer.py the whole way through, the program
built and run on the VM and on WebAssembly.
"""
