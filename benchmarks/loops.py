"""The four TASM loops that benchmarks/vm_speed.py and jit_speed.py both run."""

FIELD_LOOP = """
    // Fibonacci: field additions, stack shuffles, a loop through recurse.
    push 0 push 1 read_io 1 dup 0 skiz call fib_loop pop 1 write_io 1 halt
fib_loop:
    push -1 add swap 2 dup 1 add swap 1 swap 2 dup 0 skiz recurse return
"""

U32_LOOP = """
    // Mixes div_mod, xor, pop_count, log_2_floor, lt, pow and split on a counter.
    push 0 read_io 1 call loop pop 1 write_io 1 halt
loop:
    dup 0 push 0 eq skiz return
    push 1000 dup 1 div_mod xor pop_count
    dup 1 log_2_floor add
    dup 1 push 3 lt add
    dup 1 push 2 pow split pop 1 add
    swap 2 pick 2 add swap 1
    addi -1 recurse
"""

MEMORY_LOOP = """
    // Triton VM's memory benchmark: write five words, read them back, move the pointer.
    dup 15 dup 15 dup 15 dup 15 dup 15 read_io 1 call write_then_read halt
write_then_read:
    dup 0 push 0 eq skiz return write_mem 5 read_mem 5 addi -1 recurse
"""

HASH_LOOP = """
    // One Tip5 permutation per iteration, on a different input each time.
    read_io 1 call loop halt
loop:
    dup 0 push 0 eq skiz return
    dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 hash pop 5
    addi -1 recurse
"""
