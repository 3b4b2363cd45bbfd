/* A module in a subdirectory: its corpus name must mirror the object path. */
#include <stdlib.h>

struct node { int value; struct node *next; };

static struct node *push(struct node *head, int value) {
  struct node *n = malloc(sizeof *n);
  if (!n) return head;
  n->value = value;
  n->next = head;
  return n;
}

static int length(const struct node *n) {
  int count = 0;
  for (; n; n = n->next) ++count;
  return count;
}

int build_and_count(int count) {
  struct node *head = 0;
  for (int i = 0; i < count; ++i) head = push(head, i);
  int result = length(head);
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return result;
}
