"""`tri lsp`: a language server for `.tri` files, on pygls (the `lsp` extra).

The modules, each with one job:

* `positions` -- places as the compiler counts them (1-based, characters, "\\n" lines)
  and as the protocol does (0-based, UTF-16 code units unless agreed otherwise);
* `analysis` -- the settings `tri check` would use for a file, and one check of a
  buffer's text through the pipeline's front end;
* `navigation` -- what the name under the cursor refers to, and where it is declared;
* `hover` -- the hover text: a declaration, its comment, a function's estimated cost and
  stack budget;
* `outline` -- document symbols, and the members of a module for completion after `m.`;
* `server` -- the protocol's handlers on a pygls `LanguageServer`.

`server` needs pygls, and `positions`, `outline` and `server` its protocol types
(lsprotocol, which pygls brings); `tri.commands.lsp` imports them only when the server
starts, and says how to install them when they are missing.
"""
