// Vector kernels of the JSON locator (SDK/Sources/ReformSDK/JSON/JSONProjection.swift calls them):
// the UTF-8 check is Keiser and Lemire's lookup algorithm ("Validating UTF-8 In Less Than One
// Instruction Per Byte", 2021), as simdjson runs it.

#include "CJSONVector.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,bmi")))

static int avx2_state = -1;

int reform_json_vector_available(void) {
    int state = __atomic_load_n(&avx2_state, __ATOMIC_RELAXED);
    if (state < 0) {
        __builtin_cpu_init();
        const char *setting = getenv("REFORM_JSON_VECTOR");
        const int off = setting && strcmp(setting, "off") == 0;
        state = !off && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") ? 1 : 0;
        __atomic_store_n(&avx2_state, state, __ATOMIC_RELAXED);
    }
    return state;
}

/// The UTF-8 check's state between 32-byte chunks.
typedef struct {
    __m256i error;
    __m256i previous;
    /// Non-zero where the previous chunk ends inside a multi-byte sequence.
    __m256i incomplete;
} utf8_check;

/// The chunk `input` with the last `n` bytes of `previous` before it (bytes shifted in by n).
#define SHIFTED_IN(input, previous, n) \
    _mm256_alignr_epi8((input), _mm256_permute2x128_si256((previous), (input), 0x21), 16 - (n))

AVX2 static inline __m256i high_nibbles(__m256i v) {
    return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F));
}

// Each lookup flags what a pair of bytes may be wrong about; a pair is wrong when all three agree.
enum {
    TOO_SHORT = 1 << 0,  // a lead byte or ASCII followed by a lead byte or ASCII, after a lead
    TOO_LONG = 1 << 1,  // ASCII followed by a continuation
    OVERLONG_3 = 1 << 2,  // 11100000 100_____
    TOO_LARGE = 1 << 3,  // past U+10FFFF
    SURROGATE = 1 << 4,  // 11101101 101_____
    OVERLONG_2 = 1 << 5,  // 1100000_ 10______
    TOO_LARGE_1000 = 1 << 6,  // 11110101 1000____ and above
    OVERLONG_4 = 1 << 6,  // 11110000 1000____
    TWO_CONTINUATIONS = 1 << 7,  // 10______ 10______
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS,
};

/// Checks the 32 bytes `input`, the chunk after the one `check` last saw.
AVX2 static inline void check_utf8(utf8_check *check, __m256i input) {
    if (_mm256_movemask_epi8(input) == 0) {
        // All ASCII: only a sequence left open by the chunk before is wrong.
        check->error = _mm256_or_si256(check->error, check->incomplete);
        check->incomplete = _mm256_setzero_si256();
        check->previous = input;
        return;
    }
    const char continuations = (char)TWO_CONTINUATIONS;
    const __m256i first_high = _mm256_setr_epi8(
        TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
        continuations, continuations, continuations, continuations,
        TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
        continuations, continuations, continuations, continuations,
        TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4);
    const char large = (char)(CARRY | TOO_LARGE | TOO_LARGE_1000);
    const char carry = (char)CARRY;
    const __m256i first_low = _mm256_setr_epi8(
        (char)(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), (char)(CARRY | OVERLONG_2), carry, carry,
        (char)(CARRY | TOO_LARGE), large, large, large, large, large, large, large, large,
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE), large, large,
        (char)(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), (char)(CARRY | OVERLONG_2), carry, carry,
        (char)(CARRY | TOO_LARGE), large, large, large, large, large, large, large, large,
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE), large, large);
    const char continuation_8 = (char)(TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4);
    const char continuation_9 = (char)(TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE);
    const char continuation_ab = (char)(TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE);
    const __m256i second_high = _mm256_setr_epi8(
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
        continuation_8, continuation_9, continuation_ab, continuation_ab, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
        continuation_8, continuation_9, continuation_ab, continuation_ab, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT);
    const __m256i previous1 = SHIFTED_IN(input, check->previous, 1);
    const __m256i special = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_shuffle_epi8(first_high, high_nibbles(previous1)),
            _mm256_shuffle_epi8(first_low, _mm256_and_si256(previous1, _mm256_set1_epi8(0x0F)))),
        _mm256_shuffle_epi8(second_high, high_nibbles(input)));
    // The third byte of a 3- or 4-byte sequence and the fourth of a 4-byte one must be continuations.
    const __m256i previous2 = SHIFTED_IN(input, check->previous, 2);
    const __m256i previous3 = SHIFTED_IN(input, check->previous, 3);
    const __m256i third = _mm256_subs_epu8(previous2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    const __m256i fourth = _mm256_subs_epu8(previous3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    const __m256i must_continue = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    check->error = _mm256_or_si256(check->error, _mm256_xor_si256(must_continue, special));
    const __m256i last_leads = _mm256_setr_epi8(
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
    check->incomplete = _mm256_subs_epu8(input, last_leads);
    check->previous = input;
}

/// `bytes` with those from index `count` (at most 32) on replaced by spaces.
AVX2 static inline __m256i keep_first(__m256i bytes, size_t count) {
    const __m256i index = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    const __m256i inside = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)count), index);
    return _mm256_blendv_epi8(_mm256_set1_epi8(' '), bytes, inside);
}

