"""The deterministic normalizer: a question in words -> its canonical form, or a refusal.

Input: the question's text.  Output: a canonical tree (tri.ask.canonical), or `Refused`
saying what was not understood.  Nothing is guessed: a question is answered only when the
whole of it matches one of the shapes below, so anything else -- a question that is not
arithmetic, a clause with no rule, a story with a number too many -- is refused.

The steps (each a table or a small function below):

1. **Words.**  Lower case; number words become digits (`thirty-five`, `three hundred
   twelve`, `two million`); thousands separators go (`1,000,000`); `×`, `÷` and `−` become
   `*`, `/` and `-`.  Leading phrases that ask (`what is`, `compute`, `how much is`, `what
   do you get if you`) and a trailing `is`, `=`, `?` or `.` are dropped.
2. **A story** (more than one sentence: "Janet has 50 apples. She gives away 15. How many
   remain?"): exactly two numbers, a question sentence, and cues of one kind: giving away,
   losing, leaking out -> the first minus the second; getting, buying, "more" -> their sum;
   "each", "per", holding or costing so much -> their product.  Cues of two kinds refuse.
3. **A chain** (clauses joined by `then` or commas: "Add 10 and 20, then subtract 5"): the
   first clause is a whole question (or `start with N`), each later one an operation on the
   value so far (`subtract 5`, `multiply by 3`, `divide by 2`).
4. **One clause**: a range (`sum 1 to 100`, `product of 1 to 6`, `how many numbers from 5 to
   15`, `count down from 10`), a comparison (`is 3 bigger than 10`), an operation in words
   (`subtract 49 from 69`, `the difference of 100 and 37`, `12 times 9`, `the remainder when
   17 is divided by 5`), or an expression in symbols (`(8 + 4) * 3`, `15 > 10`).
"""

from __future__ import annotations

import re

from tri.ask.canonical import Binary, Compare, Number, Reduce, Refused, parse

# --- 1. words ------------------------------------------------------------------------------------

