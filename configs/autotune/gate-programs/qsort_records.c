/* qsort/bsearch with comparators over structs (multi-key, descending,
 * index tie-break for a stable order), strings and pointers to strings;
 * checks the orderings against hand-computed expectations and invariants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char name[12];
  int dept;
  double salary; /* exact binary fractions only */
  int index;
} Employee;

static int by_dept_then_salary_desc(const void *pa, const void *pb) {
  const Employee *a = pa, *b = pb;
  if (a->dept != b->dept) return a->dept < b->dept ? -1 : 1;
  if (a->salary != b->salary) return a->salary > b->salary ? -1 : 1;
  return strcmp(a->name, b->name);
}

static int by_salary_stable(const void *pa, const void *pb) {
  const Employee *a = pa, *b = pb;
  if (a->salary < b->salary) return -1;
  if (a->salary > b->salary) return 1;
  return (a->index > b->index) - (a->index < b->index);
}

static int by_string(const void *pa, const void *pb) {
  return strcmp(*(char *const *)pa, *(char *const *)pb);
}

static int by_length_then_alpha(const void *pa, const void *pb) {
  const char *a = *(char *const *)pa, *b = *(char *const *)pb;
  size_t la = strlen(a), lb = strlen(b);
  if (la != lb) return la < lb ? -1 : 1;
  return strcmp(a, b);
}

static int cmp_uint_desc(const void *pa, const void *pb) {
  unsigned a = *(const unsigned *)pa, b = *(const unsigned *)pb;
  return (a < b) - (a > b);
}

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "qsort_records: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                              \
    }                                                                          \
  } while (0)

int main(void) {
  Employee staff[] = {
      {"ada", 2, 5250.5, 0},   {"bob", 1, 3000.25, 1},  {"cyd", 2, 5250.5, 2},
      {"dee", 3, 1000.0, 3},   {"eve", 1, 4500.75, 4},  {"fay", 2, 7000.0, 5},
      {"gus", 3, 1000.0, 6},   {"hal", 1, 3000.25, 7},  {"ivy", 2, 250.125, 8},
      {"jon", 3, 99999.5, 9},
  };
  enum { NE = sizeof staff / sizeof staff[0] };
  Employee copy[NE];
  memcpy(copy, staff, sizeof staff);

  qsort(copy, NE, sizeof copy[0], by_dept_then_salary_desc);
  static const char *expect1[NE] = {"eve", "bob", "hal", "fay", "ada",
                                    "cyd", "ivy", "jon", "dee", "gus"};
  for (int i = 0; i < NE; i++) CHECK(strcmp(copy[i].name, expect1[i]) == 0);

  qsort(copy, NE, sizeof copy[0], by_salary_stable);
  static const int expect2[NE] = {8, 3, 6, 1, 7, 4, 0, 2, 5, 9};
  for (int i = 0; i < NE; i++) CHECK(copy[i].index == expect2[i]);
  double total = 0;
  for (int i = 0; i < NE; i++) total += copy[i].salary;
  CHECK(total == 130251.875); /* all addends are exact binary fractions */

  Employee key = {"", 0, 7000.0, 5};
  Employee *hit = bsearch(&key, copy, NE, sizeof copy[0], by_salary_stable);
  CHECK(hit != NULL && strcmp(hit->name, "fay") == 0);
  key.salary = 7000.5;
  CHECK(bsearch(&key, copy, NE, sizeof copy[0], by_salary_stable) == NULL);

  char *words[] = {"pear", "fig", "apple", "banana", "kiwi", "date",
                   "plum", "cherry", "lime", "apricot", "", "fig"};
  enum { NW = sizeof words / sizeof words[0] };
  qsort(words, NW, sizeof words[0], by_string);
  static const char *alpha[NW] = {"",     "apple", "apricot", "banana",
                                  "cherry", "date", "fig",   "fig",
                                  "kiwi", "lime",  "pear",   "plum"};
  for (int i = 0; i < NW; i++) CHECK(strcmp(words[i], alpha[i]) == 0);
  const char *needle = "kiwi";
  char **found = bsearch(&needle, words, NW, sizeof words[0], by_string);
  CHECK(found != NULL && found - words == 8);

  qsort(words, NW, sizeof words[0], by_length_then_alpha);
  static const char *bylen[NW] = {"",     "fig",  "fig",   "date",
                                  "kiwi", "lime", "pear",  "plum",
                                  "apple", "banana", "cherry", "apricot"};
  for (int i = 0; i < NW; i++) CHECK(strcmp(words[i], bylen[i]) == 0);

  /* Descending unsigned sort with values near the wrap-around point: a
   * comparator written as a - b would get these wrong. */
  unsigned big[] = {0u, 4294967295u, 2147483648u, 1u, 2147483647u, 4294967294u, 7u};
  qsort(big, 7, sizeof big[0], cmp_uint_desc);
  static const unsigned bigdesc[] = {4294967295u, 4294967294u, 2147483648u,
                                     2147483647u, 7u, 1u, 0u};
  CHECK(memcmp(big, bigdesc, sizeof big) == 0);

  /* Sorting zero and one elements must be harmless. */
  qsort(big, 0, sizeof big[0], cmp_uint_desc);
  qsort(big + 3, 1, sizeof big[0], cmp_uint_desc);
  CHECK(memcmp(big, bigdesc, sizeof big) == 0);

  if (failures) {
    fprintf(stderr, "qsort_records: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
