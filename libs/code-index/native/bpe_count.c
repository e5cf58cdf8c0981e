// Exact o200k_base token counts of ASCII texts, natively: the same pieces and merges as
// bpe-counter.ts (whose tables it reads, shared with JavaScript, never copied), at a few times its
// speed. A text with any character past U+007F is left to bpe-counter.ts (the answer is -1): the
// pre-tokenizer's Unicode classes and gpt-tokenizer's UTF-8 quirks live there only.
// bpe-counter.spec.ts checks the counts against gpt-tokenizer's on this repository, a fuzz and Linux.
//
// exports.createCounter(shortSlots: Int32Array, longSlots: Int32Array, longPool: Uint8Array,
//                       longOffsets: Int32Array, longValues: Int32Array, pairs: Int32Array,
//                       maxLength: number): object  (holds the arrays while it lives)
// exports.countAscii(counter: object, text: string): number  (-1: not ASCII)

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PACKED 8
#define LONG_MERGE 96
#define INFINITE_RANK 0x7fffffff
#define RECENT_BITS 15
#define LONG_CACHE_BITS 12
#define LONG_CACHE_KEY 64
#define ARRAYS 6

enum { K_LOWER = 1, K_UPPER = 2, K_DIGIT = 3, K_NEWLINE = 4, K_SPACE = 5, K_OTHER = 6 };

typedef struct {
  uint32_t hash;
  uint32_t length;
  int64_t count;
  uint8_t bytes[LONG_CACHE_KEY];
} LongCount;

typedef struct {
  const int32_t *short_slots;
  uint32_t short_mask;
  const int32_t *long_slots;
  uint32_t long_mask;
  const uint8_t *long_pool;
  const int32_t *long_offsets;
  const int32_t *long_values;
  const int32_t *pairs;
  int32_t max_length;
  napi_ref arrays[ARRAYS];
  // Counts of recent pieces of up to 8 bytes, direct-mapped: [low, high, (count << 4) | length].
  // Code repeats its pieces: most end here, before the vocabulary's megabytes are touched.
  int32_t recent[3 << RECENT_BITS];
  // Counts of recent longer pieces that are no token (up to LONG_CACHE_KEY bytes), direct-mapped.
  LongCount long_counts[1 << LONG_CACHE_BITS];
  uint8_t *text;
  size_t text_capacity;
  int32_t *starts;
  int32_t *ranks;
  size_t merge_capacity;
} Counter;

static uint8_t kinds[128];

static void init_kinds(void) {
  for (int c = 0; c < 128; c++) {
    if (c >= 'a' && c <= 'z') kinds[c] = K_LOWER;
    else if (c >= 'A' && c <= 'Z') kinds[c] = K_UPPER;
    else if (c >= '0' && c <= '9') kinds[c] = K_DIGIT;
    else if (c == '\n' || c == '\r') kinds[c] = K_NEWLINE;
    // JavaScript's \s in ASCII: tab, vertical tab, form feed, space (and the newlines above).
    else if (c == '\t' || c == '\v' || c == '\f' || c == ' ') kinds[c] = K_SPACE;
    else kinds[c] = K_OTHER;
  }
}

// ---- The pre-tokenizer: where the o200k_base piece starting at i ends (bpe-counter.ts's o200kPieceEnd on ASCII).

static size_t contraction(const uint8_t *t, size_t i, size_t length) {
  if (i + 1 >= length || t[i] != 0x27) return i;
  uint8_t c = t[i + 1] | 0x20;
  if (c == 0x73 || c == 0x64 || c == 0x6d || c == 0x74) return i + 2;
  if (i + 2 >= length) return i;
  uint8_t d = t[i + 2] | 0x20;
  if ((c == 0x6c && d == 0x6c) || (c == 0x76 && d == 0x65) || (c == 0x72 && d == 0x65)) return i + 3;
  return i;
}

static size_t digits(const uint8_t *t, size_t i, size_t length) {
  size_t p = i + 1;
  for (int n = 1; n < 3 && p < length && kinds[t[p]] == K_DIGIT; n++) p++;
  return p;
}

/** `[^\s\p{L}\p{N}]+[\r\n/]*` from i. */
static size_t punctuation(const uint8_t *t, size_t i, size_t length) {
  size_t p = i;
  while (p < length && kinds[t[p]] == K_OTHER) p++;
  while (p < length && (t[p] == '\n' || t[p] == '\r' || t[p] == '/')) p++;
  return p;
}

