/* b64.h - base64 (RFC 4648, with '=' padding) of the results block: the
 * guest agent prints it on a LAVA device's console, backend/lava_log.c
 * reads it back. Written here, by hand: the static agent cannot take
 * OpenSSL's encoder without growing fivefold (984 KB to 5.2 MB, measured),
 * and no small library offers base64. */
#ifndef KBENCH_B64_H
#define KBENCH_B64_H

#include <stddef.h>

/* The base64 of IN (N bytes) into OUT, which holds 4 * ((N + 2) / 3) + 1
 * bytes; '\0'-terminated. Its length. */
size_t b64_encode(const unsigned char *in, size_t n, char *out);
/* The value of base64 digit C, or -1. */
int b64_digit(char c);

#endif
