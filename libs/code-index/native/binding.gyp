{
  # The C grammar's parser and tree-sitter's runtime, compiled natively with the walk that flattens
  # a syntax tree into one Int32Array (c_syntax.c). Sources come from the npm packages:
  # tree-sitter (its vendored runtime; its own Node binding is not built) and tree-sitter-c.
  "targets": [{
    "target_name": "c_syntax",
    "sources": [
      "c_syntax.c",
      "../../../node_modules/tree-sitter/vendor/tree-sitter/lib/src/lib.c",
      "../../../node_modules/tree-sitter-c/src/parser.c"
    ],
    "include_dirs": [
      "../../../node_modules/tree-sitter/vendor/tree-sitter/lib/include",
      "../../../node_modules/tree-sitter/vendor/tree-sitter/lib/src",
      "../../../node_modules/tree-sitter-c/src"
    ],
    "cflags": ["-std=c11", "-fvisibility=hidden"],
    "defines": ["_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE"]
  }]
}
