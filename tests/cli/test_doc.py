"""`tri doc`: a page per module of its public items -- signature, the comment above,
attributes, the estimated cost of a call -- in Markdown on stdout, or Markdown and HTML
files with `-o DIR`; private items are left out and source text is escaped in HTML."""

from cli_helpers import tri

from compiler.check.cost_estimate import function_costs
from compiler.pipeline import Options, check_source

MODULE = """// Shapes and their areas.
module shapes

/// The largest side we measure.
pub const LIMIT: Field = 1000

/// A box, w by h.
pub struct Box {
    pub w: Field,
    pub h: Field,
}

/// The area of a box.
/// Counts w < h nowhere.
pub fn area(b: Box) -> Field {
    helper(b.w) * b.h
}

// Not public: not on the page.
fn helper(x: Field) -> Field {
    x
}

/// The sum of an array.
pub fn total<N>(values: [Field; N]) -> Field {
    let mut sum: Field = 0
    for i in 0..N {
        sum = sum + values[i]
    }
    sum
}
"""


def test_a_page_lists_the_public_items_with_comments_and_costs(tmp_path, capsys):
    path = tmp_path / "shapes.tri"
    path.write_text(MODULE)
    code, out, err = tri(capsys, "doc", path)
    assert code == 0, err
    assert out.startswith("# shapes\n") and "Shapes and their areas." in out
    assert "pub const LIMIT: Field = 1000" in out and "The largest side we measure." in out
    assert "pub struct Box { pub w: Field, pub h: Field }" in out
    assert "pub fn area(b: Box) -> Field" in out
    assert "The area of a box. Counts w < h nowhere." in out
    assert "pub fn total<N>(values: [Field; N]) -> Field" in out
    assert "generic: its cost depends on the sizes it is used with" in out
    assert "helper" not in out
    checked = check_source(path, Options())
    (key,) = [key for key, i in checked.instances.items() if i.function.name == "area"]
    cost = function_costs(checked, [key])[key]
    assert f"estimated cost of one call: processor {cost.processor}, hash 0" in out
    assert cost.processor > 0


def test_pages_are_written_as_markdown_and_html(tmp_path, capsys):
    path = tmp_path / "shapes.tri"
    path.write_text(MODULE)
    out_dir = tmp_path / "docs"
    code, out, _ = tri(capsys, "doc", path, "-o", out_dir)
    assert code == 0 and out == ""
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == ["index.html", "index.md", "shapes.html", "shapes.md"]
    page = (out_dir / "shapes.html").read_text()
    assert "Counts w &lt; h nowhere." in page and '<h2 id="fn-area">fn area</h2>' in page
    assert "[shapes](shapes.md) Shapes and their areas." in (out_dir / "index.md").read_text()
    code, out, _ = tri(capsys, "doc", path)
    assert out == (out_dir / "shapes.md").read_text()


def test_the_library_documents_itself(capsys):
    from pathlib import Path

    code, out, err = tri(capsys, "doc", Path(__file__).parents[2] / "stdlib" / "math")
    assert code == 0, err
    assert "# std.math.arith" in out and "## fn gcd" in out and "estimated cost" in out


def test_source_that_does_not_check_is_an_error(tmp_path, capsys):
    path = tmp_path / "bad.tri"
    path.write_text("module bad\n\npub fn f() -> Field {\n    x\n}\n")
    code, out, err = tri(capsys, "doc", path)
    assert code == 2 and out == "" and "error[E0103]" in err
