/* A list of two heap objects, each with a pointer field, summed.
   expect: ilp32=true lp64=true */
extern void *malloc(unsigned long size);
struct item {
  int v;
  struct item *next;
};
int main(void) {
  struct item *h = 0;
  int i;
  for (i = 0; i < 2; i++) {
    struct item *n = malloc(sizeof(struct item));
    if (n == 0) {
      return 0;
    }
    n->v = i;
    n->next = h;
    h = n;
  }
  int s = 0;
  while (h != 0) {
    s += h->v;
    h = h->next;
  }
  if (s != 1) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
