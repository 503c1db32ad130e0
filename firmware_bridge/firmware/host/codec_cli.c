/* The firmware's frame codec, compiled for the host, driven by text lines on stdin (tests):
 *   enc SEQ ID PAYLOADHEX   ->  FRAMEHEX                    (PAYLOADHEX "-" for none)
 *   dec STREAMHEX           ->  one "SEQ ID PAYLOADHEX" line per frame, then
 *                               "end dropped=N crc_errors=M"
 * Numbers are decimal; hex is upper case without spaces. */
#include <stdio.h>
#include <string.h>

#include "../codec.h"

static int unhex(const char *s, uint8_t *out, int max)
{
    int n = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    while (s[0] && s[1] && n < max) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            return -1;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void puthex(const uint8_t *data, int len)
{
    if (len == 0)
        fputs("-", stdout);
    for (int i = 0; i < len; i++)
        printf("%02X", data[i]);
}

int main(void)
{
    static char line[8192], arg[8192];
    static uint8_t bytes[4096];
    while (fgets(line, sizeof line, stdin)) {
        unsigned seq, id;
        if (sscanf(line, "enc %u %u %8191s", &seq, &id, arg) == 3) {
            int len = unhex(arg, bytes, FRAME_MAX_PAYLOAD + 1);
            uint8_t frame[FRAME_MAX];
            uint8_t n = len < 0 ? 0 : frame_encode(frame, (uint8_t)seq, (uint8_t)id, bytes, (uint8_t)len);
            if (n == 0)
                fputs("error", stdout);
            puthex(frame, n);
            putchar('\n');
        } else if (sscanf(line, "dec %8191s", arg) == 1) {
            int len = unhex(arg, bytes, sizeof bytes);
            struct frame_decoder d;
            struct frame f;
            decoder_init(&d);
            for (int i = 0; i < len; i++) {
                decoder_push(&d, bytes[i]);
                while (decoder_next(&d, &f)) {
                    printf("%u %u ", f.seq, f.id);
                    puthex(f.payload, f.len);
                    putchar('\n');
                }
            }
            printf("end dropped=%u crc_errors=%u\n", d.dropped, d.crc_errors);
        } else {
            printf("error unknown line\n");
        }
        fflush(stdout);
    }
    return 0;
}