/** `\s*[\r\n]+`, else `\s+(?!\S)`, else `\s+` from i. */
static size_t whitespace(const uint8_t *t, size_t i, size_t length) {
  size_t q = i;
  size_t after_last_newline = 0;
  bool newline = false;
  size_t count = 0;
  while (q < length && (kinds[t[q]] == K_SPACE || kinds[t[q]] == K_NEWLINE)) {
    q++;
    count++;
    if (kinds[t[q - 1]] == K_NEWLINE) {
      after_last_newline = q;
      newline = true;
    }
  }
  if (newline) return after_last_newline;
  if (q == length) return q;
  return count >= 2 ? q - 1 : q;
}

static size_t piece_end(const uint8_t *t, size_t i, size_t length) {
  uint8_t c0 = t[i];
  int kind = kinds[c0];
  size_t q = i + 1;
  if (kind >= K_SPACE) {
    if (q >= length) return q;
    int next = kinds[t[q]];
    if (next > K_UPPER) {
      if (next == K_OTHER && c0 == 0x20) return punctuation(t, q, length);
      return kind == K_SPACE ? whitespace(t, i, length) : punctuation(t, i, length);
    }
    // A prefix, then letters.
    kind = next;
    q++;
  } else if (kind == K_DIGIT) {
    return digits(t, i, length);
  } else if (kind == K_NEWLINE) {
    return whitespace(t, i, length);
  }
  if (kind == K_UPPER) {
    while (q < length && kinds[t[q]] == K_UPPER) q++;
    if (q < length && kinds[t[q]] == K_LOWER) kind = K_LOWER;
  }
  if (kind == K_LOWER)
    while (q < length && kinds[t[q]] == K_LOWER) q++;
  if (q < length && t[q] == 0x27) return contraction(t, q, length);
  return q;
}

// ---- The vocabulary's tables, as bpe-counter.ts builds and saves them.

static inline uint32_t packed_hash(uint32_t low, uint32_t high, uint32_t length) {
  uint32_t h = ((low ^ (length << 28)) * 0x9e3779b1u) ^ (high * 0x85ebca6bu);
  h ^= h >> 15;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 13);
}

static inline void pack(const uint8_t *bytes, size_t n, uint32_t *low, uint32_t *high) {
  uint32_t l = 0, h = 0;
  size_t k = 0;
  for (; k < n && k < 4; k++) l |= (uint32_t)bytes[k] << (8 * k);
  for (; k < n; k++) h |= (uint32_t)bytes[k] << (8 * (k - 4));
  *low = l;
  *high = h;
}

static int32_t short_rank(const Counter *counter, uint32_t low, uint32_t high, uint32_t length) {
  const int32_t *slots = counter->short_slots;
  uint32_t slot = packed_hash(low, high, length) & counter->short_mask;
  for (;;) {
    const int32_t *entry = slots + 3 * (size_t)slot;
    int32_t meta = entry[2];
    if (meta == 0) return -1;
    if (((uint32_t)meta & 15) == length && entry[0] == (int32_t)low && entry[1] == (int32_t)high) return (int32_t)((uint32_t)meta >> 4);
    slot = (slot + 1) & counter->short_mask;
  }
}

/** `h`: the key's FNV-1a hash, folded as bpe-counter.ts's hashBytes folds it. */
static int32_t long_rank(const Counter *counter, const uint8_t *bytes, size_t n, uint32_t h) {
  const int32_t *slots = counter->long_slots;
  uint32_t slot = h & counter->long_mask;
  for (;;) {
    int32_t entry = slots[2 * (size_t)slot + 1];
    if (entry == 0) return -1;
    if (slots[2 * (size_t)slot] == (int32_t)h) {
      int32_t offset = counter->long_offsets[entry - 1];
      if ((size_t)(counter->long_offsets[entry] - offset) == n && memcmp(counter->long_pool + offset, bytes, n) == 0) return counter->long_values[entry - 1];
    }
    slot = (slot + 1) & counter->long_mask;
  }
}

