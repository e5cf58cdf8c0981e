// Parses C with tree-sitter's runtime and the C grammar, natively, and hands the syntax tree to
// JavaScript as one Int32Array: one record per node in document order (see flat-tree.ts), made by
// a single cursor walk here instead of one call per node from JavaScript. It is the same runtime
// and grammar as the WebAssembly build, so the records are the nodes web-tree-sitter's cursor
// visits; flat-tree.spec.ts compares the extractions of both.
//
// exports.parse(text: string, ranges: Int32Array | null, timeoutMs: number): Int32Array | null
//   ranges: 6 numbers per included range (start and end index in UTF-16 code units, then start
//   row, start column, end row, end column; columns in code units); null parses the whole text.
//   Returns null when the parse ran past timeoutMs. Offsets in the records are code units, as
//   web-tree-sitter's, because the text is parsed as UTF-16 like there.

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_c(void);

// Fields of a record (RECORD_SIZE int32 each); flat-tree.ts reads the same layout.
enum { TYPE_ID, FIELD_ID, START, END, NEXT, PARENT, FLAGS, RECORD_SIZE };
enum { NAMED = 1, HAS_ERROR = 2, MISSING = 4, EXTRA = 8 };

// One per JavaScript environment (the main thread and each worker thread have their own).
typedef struct {
  TSParser *parser;
  uint16_t *text;
  size_t text_capacity;
  int32_t *records;
  size_t record_capacity; // in records
  int32_t *stack;         // record index of each open ancestor during the walk
  size_t stack_capacity;
} State;

typedef struct {
  const char *bytes;
  uint32_t length;
} Source;

typedef struct {
  struct timespec deadline;
} Deadline;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  State *state = data;
  ts_parser_delete(state->parser);
  free(state->text);
  free(state->records);
  free(state->stack);
  free(state);
}

static const char *read_source(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read) {
  (void)position;
  const Source *source = payload;
  if (byte_index >= source->length) {
    *bytes_read = 0;
    return "";
  }
  *bytes_read = source->length - byte_index;
  return source->bytes + byte_index;
}

static bool past_deadline(TSParseState *parse_state) {
  const Deadline *deadline = parse_state->payload;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->deadline.tv_sec || (now.tv_sec == deadline->deadline.tv_sec && now.tv_nsec > deadline->deadline.tv_nsec);
}

static bool grow(void **buffer, size_t *capacity, size_t needed, size_t item_size) {
  if (needed <= *capacity) return true;
  size_t next = *capacity == 0 ? 4096 : *capacity;
  while (next < needed) next *= 2;
  void *grown = realloc(*buffer, next * item_size);
  if (grown == NULL) return false;
  *buffer = grown;
  *capacity = next;
  return true;
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

/** The tree as records; the count is returned, or -1 when memory ran out. */
static int64_t flatten(State *state, TSTree *tree) {
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  size_t count = 0;
  size_t depth = 0;
  int64_t result = -1;
  for (;;) {
    if (!grow((void **)&state->records, &state->record_capacity, count + 1, RECORD_SIZE * sizeof(int32_t))) goto done;
    if (!grow((void **)&state->stack, &state->stack_capacity, depth + 1, sizeof(int32_t))) goto done;
    TSNode node = ts_tree_cursor_current_node(&cursor);
    int32_t *record = state->records + count * RECORD_SIZE;
    record[TYPE_ID] = ts_node_symbol(node);
    record[FIELD_ID] = ts_tree_cursor_current_field_id(&cursor);
    record[START] = (int32_t)(ts_node_start_byte(node) >> 1);
    record[END] = (int32_t)(ts_node_end_byte(node) >> 1);
    record[NEXT] = 0;
    record[PARENT] = depth == 0 ? -1 : state->stack[depth - 1];
    record[FLAGS] = (ts_node_is_named(node) ? NAMED : 0) | (ts_node_has_error(node) ? HAS_ERROR : 0) | (ts_node_is_missing(node) ? MISSING : 0) |
                    (ts_node_is_extra(node) ? EXTRA : 0);
    state->stack[depth] = (int32_t)count;
    count++;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      depth++;
      continue;
    }
    // The node and each ancestor whose last child this was end here.
    for (;;) {
      state->records[(size_t)state->stack[depth] * RECORD_SIZE + NEXT] = (int32_t)count;
      if (ts_tree_cursor_goto_next_sibling(&cursor)) break;
      if (depth == 0 || !ts_tree_cursor_goto_parent(&cursor)) {
        result = (int64_t)count;
        goto done;
      }
      depth--;
    }
  }
done:
  ts_tree_cursor_delete(&cursor);
  return result;
}

