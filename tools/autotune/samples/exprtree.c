/* Sample for check-passes.sh: a recursive-descent expression parser that
 * builds a tree, an evaluator with a visitor table of function pointers,
 * a constant folder, and an arena allocator. Recursion, unions, switch over
 * enums, setjmp-free error propagation through return codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_NUM, K_VAR, K_ADD, K_SUB, K_MUL, K_DIV, K_NEG, K_CALL, K_COUNT };

struct node {
    enum kind kind;
    union {
        double num;
        char var;
        struct { struct node *l, *r; } bin;
        struct { struct node *arg; int fn; } call;
    } u;
};

struct arena {
    struct node pool[512];
    int used;
};

struct parser {
    const char *p;
    struct arena *a;
    int error;
};

static struct node *new_node(struct parser *ps, enum kind k) {
    if (ps->a->used >= (int)(sizeof ps->a->pool / sizeof ps->a->pool[0])) {
        ps->error = 1;
        return NULL;
    }
    struct node *n = &ps->a->pool[ps->a->used++];
    memset(n, 0, sizeof *n);
    n->kind = k;
    return n;
}

static void skip_ws(struct parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static struct node *parse_expr(struct parser *ps);

static const char *const fn_names[] = {"abs", "sq", "half"};

static struct node *parse_primary(struct parser *ps) {
    skip_ws(ps);
    char c = *ps->p;
    if (c >= '0' && c <= '9') {
        double v = 0;
        while (*ps->p >= '0' && *ps->p <= '9')
            v = v * 10 + (*ps->p++ - '0');
        if (*ps->p == '.') {
            double scale = 0.1;
            for (ps->p++; *ps->p >= '0' && *ps->p <= '9'; ps->p++, scale /= 10)
                v += (*ps->p - '0') * scale;
        }
        struct node *n = new_node(ps, K_NUM);
        if (n) n->u.num = v;
        return n;
    }
    if (c == '(') {
        ps->p++;
        struct node *n = parse_expr(ps);
        skip_ws(ps);
        if (*ps->p != ')') { ps->error = 1; return NULL; }
        ps->p++;
        return n;
    }
    if (c == '-') {
        ps->p++;
        struct node *n = new_node(ps, K_NEG);
        if (n) n->u.bin.l = parse_primary(ps);
        return n;
    }
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(fn_names[i]);
        if (strncmp(ps->p, fn_names[i], len) == 0 && ps->p[len] == '(') {
            ps->p += len;
            struct node *n = new_node(ps, K_CALL);
            if (!n) return NULL;
            n->u.call.fn = i;
            n->u.call.arg = parse_primary(ps);
            return n;
        }
    }
    if (c >= 'a' && c <= 'z') {
        struct node *n = new_node(ps, K_VAR);
        if (n) n->u.var = *ps->p++;
        return n;
    }
    ps->error = 1;
    return NULL;
}

static struct node *parse_term(struct parser *ps) {
    struct node *l = parse_primary(ps);
    for (;;) {
        skip_ws(ps);
        char c = *ps->p;
        if (ps->error || (c != '*' && c != '/'))
            return l;
        ps->p++;
        struct node *n = new_node(ps, c == '*' ? K_MUL : K_DIV);
        if (!n) return NULL;
        n->u.bin.l = l;
        n->u.bin.r = parse_primary(ps);
        l = n;
    }
}

static struct node *parse_expr(struct parser *ps) {
    struct node *l = parse_term(ps);
    for (;;) {
        skip_ws(ps);
        char c = *ps->p;
        if (ps->error || (c != '+' && c != '-'))
            return l;
        ps->p++;
        struct node *n = new_node(ps, c == '+' ? K_ADD : K_SUB);
        if (!n) return NULL;
        n->u.bin.l = l;
        n->u.bin.r = parse_term(ps);
        l = n;
    }
}

typedef double (*eval_fn)(const struct node *, const double *env);
static double eval(const struct node *n, const double *env);

static double ev_num(const struct node *n, const double *env) { return n->u.num; }
static double ev_var(const struct node *n, const double *env) { return env[n->u.var - 'a']; }
static double ev_add(const struct node *n, const double *env) { return eval(n->u.bin.l, env) + eval(n->u.bin.r, env); }
static double ev_sub(const struct node *n, const double *env) { return eval(n->u.bin.l, env) - eval(n->u.bin.r, env); }
static double ev_mul(const struct node *n, const double *env) { return eval(n->u.bin.l, env) * eval(n->u.bin.r, env); }
static double ev_div(const struct node *n, const double *env) {
    double d = eval(n->u.bin.r, env);
    return d == 0 ? 0 : eval(n->u.bin.l, env) / d;
}
static double ev_neg(const struct node *n, const double *env) { return -eval(n->u.bin.l, env); }
static double ev_call(const struct node *n, const double *env) {
    double x = eval(n->u.call.arg, env);
    switch (n->u.call.fn) {
    case 0: return x < 0 ? -x : x;
    case 1: return x * x;
    case 2: return x / 2;
    default: return 0;
    }
}

static const eval_fn evaluators[K_COUNT] = {ev_num, ev_var, ev_add, ev_sub,
                                            ev_mul, ev_div, ev_neg, ev_call};

static double eval(const struct node *n, const double *env) {
    return n ? evaluators[n->kind](n, env) : 0;
}

/* Folds constant subtrees in place; returns 1 if N is now a constant. */
static int fold(struct node *n) {
    if (!n) return 0;
    switch (n->kind) {
    case K_NUM: return 1;
    case K_VAR: return 0;
    case K_NEG: case K_CALL:
        if (!fold(n->kind == K_NEG ? n->u.bin.l : n->u.call.arg)) return 0;
        break;
    default:
        if (!(fold(n->u.bin.l) & fold(n->u.bin.r))) return 0;
    }
    double v = eval(n, NULL);
    n->kind = K_NUM;
    n->u.num = v;
    return 1;
}

static int depth(const struct node *n) {
    if (!n || n->kind == K_NUM || n->kind == K_VAR) return 1;
    int l = depth(n->kind == K_CALL ? n->u.call.arg : n->u.bin.l);
    int r = (n->kind >= K_ADD && n->kind <= K_DIV) ? depth(n->u.bin.r) : 0;
    return 1 + (l > r ? l : r);
}

int main(int argc, char **argv) {
    static struct arena a;
    const char *src = argc > 1 ? argv[1] : "sq(x - 2) * 3 + half(10) / (y + -1) + abs(2*3-10)";
    struct parser ps = {src, &a, 0};
    struct node *root = parse_expr(&ps);
    if (ps.error || !root) { fprintf(stderr, "parse error near '%s'\n", ps.p); return 1; }
    double env[26] = {0};
    int d0 = depth(root);
    fold(root);
    for (int i = 0; i < 5; i++) {
        env['x' - 'a'] = i;
        env['y' - 'a'] = i * 0.5 + 2;
        printf("x=%d -> %.3f\n", i, eval(root, env));
    }
    printf("nodes=%d depth %d -> %d\n", a.used, d0, depth(root));
    return 0;
}