/** The rank of bytes[start, end), or INFINITE_RANK. */
static int32_t rank_of(const Counter *counter, const uint8_t *bytes, size_t start, size_t end) {
  size_t n = end - start;
  if (n == 2) return counter->pairs[(bytes[start] << 8) | bytes[start + 1]];
  int32_t rank;
  if (n <= PACKED) {
    uint32_t low, high;
    pack(bytes + start, n, &low, &high);
    rank = short_rank(counter, low, high, (uint32_t)n);
  } else if (n <= (size_t)counter->max_length) {
    uint32_t h = 0x811c9dc5u;
    for (size_t k = start; k < end; k++) h = (h ^ bytes[k]) * 0x01000193u;
    rank = long_rank(counter, bytes + start, n, h ^ (h >> 15));
  } else {
    return INFINITE_RANK;
  }
  return rank == -1 ? INFINITE_RANK : rank;
}

// ---- Merges: lowest rank first, the leftmost of equals (bpe-counter.ts's merge and mergeLong).

static bool reserve_merge(Counter *counter, size_t n) {
  if (n + 1 <= counter->merge_capacity) return true;
  size_t capacity = 2 * (n + 1);
  int32_t *starts = realloc(counter->starts, capacity * sizeof(int32_t));
  if (starts == NULL) return false;
  counter->starts = starts;
  int32_t *ranks = realloc(counter->ranks, capacity * sizeof(int32_t));
  if (ranks == NULL) return false;
  counter->ranks = ranks;
  counter->merge_capacity = capacity;
  return true;
}

static void heap_push(uint64_t *heap, size_t *size, uint64_t key) {
  size_t i = (*size)++;
  while (i > 0) {
    size_t parent = (i - 1) >> 1;
    if (heap[parent] <= key) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = key;
}

static uint64_t heap_pop(uint64_t *heap, size_t *size) {
  uint64_t top = heap[0];
  uint64_t last = heap[--(*size)];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= *size) break;
    if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
    if (heap[child] >= last) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = last;
  return top;
}

/** A long piece in O(n log n): parts as a linked list, candidate pairs in a heap of (rank, start). -1: out of memory. */
static int64_t merge_long(const Counter *counter, const uint8_t *bytes, size_t n) {
  int32_t *ends = malloc(n * sizeof(int32_t));
  int32_t *previous = malloc(n * sizeof(int32_t));
  int32_t *pair_ranks = malloc(n * sizeof(int32_t));
  uint64_t *heap = malloc(3 * n * sizeof(uint64_t));
  int64_t parts = -1;
  if (ends == NULL || previous == NULL || pair_ranks == NULL || heap == NULL) goto done;
  size_t heap_size = 0;
  for (size_t p = 0; p < n; p++) {
    ends[p] = (int32_t)p + 1;
    previous[p] = (int32_t)p - 1;
  }
  for (size_t p = 0; p + 1 < n; p++) {
    pair_ranks[p] = rank_of(counter, bytes, p, p + 2);
    if (pair_ranks[p] != INFINITE_RANK) heap_push(heap, &heap_size, ((uint64_t)pair_ranks[p] << 32) | p);
  }
  pair_ranks[n - 1] = INFINITE_RANK;
  parts = (int64_t)n;
  while (heap_size > 0) {
    uint64_t key = heap_pop(heap, &heap_size);
    int32_t rank = (int32_t)(key >> 32);
    int32_t p = (int32_t)(key & 0xffffffffu);
    if (ends[p] == -1 || pair_ranks[p] != rank) continue;
    int32_t q = ends[p];
    ends[p] = ends[q];
    ends[q] = -1;
    if ((size_t)ends[p] < n) previous[ends[p]] = p;
    parts--;
    pair_ranks[p] = (size_t)ends[p] < n ? rank_of(counter, bytes, (size_t)p, (size_t)ends[ends[p]]) : INFINITE_RANK;
    if (pair_ranks[p] != INFINITE_RANK) heap_push(heap, &heap_size, ((uint64_t)pair_ranks[p] << 32) | (uint32_t)p);
    int32_t o = previous[p];
    if (o >= 0) {
      pair_ranks[o] = rank_of(counter, bytes, (size_t)o, (size_t)ends[p]);
      if (pair_ranks[o] != INFINITE_RANK) heap_push(heap, &heap_size, ((uint64_t)pair_ranks[o] << 32) | (uint32_t)o);
    }
  }
done:
  free(ends);
  free(previous);
  free(pair_ranks);
  free(heap);
  return parts;
}

