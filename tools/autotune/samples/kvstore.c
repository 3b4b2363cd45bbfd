/* Sample for check-passes.sh: a small string-keyed hash table with an
 * open-addressing probe loop, a tokenizer, a command dispatcher (switch and
 * function pointers) and qsort with a comparator. Written to give the pass
 * checker realistic IR: loops, structs, strings, indirect calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define TABLE_BITS 8
#define TABLE_SIZE (1u << TABLE_BITS)

struct entry {
    char *key;
    long value;
    unsigned hash;
};

struct table {
    struct entry slots[TABLE_SIZE];
    unsigned count;
    unsigned probes;
};

static unsigned fnv1a(const char *s) {
    unsigned h = 2166136261u;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

static struct entry *table_find(struct table *t, const char *key, int create) {
    unsigned h = fnv1a(key);
    for (unsigned i = 0; i < TABLE_SIZE; i++) {
        struct entry *e = &t->slots[(h + i * i) & (TABLE_SIZE - 1)];
        t->probes++;
        if (!e->key) {
            if (!create)
                return NULL;
            e->key = strdup(key);
            e->hash = h;
            e->value = 0;
            t->count++;
            return e;
        }
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

typedef long (*binop_fn)(long, long);

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }
static long op_max(long a, long b) { return a > b ? a : b; }

static const struct {
    const char *name;
    binop_fn fn;
} ops[] = {{"add", op_add}, {"sub", op_sub}, {"mul", op_mul}, {"max", op_max}};

static binop_fn lookup_op(const char *name) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return ops[i].fn;
    return NULL;
}

/* Splits LINE in place into at most MAX whitespace-separated words. */
static int tokenize(char *line, char **words, int max) {
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        words[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

enum cmd { CMD_SET, CMD_GET, CMD_APPLY, CMD_DUMP, CMD_UNKNOWN };

static enum cmd parse_cmd(const char *w) {
    switch (w[0]) {
    case 's': return strcmp(w, "set") == 0 ? CMD_SET : CMD_UNKNOWN;
    case 'g': return strcmp(w, "get") == 0 ? CMD_GET : CMD_UNKNOWN;
    case 'a': return strcmp(w, "apply") == 0 ? CMD_APPLY : CMD_UNKNOWN;
    case 'd': return strcmp(w, "dump") == 0 ? CMD_DUMP : CMD_UNKNOWN;
    default: return CMD_UNKNOWN;
    }
}

static int by_value_desc(const void *a, const void *b) {
    const struct entry *x = *(const struct entry *const *)a;
    const struct entry *y = *(const struct entry *const *)b;
    if (x->value != y->value)
        return x->value < y->value ? 1 : -1;
    return strcmp(x->key, y->key);
}

static void dump(struct table *t, FILE *out) {
    struct entry *sorted[TABLE_SIZE];
    unsigned n = 0;
    for (unsigned i = 0; i < TABLE_SIZE; i++)
        if (t->slots[i].key)
            sorted[n++] = &t->slots[i];
    qsort(sorted, n, sizeof sorted[0], by_value_desc);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%-12s %ld\n", sorted[i]->key, sorted[i]->value);
}

int run_script(struct table *t, char *script, FILE *out) {
    int errors = 0;
    for (char *line = strtok(script, "\n"); line; line = strtok(NULL, "\n")) {
        char *w[4];
        int n = tokenize(line, w, 4);
        if (n == 0)
            continue;
        struct entry *e;
        switch (parse_cmd(w[0])) {
        case CMD_SET:
            if (n < 3 || !(e = table_find(t, w[1], 1))) { errors++; break; }
            e->value = strtol(w[2], NULL, 10);
            break;
        case CMD_GET:
            e = n > 1 ? table_find(t, w[1], 0) : NULL;
            fprintf(out, "%s\n", e ? "found" : "missing");
            if (e)
                fprintf(out, "%ld\n", e->value);
            break;
        case CMD_APPLY: {
            binop_fn fn = n > 3 ? lookup_op(w[1]) : NULL;
            struct entry *a = fn ? table_find(t, w[2], 0) : NULL;
            struct entry *b = a ? table_find(t, w[3], 0) : NULL;
            if (!b) { errors++; break; }
            a->value = fn(a->value, b->value);
            break;
        }
        case CMD_DUMP:
            dump(t, out);
            break;
        default:
            errors++;
        }
    }
    return errors;
}

int main(void) {
    static struct table t;
    char script[] = "set a 4\nset b 7\napply mul a b\nget a\nset c -3\n"
                    "apply max c b\nbogus\ndump\n";
    int errors = run_script(&t, script, stdout);
    printf("errors=%d count=%u probes=%u\n", errors, t.count, t.probes);
    for (unsigned i = 0; i < TABLE_SIZE; i++)
        free(t.slots[i].key);
    return errors != 1;
}