UNITS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {
    word: 10 * (index + 2)
    for index, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
SCALES = {"hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9}
SYMBOLS = {"×": "*", "÷": "/", "−": "-", "–": "-"}
ASKING = re.compile(
    r"^(?:what is|what's|whats|compute|calculate|evaluate|work out|find|how much is|"
    r"what do you get if you|what do you get when you|please|can you|tell me)\s+"
)
CLOSING = re.compile(r"\s*(?:\bis|\bequals|=)?\s*[?.!]*\s*$")


def number_words(text: str) -> str:
    """`text` with every run of number words replaced by its digits: `thirty-five` -> 35,
    `three hundred twelve` -> 312, `two million` -> 2000000; two numbers side by side stay
    two (`five six` -> `5 6`), and so does `one hundred and five` (`100 and 5`: in "add one
    hundred and five" the `and` may join the number or the two operands, so a question that
    needs it to be one number is refused rather than read one way)."""
    pieces = re.split(r"([a-z]+)", text)  # words at odd indexes, what separates them between
    out: list[str] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if index % 2 == 0 or _kind(piece) is None or _kind(piece) in ("hundred", "scale"):
            out.append(piece)
            index += 1
            continue
        value, index = _read_number(pieces, index)
        out.append(str(value))
    return "".join(out)


def _read_number(pieces: list[str], index: int) -> tuple[int, int]:
    """(the value of the number that starts at word `index`, the index after its last word)."""
    total = current = 0
    previous = None  # the kind of the number's last word (`_kind`)
    end = index
    while index < len(pieces):
        word = pieces[index]
        kind = _kind(word)
        if kind is None or not _may_follow(previous, kind):
            break
        if kind in ("unit", "teen"):
            current += UNITS[word]
        elif kind == "tens":
            current += TENS[word]
        elif kind == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * SCALES[word]
            current = 0
        previous, end = kind, index + 1
        if pieces[index + 1 : index + 2] not in ([" "], ["-"]):
            break
        index += 2
    return total + current, end


def _kind(word: str) -> str | None:
    if word in UNITS:
        return "unit" if UNITS[word] < 10 else "teen"
    if word in TENS:
        return "tens"
    if word == "hundred":
        return "hundred"
    return "scale" if word in SCALES else None


def _may_follow(previous: str | None, kind: str) -> bool:
    """Whether a number word of `kind` continues a number whose last word was `previous`."""
    if previous is None:
        return kind not in ("hundred", "scale")
    allowed = {
        "unit": ("hundred", "scale"),
        "teen": ("hundred", "scale"),
        "tens": ("unit", "hundred", "scale"),
        "hundred": ("unit", "teen", "tens", "scale"),
        "scale": ("unit", "teen", "tens"),
    }
    return kind in allowed[previous]


def cleaned(question: str) -> str:
    text = question.strip().lower()
    for symbol, plain in SYMBOLS.items():
        text = text.replace(symbol, plain)
    text = number_words(text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"\s+", " ", text)
    while True:
        shorter = ASKING.sub("", text)
        if shorter == text:
            break
        text = shorter
    return CLOSING.sub("", text).strip()


# --- 4. one clause -------------------------------------------------------------------------------

N = r"(\d+)"
THE = r"(?:the )?"
NUMBERS = r"(?: all)?(?: the)?(?: numbers| integers| whole numbers)?"
TO = r" (?:to|through|until) "


def _sum(a, b):
    return Binary("+", a, b)


def _difference(a, b):
    return Binary("-", a, b)


def _product(a, b):
    return Binary("*", a, b)


def _quotient(a, b):
    return Binary("/", a, b)


def _remainder(a, b):
    return Binary("%", a, b)


def _reduction(kind):
    return lambda a, b=None: Reduce(kind, a, b if b is not None else Number(0))


def _comparison(operator):
    return lambda a, b: Compare(operator, a, b)


# (pattern, build): the clause must match the pattern whole; build takes its numbers
CLAUSES = [
    (rf"{THE}(?:sum|total)(?: up)?(?: of)?{NUMBERS}(?: from)? {N}{TO}{N}", _reduction("sum")),
    # `add` is a range only with `up`, `numbers` or `from`: "add 5 to 10" is 10 + 5
    (
        rf"add(?: up{NUMBERS}(?: from)?|{NUMBERS} from| all the numbers) {N}{TO}{N}",
        _reduction("sum"),
    ),
    (rf"add {N} to {N}", lambda a, b: _sum(b, a)),
    (rf"{THE}(?:multiply|product(?: of)?){NUMBERS}(?: from)? {N}{TO}{N}", _reduction("product")),
    (
        rf"how many (?:numbers|integers|whole numbers) (?:are there )?(?:from|between) {N}"
        rf" (?:to|and) {N}(?: inclusive)?",
        _reduction("count"),
    ),
    (rf"count down from {N}(?: to {N})?", _reduction("last")),
    (rf"count (?:up )?from {N} to {N}", _reduction("last")),
    (rf"is {N} (?:greater|bigger|larger|more|higher) than {N}", _comparison(">")),
    (rf"is {N} (?:less|smaller|fewer|lower) than {N}", _comparison("<")),
    (rf"is {N} (?:not equal to|different from) {N}", _comparison("!=")),
    (rf"is {N} (?:equal to|the same as) {N}", _comparison("==")),
    (rf"is {N} at least {N}", _comparison(">=")),
    (rf"is {N} at most {N}", _comparison("<=")),
    (rf"(?:add|{THE}sum of|{THE}total of) {N} (?:and|to|plus) {N}", _sum),
    (rf"{N} plus {N}", _sum),
    (rf"subtract {N} from {N}", lambda a, b: _difference(b, a)),
    (rf"take(?: away)? {N}(?: away)? from {N}", lambda a, b: _difference(b, a)),
    (rf"{N} minus {N}", _difference),
    (rf"{THE}difference (?:of|between) {N} and {N}", _difference),
    (rf"multiply {N} (?:by|and|with) {N}", _product),
    (rf"{N} (?:times|multiplied by) {N}", _product),
    (rf"{THE}product of {N} and {N}", _product),
    (rf"divide {N} by {N}", _quotient),
    (rf"{N} divided by {N}", _quotient),
    (rf"{THE}quotient of {N} (?:and|by) {N}", _quotient),
    (rf"{THE}remainder (?:when|of) {N} (?:is )?divided by {N}", _remainder),
    (rf"{N} mod(?:ulo)? {N}", _remainder),
    (rf"(?:start with|begin with|start at|take) {N}", lambda a: a),
]
COMPILED = [(re.compile(pattern), build) for pattern, build in CLAUSES]
SYMBOLIC = re.compile(r"(?:[\d\s+\-*/%()<>=!x.]|sum|product|count|last)+")  # canonical text


def clause(text: str):
    """The canonical tree of one whole clause, or `Refused`."""
    for pattern, build in COMPILED:
        match = pattern.fullmatch(text)
        if match:
            return build(*(Number(int(group)) for group in match.groups() if group is not None))
    if SYMBOLIC.fullmatch(text) and re.search(r"\d", text):
        return parse(re.sub(r"(?<=[\d)\s])x(?=[\s\d(])", "*", text).replace("=<", "<="))
    raise Refused(f"did not understand {text!r}")


# --- 3. a chain ----------------------------------------------------------------------------------

STEPS = [
    (rf"(?:add|plus) {N}", lambda value, n: _sum(value, n)),
    (rf"(?:subtract|minus|take away) {N}", lambda value, n: _difference(value, n)),
    (rf"(?:multiply|times)(?: it)?(?: by)? {N}", lambda value, n: _product(value, n)),
    (rf"divide(?: it)?(?: by)? {N}", lambda value, n: _quotient(value, n)),
]
COMPILED_STEPS = [(re.compile(pattern), build) for pattern, build in STEPS]
JOINS = re.compile(r"\s*,\s*(?:and )?(?:then )?|\s+(?:and )?then\s+")


def chain(text: str):
    clauses = [part for part in JOINS.split(text) if part]
    value = clause(clauses[0])
    for part in clauses[1:]:
        for pattern, build in COMPILED_STEPS:
            match = pattern.fullmatch(part)
            if match:
                value = build(value, Number(int(match.group(1))))
                break
        else:
            raise Refused(f"did not understand the step {part!r}")
    return value


# --- 2. a story ----------------------------------------------------------------------------------

TAKING = re.compile(
    r"\b(?:gives? away|gave away|give|gives|gave|loses|lost|lose|eats|ate|eat|spends|spent|"
    r"sells|sold|leaks? out|leaked out|uses|used|takes away|took away|breaks|broke|"
    r"falls? off|fell off|are taken|were taken)\b"
)
GETTING = re.compile(
    r"\b(?:more|gets|got|get|buys|bought|finds|found|receives|received|adds|added|earns|earned)\b"
)
EACH = re.compile(r"\b(?:each|per|every|apiece|holds|hold|contains|fits|carries)\b")
ASKED = re.compile(r"\b(?:how many|how much|cost|left|remain|total)\b")


def story(sentences: list[str]):
    """Two numbers and one operation, placed as a story places them: the cue of taking or
    getting comes after the first number ("has 50 ... gives away 15", not "gave away 15
    and has 35 left", which asks for the start); a product's count is in the question and
    its rate before it ("each box holds 8 ... how many in 7 boxes", not "each pack has 6
    ... I have 30 cans, how many packs", which divides)."""
    text = " ".join(sentences)
    found = list(re.finditer(r"\d+", text))
    if len(found) != 2:
        raise Refused(
            f"a story with {len(found)} numbers: only one with two numbers and one "
            "operation is understood"
        )
    question = sentences[-1]
    if not ASKED.search(question):
        raise Refused(f"no question in {question!r}")
    first, second = (Number(int(match.group())) for match in found)
    after_first = text[found[0].end() :]
    cues = [kind for kind, cue in (("-", TAKING), ("+", GETTING), ("*", EACH)) if cue.search(text)]
    if len(cues) != 1:
        if not cues:
            raise Refused("no word of the story says which operation it asks for")
        raise Refused("the story's words point to more than one operation")
    kind = cues[0]
    if kind == "*":
        asked_from = len(text) - len(question)
        if not (found[0].start() < asked_from <= found[1].start()):
            raise Refused("a story with a rate: the count it asks about must be in the question")
    elif not {"-": TAKING, "+": GETTING}[kind].search(after_first):
        raise Refused("the story says what was taken or got before the amount it started with")
    return Binary(kind, first, second)


# --- the whole question --------------------------------------------------------------------------


def normalize(question: str):
    """The canonical tree of `question`, or `Refused` (see the module docstring)."""
    text = cleaned(question)
    if not text:
        raise Refused("an empty question")
    if not re.search(r"\d", text):
        raise Refused("no numbers in the question: not an arithmetic question")
    sentences = [part for part in re.split(r"(?<=[.?!])\s+", text) if part]
    if len(sentences) > 1:
        return story([CLOSING.sub("", sentence) for sentence in sentences])
    return chain(text)