/** The tokens bytes[0, n) merge into; -1: out of memory. */
static int64_t merge(Counter *counter, const uint8_t *bytes, size_t n) {
  if (n <= 1) return (int64_t)n;
  if (n > LONG_MERGE) return merge_long(counter, bytes, n);
  if (!reserve_merge(counter, n)) return -1;
  int32_t *starts = counter->starts;
  int32_t *ranks = counter->ranks;
  for (size_t i = 0; i <= n; i++) starts[i] = (int32_t)i;
  for (size_t i = 0; i + 1 < n; i++) ranks[i] = rank_of(counter, bytes, i, i + 2);
  ranks[n - 1] = INFINITE_RANK;
  size_t parts = n;
  while (parts > 1) {
    int32_t lowest = INFINITE_RANK;
    size_t at = SIZE_MAX;
    for (size_t i = 0; i + 1 < parts; i++) {
      if (ranks[i] < lowest) {
        lowest = ranks[i];
        at = i;
      }
    }
    if (at == SIZE_MAX) break;
    for (size_t i = at + 1; i < parts; i++) {
      starts[i] = starts[i + 1];
      ranks[i - 1] = ranks[i];
    }
    parts--;
    ranks[at] = at + 2 <= parts ? rank_of(counter, bytes, (size_t)starts[at], (size_t)starts[at + 2]) : INFINITE_RANK;
    if (at > 0) ranks[at - 1] = rank_of(counter, bytes, (size_t)starts[at - 1], (size_t)starts[at + 1]);
  }
  return (int64_t)parts;
}

/** The tokens of one piece of text. */
static int64_t count_piece(Counter *counter, const uint8_t *piece, size_t n) {
  if (n == 1) return 1;
  if (n <= PACKED) {
    uint32_t low, high;
    pack(piece, n, &low, &high);
    uint32_t index = 3 * (((low ^ ((high ^ (uint32_t)n) * 0x85ebca6bu)) * 0x9e3779b1u) >> (32 - RECENT_BITS));
    int32_t *slot = counter->recent + index;
    if (((uint32_t)slot[2] & 15) == n && slot[0] == (int32_t)low && slot[1] == (int32_t)high) return (uint32_t)slot[2] >> 4;
    int64_t count = short_rank(counter, low, high, (uint32_t)n) != -1 ? 1 : merge(counter, piece, n);
    if (count < 0) return count;
    slot[0] = (int32_t)low;
    slot[1] = (int32_t)high;
    slot[2] = (int32_t)(((uint32_t)count << 4) | (uint32_t)n);
    return count;
  }
  uint32_t h = 0x811c9dc5u;
  for (size_t k = 0; k < n; k++) h = (h ^ piece[k]) * 0x01000193u;
  h ^= h >> 15;
  LongCount *cached = n <= LONG_CACHE_KEY ? &counter->long_counts[h >> (32 - LONG_CACHE_BITS)] : NULL;
  if (cached != NULL && cached->length == n && cached->hash == h && memcmp(cached->bytes, piece, n) == 0) return cached->count;
  int64_t count = n <= (size_t)counter->max_length && long_rank(counter, piece, n, h) != -1 ? 1 : merge(counter, piece, n);
  if (count > 0 && cached != NULL) {
    cached->hash = h;
    cached->length = (uint32_t)n;
    cached->count = count;
    memcpy(cached->bytes, piece, n);
  }
  return count;
}

// ---- Node-API.

