"""The arrangement planner of the stack manager: which moves turn one layout into another.

Layouts are lists of keys (bottom -> top); `None` is garbage in the current layout and
"any" in the target.  `plan(current, target)` returns moves -- ("swap" | "pick" |
"place", depth) and ("pop", count) -- that reach the target: the best of a greedy
swap/place planner (scored by how many elements are already in target order), picking
the target's elements to the top, keeping the longest already-ordered prefix of the
target and picking the rest, and, for small regions, a breadth-first search for a
shorter plan.  It only plans; `compiler.tir.stack.Stack` applies the moves.
"""

from __future__ import annotations


def compatible(current: list, target: list) -> bool:
    if len(current) != len(target):
        return False
    return all(t == c if t is not None else c is None for c, t in zip(current, target))


def plan(current: list, target: list) -> list[tuple[str, int]]:
    """Moves (swap/pick/place/pop) that turn `current` into `target`.

    `current` holds every key of `target` (plus garbage `None`) and is at least as
    long.  Candidates: the greedy planner (when it finishes), picking every target
    element to the top, keeping the target's longest ordered prefix in place; the
    shortest wins, and a breadth-first search looks for a shorter one in small regions.
    """
    prefix = 0
    while prefix < min(len(target), len(current)) and current[prefix] == target[prefix]:
        prefix += 1
    current, target = current[prefix:], target[prefix:]
    plans = []
    greedy = _greedy(list(current), target)
    if greedy is not None:
        plans.append(greedy)
    plans.append(_by_picks(list(current), target))
    plans.append(_by_picks(list(current), target, keep=True))
    best = min(plans, key=_cost)
    if len(best) >= 3 and len(current) <= 7:
        found = _search(tuple(current), tuple(target), len(best) - 1)
        if found is not None:
            best = found
    return best


_SEARCHED: dict = {}


def _search(current: tuple, target: tuple, limit: int) -> list | None:
    """A shortest plan of at most `limit` moves, by breadth-first search (small regions)."""
    names: dict = {}
    for key in target + current:
        if key is not None and key not in names:
            names[key] = len(names)
    start = tuple(-1 if k is None else names[k] for k in current)
    goal = tuple(-1 if k is None else names[k] for k in target)
    signature = (start, goal, limit)
    if signature in _SEARCHED:
        return _SEARCHED[signature]
    frontier = {start: []}
    seen = {start}
    found = None
    for _ in range(limit):
        following = {}
        for state, path in frontier.items():
            for move, state_after in _moves(state, len(goal)):
                if state_after in seen:
                    continue
                seen.add(state_after)
                plan = path + [move]
                if state_after == goal:
                    found = plan
                    break
                following[state_after] = plan
            if found is not None:
                break
        if found is not None or not following:
            break
        frontier = following
    _SEARCHED[signature] = found
    return found


def _moves(state: tuple, goal_length: int):
    n = len(state)
    if state[-1] == -1 and n > goal_length:
        yield ("pop", 1), state[:-1]
    for depth in range(1, n):
        i = n - 1 - depth
        swapped = list(state)
        swapped[-1], swapped[i] = swapped[i], swapped[-1]
        yield ("swap", depth), tuple(swapped)
        if depth > 1:
            yield ("pick", depth), state[:i] + state[i + 1 :] + (state[i],)
            yield ("place", depth), state[:i] + (state[-1],) + state[i:-1]


def _cost(plan) -> int:
    return len(plan)


