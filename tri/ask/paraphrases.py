"""Paraphrases of arithmetic questions, made from templates: the learned tier's training data.

Input: a seed and a count.  Output: `generate(seed, count)` -> [(question, shape)]: the
question in words, and the shape of its canonical form (`SHAPES`: which operation, and the
order its two numbers are taken in: `a` is the question's first number, `b` its second).
The same seed gives the same list.  Questions that are not arithmetic (shape `none`) are in
it too, some with numbers.

Numbers are written as digits or, below a hundred, in words; the templates vary the verb,
the order of the operands, fillers before and after, and story settings with nouns.  They
are this project's own; the question sets the tier is measured on (tests/ask/) are not
among them.
"""

from __future__ import annotations

import random

# shape -> templates; {a} and {b} are the question's first and second number
TEMPLATES = {
    "a+b": [
        "add {a} and {b}",
        "{a} plus {b}",
        "the sum of {a} and {b}",
        "{a} and {b} added together",
        "combine {a} and {b}",
        "increase {a} by {b}",
        "the total of {a} and {b}",
        "{a} {things} and {b} {others}. how many altogether",
        "there are {a} {things} and {b} {others}. how many in total",
        "{name} has {a} {things} and finds {b} more. how many now",
        "{name} had {a} {things}. then {name} got {b} more. how many does {name} have",
        "put {a} and {b} together",
        "{a} with {b} more",
    ],
    "a-b": [
        "{a} minus {b}",
        "the difference of {a} and {b}",
        "{a} take away {b}",
        "decrease {a} by {b}",
        "reduce {a} by {b}",
        "{a} less {b}",
        "{name} has {a} {things}. {name} loses {b}. how many are left",
        "{name} had {a} {things} and gave away {b}. how many remain",
        "there were {a} {things}. {b} were sold. how many are left",
        "{a} {things}, {b} are used up. how many remain",
        "from {a}, remove {b}",
    ],
    "b-a": [
        "subtract {a} from {b}",
        "take {a} from {b}",
        "take {a} away from {b}",
        "remove {a} from {b}",
        "{a} less than {b}",
        "deduct {a} from {b}",
    ],
    "a*b": [
        "multiply {a} by {b}",
        "{a} times {b}",
        "the product of {a} and {b}",
        "{a} multiplied by {b}",
        "{a} groups of {b}",
        "{a} rows of {b} {things}. how many {things}",
        "each box holds {a} {things}. how many {things} in {b} boxes",
        "a {thing} costs {a} dollars. how much do {b} cost",
        "{a} {things} per bag. how many {things} in {b} bags",
        "{a} lots of {b}",
    ],
    "a/b": [
        "divide {a} by {b}",
        "{a} divided by {b}",
        "the quotient of {a} and {b}",
        "split {a} into {b} equal parts",
        "share {a} {things} equally among {b} friends. how many does each get",
        "{a} {things} in {b} equal groups. how many in each group",
        "how many times does {b} go into {a}",
    ],
    "sum": [
        "sum {a} to {b}",
        "add the numbers from {a} to {b}",
        "the sum of all integers from {a} to {b}",
        "total of the whole numbers {a} through {b}",
        "add up every number between {a} and {b}",
        "what do the numbers {a} to {b} add up to",
    ],
    "product": [
        "multiply the numbers from {a} to {b}",
        "the product of all integers from {a} to {b}",
        "multiply every number from {a} through {b}",
        "product of {a} through {b}",
    ],
    "count": [
        "how many numbers are there from {a} to {b}",
        "how many integers between {a} and {b} inclusive",
        "count the whole numbers from {a} to {b}",
    ],
    "a>b": [
        "is {a} greater than {b}",
        "is {a} bigger than {b}",
        "is {a} more than {b}",
        "is {a} larger than {b}",
        "does {a} exceed {b}",
        "is {a} above {b}",
    ],
    "a<b": [
        "is {a} less than {b}",
        "is {a} smaller than {b}",
        "is {a} below {b}",
        "is {a} fewer than {b}",
        "is {a} lower than {b}",
    ],
    "a==b": [
        "is {a} equal to {b}",
        "is {a} the same as {b}",
        "does {a} equal {b}",
        "are {a} and {b} equal",
    ],
    "none": [
        "what is the capital of {place}",
        "who wrote {book}",
        "tell me a story about {things}",
        "name {a} {things}",
        "what happened in {a}",
        "how old is {name}",
        "what is the weather in {place}",
        "list {a} {things} from {place}",
        "is {name} taller than {other}",
        "how do you spell {thing}",
        "translate {a} {things} into french",
        "what is the square root of {a}",
        "what is {a} to the power of {b}",
        "what is {a} percent of {b}",
    ],
}
SHAPES = tuple(TEMPLATES)
FILLERS_BEFORE = ["", "", "", "what is ", "please ", "compute ", "can you ", "tell me ", "find "]
FILLERS_AFTER = ["", "", "?", ".", " please", "?"]
THINGS = ["apples", "marbles", "books", "coins", "pencils", "cards", "stamps", "eggs", "shells"]
OTHERS = ["pears", "stones", "cups", "bottles", "leaves", "rings"]
NAMES = ["ana", "ravi", "kim", "omar", "lena", "ivo", "mei", "sam"]
PLACES = ["peru", "norway", "kenya", "japan", "chile"]
BOOKS = ["hamlet", "dune", "emma"]
WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def spelled(number: int) -> str:
    """A number below 100 in words."""
    if number < 20:
        return WORDS[number]
    tens, unit = divmod(number, 10)
    return TENS[tens - 2] + (f"-{WORDS[unit]}" if unit else "")


def _number(rng: random.Random) -> int:
    return rng.choice([rng.randrange(0, 20), rng.randrange(0, 100), rng.randrange(0, 10000)])


def _written(rng: random.Random, number: int) -> str:
    return spelled(number) if number < 100 and rng.random() < 0.25 else str(number)


def generate(seed: int, count: int) -> list[tuple[str, str]]:
    """`count` (question, shape) pairs, the same for the same seed."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        shape = rng.choice(SHAPES)
        template = rng.choice(TEMPLATES[shape])
        a, b = _number(rng), _number(rng)
        text = template.format(
            a=_written(rng, a),
            b=_written(rng, b),
            things=rng.choice(THINGS),
            thing=rng.choice(THINGS).rstrip("s"),
            others=rng.choice(OTHERS),
            name=rng.choice(NAMES),
            other=rng.choice(NAMES),
            place=rng.choice(PLACES),
            book=rng.choice(BOOKS),
        )
        text = rng.choice(FILLERS_BEFORE) + text + rng.choice(FILLERS_AFTER)
        if rng.random() < 0.5:
            text = text[0].upper() + text[1:]
        pairs.append((text, shape))
    return pairs