static void free_counter(napi_env env, void *data, void *hint) {
  (void)hint;
  Counter *counter = data;
  for (int k = 0; k < ARRAYS; k++)
    if (counter->arrays[k] != NULL) napi_delete_reference(env, counter->arrays[k]);
  free(counter->text);
  free(counter->starts);
  free(counter->ranks);
  free(counter);
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

static bool typed_array(napi_env env, napi_value value, napi_typedarray_type expected, const void **data, size_t *length) {
  napi_typedarray_type type;
  void *pointer;
  if (napi_get_typedarray_info(env, value, &type, length, &pointer, NULL, NULL) != napi_ok || type != expected) return false;
  *data = pointer;
  return true;
}

static napi_value create_counter(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 7) return fail(env, "createCounter(shortSlots, longSlots, longPool, longOffsets, longValues, pairs, maxLength)");
  Counter *counter = calloc(1, sizeof(Counter));
  if (counter == NULL) return fail(env, "out of memory");
  size_t short_length, long_length, pool_length, offsets_length, values_length, pairs_length;
  const void *short_slots, *long_slots, *pool, *offsets, *values, *pairs;
  int32_t max_length;
  if (!typed_array(env, argv[0], napi_int32_array, &short_slots, &short_length) || !typed_array(env, argv[1], napi_int32_array, &long_slots, &long_length) ||
      !typed_array(env, argv[2], napi_uint8_array, &pool, &pool_length) || !typed_array(env, argv[3], napi_int32_array, &offsets, &offsets_length) ||
      !typed_array(env, argv[4], napi_int32_array, &values, &values_length) || !typed_array(env, argv[5], napi_int32_array, &pairs, &pairs_length) ||
      napi_get_value_int32(env, argv[6], &max_length) != napi_ok) {
    free(counter);
    return fail(env, "createCounter: the vocabulary's arrays, as bpe-counter.ts holds them");
  }
  size_t short_capacity = short_length / 3;
  size_t long_capacity = long_length / 2;
  // Open addressing with masks: capacities are powers of two; the pairs table covers every two bytes.
  if (short_capacity == 0 || (short_capacity & (short_capacity - 1)) != 0 || long_capacity == 0 || (long_capacity & (long_capacity - 1)) != 0 || pairs_length != 1 << 16) {
    free(counter);
    return fail(env, "createCounter: tables of an unexpected shape");
  }
  counter->short_slots = short_slots;
  counter->short_mask = (uint32_t)short_capacity - 1;
  counter->long_slots = long_slots;
  counter->long_mask = (uint32_t)long_capacity - 1;
  counter->long_pool = pool;
  counter->long_offsets = offsets;
  counter->long_values = values;
  counter->pairs = pairs;
  counter->max_length = max_length;
  napi_value object;
  napi_create_object(env, &object);
  // The arrays stay alive as long as the counter: it reads their memory.
  for (int k = 0; k < ARRAYS; k++) napi_create_reference(env, argv[k], 1, &counter->arrays[k]);
  if (napi_wrap(env, object, counter, free_counter, NULL, NULL) != napi_ok) {
    free_counter(env, counter, NULL);
    return fail(env, "createCounter: could not wrap the counter");
  }
  return object;
}

static napi_value count_ascii(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return fail(env, "countAscii(counter, text)");
  Counter *counter;
  if (napi_unwrap(env, argv[0], (void **)&counter) != napi_ok) return fail(env, "countAscii: not a counter");
  // The length in code units is known without reading the text (asking for the UTF-8 length
  // would read it once more). An ASCII text is as many UTF-8 bytes as code units, each below 0x80;
  // any other text either has such a byte in what fits, or fits fewer bytes (a character is never cut).
  size_t units;
  if (napi_get_value_string_utf16(env, argv[1], NULL, 0, &units) != napi_ok) return fail(env, "countAscii: the text must be a string");
  if (units + 1 > counter->text_capacity) {
    size_t capacity = units + 1 + (units >> 1);
    uint8_t *text = realloc(counter->text, capacity);
    if (text == NULL) return fail(env, "out of memory");
    counter->text = text;
    counter->text_capacity = capacity;
  }
  size_t length;
  napi_get_value_string_utf8(env, argv[1], (char *)counter->text, units + 1, &length);
  const uint8_t *text = counter->text;
  napi_value result;
  bool ascii = length == units;
  for (size_t k = 0; ascii && k < length; k++) ascii = text[k] < 0x80;
  if (!ascii) {
    napi_create_int32(env, -1, &result);
    return result;
  }
  int64_t tokens = 0;
  for (size_t i = 0; i < length;) {
    size_t end = piece_end(text, i, length);
    int64_t count = count_piece(counter, text + i, end - i);
    if (count < 0) return fail(env, "out of memory");
    tokens += count;
    i = end;
  }
  // A large text's buffer is not kept for the small ones that follow.
  if (counter->text_capacity > (1u << 22)) {
    free(counter->text);
    counter->text = NULL;
    counter->text_capacity = 0;
  }
  napi_create_double(env, (double)tokens, &result);
  return result;
}

NAPI_MODULE_INIT() {
  init_kinds();
  napi_value function;
  napi_create_function(env, "createCounter", NAPI_AUTO_LENGTH, create_counter, NULL, &function);
  napi_set_named_property(env, exports, "createCounter", function);
  napi_create_function(env, "countAscii", NAPI_AUTO_LENGTH, count_ascii, NULL, &function);
  napi_set_named_property(env, exports, "countAscii", function);
  return exports;
}
