{
  # c_syntax: the C grammar's parser and tree-sitter's runtime, compiled natively with the walk
  # that flattens a syntax tree into one Int32Array (c_syntax.c). Sources come from the npm
  # packages: tree-sitter (its vendored runtime; its own Node binding is not built) and tree-sitter-c.
  # bpe_count: exact o200k_base counts of ASCII texts over bpe-counter.ts's tables (bpe_count.c).
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
  }, {
    "target_name": "bpe_count",
    "sources": ["bpe_count.c"],
    "cflags": ["-std=c11", "-fvisibility=hidden"]
  }]
}