def _greedy(current: list, target: list) -> list | None:
    moves: list = []
    m = len(target)
    position_of = {key: i for i, key in enumerate(target) if key is not None}

    def score(state: list) -> tuple[int, int]:
        """(elements already in target order, elements already in their place)."""
        exact = sum(
            1
            for i, key in enumerate(target)
            if i < len(state) and (state[i] == key if key is not None else state[i] is None)
        )
        order = [position_of[key] for key in state if key is not None]
        return _increasing(order), exact

    for _ in range(4 * (len(current) + m) + 8):
        n = len(current)
        if compatible(current, target):
            return moves
        top = current[-1]
        if top is None:
            if n > m:
                run = 0
                while run < n - m and run < 5 and current[n - 1 - run] is None:
                    run += 1
                moves.append(("pop", run))
                del current[n - run :]
                continue
            if target[-1] is not None:
                j = current.index(target[-1])
                moves.append(("swap", n - 1 - j))
                current[-1], current[j] = current[j], current[-1]
                continue
            i = _highest_mismatch(current, target)
            moves.append(("swap", n - 1 - i))
            current[-1], current[i] = current[i], current[-1]
            continue
        t = position_of[top]
        if t == n - 1:
            i = _highest_mismatch(current, target)
            moves.append(("swap", n - 1 - i))
            current[-1], current[i] = current[i], current[-1]
            continue
        depth = n - 1 - t
        swapped = list(current)
        swapped[-1], swapped[t] = swapped[t], swapped[-1]
        placed = current[:t] + [top] + current[t:-1]
        if score(placed) > score(swapped):
            moves.append(("place", depth))
            current = placed
        else:
            moves.append(("swap", depth))
            current = swapped
    return None


def _increasing(values: list[int]) -> int:
    """The length of the longest increasing subsequence."""
    tails: list[int] = []
    for value in values:
        low, high = 0, len(tails)
        while low < high:
            middle = (low + high) // 2
            if tails[middle] < value:
                low = middle + 1
            else:
                high = middle
        if low == len(tails):
            tails.append(value)
        else:
            tails[low] = value
    return len(tails)


def _highest_mismatch(current: list, target: list) -> int:
    for i in range(len(target) - 1, -1, -1):
        key = target[i]
        if (current[i] != key) if key is not None else (current[i] is not None):
            return i
    raise AssertionError("no mismatch")


def _kept_prefix(current: list, target: list) -> tuple[int, set[int]]:
    """The longest prefix of `target` found, in order, as a subsequence of `current`:
    (its length, the positions in `current` it uses)."""
    matched, used = 0, set()
    for position, slot in enumerate(current):
        if matched < len(target) and slot == target[matched]:
            used.add(position)
            matched += 1
    return matched, used


def _by_picks(current: list, target: list, keep: bool = False) -> list:
    """Leave a prefix of the target in place (when `keep`), pick the rest of it to the
    top in order, then drop the garbage left below."""
    moves: list = []
    kept, used = _kept_prefix(current, target) if keep else (0, set())
    tags = [(i in used) for i in range(len(current))]  # True: a kept element
    for placed, key in enumerate(target[kept:]):
        unplaced = len(current) - placed  # positions below the block built so far
        if key is None:
            j = next(
                (i for i in range(unplaced - 1, -1, -1) if current[i] is None and not tags[i]),
                None,
            )
            if j is None:
                raise AssertionError("no garbage to fill an any-slot")
        else:
            j = current.index(key)
        depth = len(current) - 1 - j
        if depth:
            moves.append(("pick", depth))
        current.append(current.pop(j))
        tags.append(tags.pop(j))
    block = len(target) - kept
    # garbage left among the kept elements, below the block
    while len(current) > len(target):
        below = len(current) - block
        j = next(i for i in range(below - 1, -1, -1) if not tags[i])
        if block == 0 and j == len(current) - 1:
            run = 1
            while run < 5 and run < len(current) - len(target) and not tags[j - run]:
                run += 1
            moves.append(("pop", run))
            del current[len(current) - run :]
            del tags[len(tags) - run :]
            continue
        if block == 1 and j == below - 1:
            run = 1
            while run < 5 and run < len(current) - len(target) and not tags[j - run]:
                run += 1
            moves.append(("swap", run))
            moves.append(("pop", run))
            current[-1], current[-1 - run] = current[-1 - run], current[-1]
            del current[len(current) - run :]
            tags[-1], tags[-1 - run] = tags[-1 - run], tags[-1]
            del tags[len(tags) - run :]
            continue
        moves.append(("pick", len(current) - 1 - j))
        current.append(current.pop(j))
        tags.append(tags.pop(j))
        moves.append(("pop", 1))
        current.pop()
        tags.pop()
    return moves
