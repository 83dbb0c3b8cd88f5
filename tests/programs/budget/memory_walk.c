/* A list walked through memory the program cannot see the end of: many
 * paths, each with array-heavy solver queries. */
struct node { struct node *next; int v; };
extern struct node *__VERIFIER_nondet_pointer(void);
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  struct node *p = __VERIFIER_nondet_pointer();
  int n = 0;
  while (p != 0 && n < 100000) {
    if (p->v == n)
      n = n + 2;
    else
      n = n + 1;
    p = p->next;
  }
  if (n == 30001 && __VERIFIER_nondet_int()) {
  ERROR:
    return 1;
  }
  return 0;
}
