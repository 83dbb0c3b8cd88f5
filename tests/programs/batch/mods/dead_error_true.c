/* The error label sits in a function nobody calls: TRUE. */
extern int __VERIFIER_nondet_int(void);
static void fail(void) { ERROR: return; }
int main(void)
{
  int n = __VERIFIER_nondet_int();
  while (n > 0)
    n--;
  return 0;
}
