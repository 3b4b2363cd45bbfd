/* Sample for check-passes.sh: fixed-size image kernels (nested loops over
 * 2-D arrays, a 3x3 convolution, a matrix product, histogram), a CRC table,
 * run-length encoding with a state machine, a computed-goto interpreter
 * (indirectbr), an irreducible loop, a variadic logger and a recursive
 * flood fill: the loop-heavy counterpart of the other samples. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define W 32
#define H 24

typedef struct { uint8_t px[H][W]; int w, h; } image;

static uint32_t crc_table[256];
static int log_level = 1;

static void log_msg(int level, const char *fmt, ...) {
    if (level > log_level) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void crc_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static void fill_pattern(image *im, unsigned seed) {
    im->w = W; im->h = H;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1103515245u + 12345u;
            im->px[y][x] = (uint8_t)(((x ^ y) * 8 + (seed >> 24)) & 0xff);
        }
}

static void convolve3x3(const image *in, image *out, const int k[3][3], int div) {
    *out = *in;
    for (int y = 1; y < in->h - 1; y++)
        for (int x = 1; x < in->w - 1; x++) {
            int acc = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    acc += k[j + 1][i + 1] * in->px[y + j][x + i];
            acc /= div;
            out->px[y][x] = (uint8_t)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
        }
}

static void histogram(const image *im, unsigned hist[16]) {
    memset(hist, 0, 16 * sizeof hist[0]);
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            hist[im->px[y][x] >> 4]++;
}

static void matmul(int n, const float a[8][8], const float b[8][8], float c[8][8]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c[i][j] = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                c[i][j] += a[i][k] * b[k][j];
}

/* Run-length encodes SRC as (count, byte) pairs; returns bytes written. */
static size_t rle_encode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
    enum { START, RUN } state = START;
    size_t o = 0;
    uint8_t cur = 0, count = 0;
    for (size_t i = 0; i <= n; i++) {
        switch (state) {
        case START:
            if (i == n) return o;
            cur = src[i]; count = 1; state = RUN;
            break;
        case RUN:
            if (i < n && src[i] == cur && count < 255) { count++; break; }
            if (o + 2 > cap) return 0;
            dst[o++] = count; dst[o++] = cur;
            if (i == n) return o;
            cur = src[i]; count = 1;
            break;
        }
    }
    return o;
}

/* A tiny stack machine using GNU computed goto (indirectbr in IR). */
static int interpret(const uint8_t *code, int arg) {
    static void *const labels[] = {&&op_push, &&op_add, &&op_mul, &&op_dup, &&op_jnz, &&op_halt};
    int stack[16], sp = 0, pc = 0;
    stack[sp++] = arg;
#define NEXT goto *labels[code[pc++] % 6]
    NEXT;
op_push: stack[sp++] = code[pc++]; NEXT;
op_add: sp--; stack[sp - 1] += stack[sp]; NEXT;
op_mul: sp--; stack[sp - 1] *= stack[sp]; NEXT;
op_dup: stack[sp] = stack[sp - 1]; sp++; NEXT;
op_jnz: if (stack[--sp]) pc = code[pc]; else pc++; NEXT;
op_halt: return sp ? stack[sp - 1] : 0;
#undef NEXT
}

/* Two entries into one loop: irreducible control flow. */
static int irreducible(int n, int start_odd) {
    int acc = 0, i = 0;
    if (start_odd) goto odd;
even:
    acc += i * 2;
    if (++i >= n) return acc;
odd:
    acc ^= i;
    if (++i >= n) return acc;
    goto even;
}

static int flood(image *im, int x, int y, uint8_t from, uint8_t to) {
    if (x < 0 || y < 0 || x >= im->w || y >= im->h || im->px[y][x] != from || from == to)
        return 0;
    im->px[y][x] = to;
    return 1 + flood(im, x + 1, y, from, to) + flood(im, x - 1, y, from, to) +
           flood(im, x, y + 1, from, to) + flood(im, x, y - 1, from, to);
}

int main(void) {
    static image a, b;
    static const int blur[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
    static const uint8_t prog[] = {0, 3, 2, 0, 1, 1, 5};
    static float m1[8][8], m2[8][8], m3[8][8];
    unsigned hist[16];
    uint8_t rle[2 * W * H];

    crc_init();
    fill_pattern(&a, 42);
    convolve3x3(&a, &b, blur, 16);
    histogram(&b, hist);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) { m1[i][j] = (float)(i + j); m2[i][j] = (float)(i == j); }
    matmul(8, m1, m2, m3);
    size_t n = rle_encode(&b.px[0][0], sizeof b.px, rle, sizeof rle);
    int filled = flood(&b, W / 2, H / 2, b.px[H / 2][W / 2], 0);
    log_msg(1, "rle %zu bytes, filled %d\n", n, filled);
    printf("crc=%08x h0=%u m=%g vm=%d irr=%d\n", (unsigned)crc32(&b.px[0][0], sizeof b.px),
           hist[0], (double)m3[3][3], interpret(prog, 7), irreducible(10, 1));
    return 0;
}