static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) return fail(env, "parse(text, ranges, timeoutMs)");
  State *state;
  if (napi_get_instance_data(env, (void **)&state) != napi_ok || state == NULL) return fail(env, "c_syntax is not initialized");

  size_t length;
  if (napi_get_value_string_utf16(env, argv[0], NULL, 0, &length) != napi_ok) return fail(env, "the text must be a string");
  if (!grow((void **)&state->text, &state->text_capacity, length + 1, sizeof(uint16_t))) return fail(env, "out of memory");
  napi_get_value_string_utf16(env, argv[0], (char16_t *)state->text, length + 1, &length);

  napi_valuetype ranges_type;
  napi_typeof(env, argv[1], &ranges_type);
  TSRange *ranges = NULL;
  uint32_t range_count = 0;
  if (ranges_type != napi_null && ranges_type != napi_undefined) {
    napi_typedarray_type array_type;
    size_t numbers;
    void *data;
    if (napi_get_typedarray_info(env, argv[1], &array_type, &numbers, &data, NULL, NULL) != napi_ok || array_type != napi_int32_array || numbers % 6 != 0)
      return fail(env, "ranges must be an Int32Array of 6 numbers per range");
    const int32_t *numbers_in = data;
    range_count = (uint32_t)(numbers / 6);
    ranges = malloc((range_count == 0 ? 1 : range_count) * sizeof(TSRange));
    if (ranges == NULL) return fail(env, "out of memory");
    for (uint32_t index = 0; index < range_count; index++) {
      const int32_t *range = numbers_in + index * 6;
      ranges[index] = (TSRange){
          .start_byte = (uint32_t)range[0] * 2,
          .end_byte = (uint32_t)range[1] * 2,
          .start_point = {(uint32_t)range[2], (uint32_t)range[3] * 2},
          .end_point = {(uint32_t)range[4], (uint32_t)range[5] * 2},
      };
    }
  }
  bool ranges_set = ts_parser_set_included_ranges(state->parser, ranges, range_count);
  free(ranges);
  if (!ranges_set) {
    ts_parser_set_included_ranges(state->parser, NULL, 0);
    return fail(env, "the included ranges overlap or are out of order");
  }

  double timeout_ms;
  if (napi_get_value_double(env, argv[2], &timeout_ms) != napi_ok) return fail(env, "timeoutMs must be a number");
  Deadline deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline.deadline);
  int64_t nanoseconds = deadline.deadline.tv_nsec + (int64_t)(timeout_ms * 1e6);
  deadline.deadline.tv_sec += nanoseconds / 1000000000;
  deadline.deadline.tv_nsec = nanoseconds % 1000000000;

  Source source = {(const char *)state->text, (uint32_t)(length * 2)};
  TSInput input = {.payload = &source, .read = read_source, .encoding = TSInputEncodingUTF16LE, .decode = NULL};
  TSParseOptions options = {.payload = &deadline, .progress_callback = past_deadline};
  TSTree *tree = ts_parser_parse_with_options(state->parser, NULL, input, options);
  ts_parser_set_included_ranges(state->parser, NULL, 0);
  if (tree == NULL) {
    // Halted by the deadline: the next parse starts afresh.
    ts_parser_reset(state->parser);
    napi_value nothing;
    napi_get_null(env, &nothing);
    return nothing;
  }
  int64_t count = flatten(state, tree);
  ts_tree_delete(tree);
  if (count < 0) return fail(env, "out of memory");

  napi_value buffer;
  napi_value array;
  void *bytes;
  size_t size = (size_t)count * RECORD_SIZE * sizeof(int32_t);
  if (napi_create_arraybuffer(env, size, &bytes, &buffer) != napi_ok) return fail(env, "out of memory");
  memcpy(bytes, state->records, size);
  napi_create_typedarray(env, napi_int32_array, (size_t)count * RECORD_SIZE, buffer, 0, &array);
  // The buffers of a large file are not kept for the next, small one.
  if (state->record_capacity > (1u << 20)) {
    free(state->records);
    state->records = NULL;
    state->record_capacity = 0;
  }
  if (state->text_capacity > (1u << 22)) {
    free(state->text);
    state->text = NULL;
    state->text_capacity = 0;
  }
  return array;
}

NAPI_MODULE_INIT() {
  State *state = calloc(1, sizeof(State));
  if (state == NULL) return NULL;
  state->parser = ts_parser_new();
  if (state->parser == NULL || !ts_parser_set_language(state->parser, tree_sitter_c())) {
    free(state);
    napi_throw_error(env, NULL, "the C grammar does not fit this tree-sitter runtime");
    return NULL;
  }
  napi_set_instance_data(env, state, free_state, NULL);
  napi_value function;
  napi_create_function(env, "parse", NAPI_AUTO_LENGTH, parse, NULL, &function);
  napi_set_named_property(env, exports, "parse", function);
  napi_value record_size;
  napi_create_int32(env, RECORD_SIZE, &record_size);
  napi_set_named_property(env, exports, "recordSize", record_size);
  return exports;
}
