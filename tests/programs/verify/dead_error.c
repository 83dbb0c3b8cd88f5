/* The function containing the error label is never called, directly or
 * through a pointer: its address is taken, but no call has its type. */
extern int __VERIFIER_nondet_int(void);
static void fail(void) { ERROR: return; }
static int helper(int x) { return x + 1; }
int main(void)
{
  int (*h)(int) = helper;
  void (*f)(void) = fail;
  while (__VERIFIER_nondet_int())
    h(1);
  return f != 0;
}