/// The 32 bytes at `at`, those from `available` on replaced by spaces. Reads all 32 when they lie
/// in one page with the first (a read cannot fault inside a page that holds readable bytes);
/// otherwise copies the bytes first.
__attribute__((no_sanitize("address"))) AVX2 static inline __m256i load_partial(const uint8_t *at, size_t available) {
    __m256i bytes;
    if (((uintptr_t)at & 4095) <= 4096 - 32) {
        bytes = _mm256_loadu_si256((const __m256i *)at);
    } else {
        uint8_t copy[32];
        memcpy(copy, at, available);
        bytes = _mm256_loadu_si256((const __m256i *)copy);
    }
    return keep_first(bytes, available);
}

static inline int is_hex(uint8_t c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

AVX2 static long skip_string(const uint8_t *bytes, size_t length, size_t i, int *escaped) {
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i control_top = _mm256_set1_epi8(0x1F);
    utf8_check check = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    while (i < length) {
        const size_t available = length - i;
        const __m256i chunk =
            available >= 32 ? _mm256_loadu_si256((const __m256i *)(bytes + i)) : load_partial(bytes + i, available);
        const uint32_t stops = (uint32_t)_mm256_movemask_epi8(
            _mm256_or_si256(_mm256_cmpeq_epi8(chunk, quote), _mm256_cmpeq_epi8(chunk, backslash)));
        const uint32_t control =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(chunk, control_top), control_top));
        if (stops == 0) {
            // Padding is spaces: a chunk past the end has no stop, and the string is not closed.
            if (control || available <= 32) return -1;
            check_utf8(&check, chunk);
            i += 32;
            continue;
        }
        const unsigned stop = _tzcnt_u32(stops);
        if (control & ((1u << stop) - 1)) return -1;
        // The bytes before the stop, then spaces: a sequence the stop cuts is too short.
        check_utf8(&check, keep_first(chunk, stop));
        check.error = _mm256_or_si256(check.error, check.incomplete);
        if (!_mm256_testz_si256(check.error, check.error)) return -1;
        const size_t at = i + stop;
        if (bytes[at] == '"') return (long)(at + 1);
        *escaped = 1;
        if (at + 1 >= length) return -1;
        switch (bytes[at + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            i = at + 2;
            break;
        case 'u':
            if (at + 5 >= length || !is_hex(bytes[at + 2]) || !is_hex(bytes[at + 3]) || !is_hex(bytes[at + 4])
                || !is_hex(bytes[at + 5])) {
                return -1;
            }
            i = at + 6;
            break;
        default:
            return -1;
        }
        // An escape is ASCII: the check starts again after it.
        check.previous = _mm256_setzero_si256();
        check.incomplete = _mm256_setzero_si256();
    }
    return -1;
}

long reform_json_skip_string(const uint8_t *bytes, size_t length, size_t from, int *escaped) {
    if (!reform_json_vector_available()) return -1;
    return skip_string(bytes, length, from, escaped);
}

#else

int reform_json_vector_available(void) { return 0; }

long reform_json_skip_string(const uint8_t *bytes, size_t length, size_t from, int *escaped) {
    (void)bytes;
    (void)length;
    (void)from;
    (void)escaped;
    return -1;
}

#endif
