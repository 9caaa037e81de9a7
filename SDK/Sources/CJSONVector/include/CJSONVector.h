#ifndef REFORM_CJSONVECTOR_H
#define REFORM_CJSONVECTOR_H

#include <stddef.h>
#include <stdint.h>

/// Whether this machine runs the vector kernels (x86-64 with AVX2 and BMI1, and the environment
/// variable REFORM_JSON_VECTOR not set to `off`, read once); when it does not, they answer -1 and
/// the caller reads the bytes one at a time.
int reform_json_vector_available(void);

/// Skips the rest of a JSON string, 32 bytes at a time, checking it as the parser does: UTF-8 as
/// Unicode's table 3-7 (no overlong forms, surrogates or code points past U+10FFFF), no byte below
/// 0x20, every backslash starting a valid escape (`\" \\ \/ \b \f \n \r \t`, or `\u` and four hex
/// digits).
///
/// `from` is where to start in `bytes[0..<length]`: after the string's opening quote, or at any
/// later byte that starts a character (not inside a UTF-8 sequence or an escape). Returns the
/// index after the closing quote, and sets `*escaped` to 1 when a backslash came before it (and
/// leaves it alone otherwise); -1 when the string is invalid or not closed, or the machine lacks
/// the kernel: the caller then reads it byte by byte, which says why.
long reform_json_skip_string(const uint8_t *bytes, size_t length, size_t from, int *escaped);

#endif
